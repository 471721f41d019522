"""The rule engine: rules, findings, the pluggy hooks, and the runner that calls them.

It plans which rules run at which moment (audit, validate, transition, edit), loads
plugins by name, calls each rule with the arguments it names, shares large audits with
helper processes, and reads the git history the `git` argument holds. It imports the
core only; the built-in rules are loaded by module name, exactly like a team's plugins.
"""
