"""A harness's settings changed during a session: may the running session take them up?

Claude Code tells its hooks when a settings file changes mid-session (`ConfigChange`,
with the file's `source` and `file_path`) and keeps the old settings when a hook blocks.
A change that would stop the guard's hooks from running is refused: one that switches
every hook off (`disableAllHooks`), that leaves a project's settings file without the
hook entries automaton-install wrote, or that removes or garbles that file. Any other
change (a permission, a model) goes through. The next session reads the files afresh,
so a person who means the change restarts the session; the audit reports the commit.
"""

from __future__ import annotations

import json
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The command of each hook automaton-install writes runs `automaton-hook --harness NAME`.
OUR_HOOK = "automaton-hook"
REFUSED = (
    "automaton-rules refused this settings change for the running session: {why}. "
    "The workflow's hooks stay as they were until the session restarts; to change them, "
    "edit the file yourself and start a new session (automaton-rules: "
    "docs/harness-integration.md)."
)


def judge(payload: dict[str, Any]) -> str | None:
    """Why the change must not reach the running session, or None when it may."""
    source = str(payload.get("source") or "")
    path_text = payload.get("file_path")
    if source in ("skills", "policy_settings") or not isinstance(path_text, str):
        return None  # not a file of hooks the user or the project controls
    path = Path(path_text)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    except OSError as exc:
        return REFUSED.format(why=f"{path} cannot be read ({exc.strerror or exc})")
    if text is None:
        ours = source == "project_settings"
        return REFUSED.format(why=f"{path} was removed, and with it the hooks") if ours else None
    try:
        settings = json.loads(text) if text.strip() else {}
    except ValueError:
        return REFUSED.format(why=f"{path} is no longer valid JSON")
    if not isinstance(settings, dict):
        return REFUSED.format(why=f"{path} no longer holds a JSON object")
    if settings.get("disableAllHooks") is True:
        return REFUSED.format(why=f"{path} sets disableAllHooks, which switches the guard off")
    if source == "project_settings" and OUR_HOOK not in json.dumps(settings.get("hooks", {})):
        return REFUSED.format(why=f"{path} no longer runs the workflow's hooks")
    return None
