"""How much a finding matters: the severities, most serious first.

Rules declare one, the configuration overrides them and `fail-on` picks a threshold, so
the list lives in the core, where all three can read it.
"""

SEVERITIES: tuple[str, ...] = ("error", "warning", "note")
