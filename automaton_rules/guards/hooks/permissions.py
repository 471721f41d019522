"""What the user's own permission settings say of a shell line, read the way each harness
reads them, so that running the line inside the sandbox never widens them.

A harness matches its permission rules against the command it will run, and after the
adapter's rewrite that is the sandbox's command line, which no rule written for the
original matches: a deny would not deny, an ask would not ask. So the adapter matches the
rules against the original itself (`decide`): `deny` when one denies it, `ask` when one
asks, `allow` when rules allow every command of the line, and None when no rule speaks,
which leaves the harness's own mode to decide. Read here: Claude Code's
`permissions.allow|ask|deny` `Bash(...)` rules; Codex's `prefix_rule`s in `.rules` files;
Gemini CLI's policy rules and `tools.exclude`; opencode's `permission.bash`. Each
harness record names its reader (`Harness.permission_rules`, guards/hooks/harnesses.py).
"""

from __future__ import annotations

import json
import re
from fnmatch import fnmatchcase
from pathlib import Path

from automaton_rules.support.patterns import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any

    Rule = tuple[Callable[[str], bool], str]  # a permission pattern and its verdict

DENY, ASK, ALLOW = "deny", "ask", "allow"
_SPLIT = Lazy(r"\|\||&&|[;|\n&]")
_QUOTED = Lazy(r"'[^']*'|\"(?:[^\"\\\\]|\\\\.)*\"")


def commands(line: str) -> list[str]:
    """The simple commands of a line, split where the shell would run another (`&&`, `||`,
    `;`, `|`, `&`, newline), quoted text kept whole."""
    parts, start, at = [], 0, 0
    while at < len(line):
        quoted = _QUOTED.match(line, at)
        if quoted:
            at = quoted.end()
            continue
        separator = _SPLIT.match(line, at)
        if separator:
            parts.append(line[start:at])
            at = start = separator.end()
            continue
        at += 1
    parts.append(line[start:])
    return [part.strip() for part in parts if part.strip()]


def decide(said: Iterable[Rule], line: str) -> str | None:
    """DENY, ASK or ALLOW as the user's rules (a harness record's `permission_rules`)
    answer the original `line`; None when no rule speaks of it."""
    rules = list(said)
    if not rules:
        return None
    parts = commands(line) or [line]
    found = [[verdict for pattern, verdict in rules if pattern(part)] for part in parts]
    if any(DENY in verdicts for verdicts in found):
        return DENY
    if any(ASK in verdicts for verdicts in found):
        return ASK
    if all(ALLOW in verdicts for verdicts in found):
        return ALLOW
    return None


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


# ---------------------------------------------------------------------- Claude Code

CLAUDE_MANAGED = (
    Path("/etc/claude-code/managed-settings.json"),
    Path("/Library/Application Support/ClaudeCode/managed-settings.json"),
)


def claude_rules(project: Path, home: Path) -> Iterator[tuple[Any, str]]:
    """`Bash`, `Bash(exact)`, `Bash(prefix:*)`, `Bash(glob *)` in every settings file."""
    files = [*CLAUDE_MANAGED, home / ".claude/settings.json"]
    files += [project / ".claude/settings.json", project / ".claude/settings.local.json"]
    for path in files:
        permissions = _json(path).get("permissions")
        if not isinstance(permissions, dict):
            continue
        for verdict in (DENY, ASK, ALLOW):
            for rule in permissions.get(verdict) or []:
                pattern = _claude_pattern(rule) if isinstance(rule, str) else None
                if pattern is not None:
                    yield pattern, verdict


def _claude_pattern(rule: str) -> Any:
    rule = rule.strip()
    if rule == "Bash":
        return lambda command: True
    if not (rule.startswith("Bash(") and rule.endswith(")")):
        return None
    body = rule[5:-1].strip()
    if body.endswith(":*"):
        prefix = body[:-2]
        return lambda command: command == prefix or command.startswith(prefix + " ")
    if "*" in body:
        return lambda command: fnmatchcase(command, body)
    return lambda command: command == body


# ---------------------------------------------------------------------- Codex

_PREFIX_RULE = Lazy(r"prefix_rule\s*\(")
_DECISION = Lazy(r"decision\s*=\s*(\"[^\"]*\"|'[^']*')")
_PATTERN = Lazy(r"pattern\s*=\s*\[")
CODEX_DECISIONS = {"forbidden": DENY, "prompt": ASK, "allow": ALLOW}


def codex_rules(project: Path, home: Path) -> Iterator[tuple[Any, str]]:
    """`prefix_rule(pattern = [...], decision = "forbidden" | "prompt" | "allow")`."""
    import ast

    for folder in (home / ".codex" / "rules", project / ".codex" / "rules"):
        for path in sorted(folder.glob("*.rules")) if folder.is_dir() else []:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError:
                continue
            for found in _PREFIX_RULE.finditer(text):
                body = _balanced(text, found.end() - 1)
                pattern_at = _PATTERN.search(body)
                decided = _DECISION.search(body)
                if pattern_at is None:
                    continue
                try:
                    pattern = ast.literal_eval(_balanced(body, pattern_at.end() - 1))
                    decision = ast.literal_eval(decided.group(1)) if decided else "allow"
                except (ValueError, SyntaxError):
                    continue
                if isinstance(pattern, list) and decision in CODEX_DECISIONS:
                    yield _prefix(pattern), CODEX_DECISIONS[decision]


def _balanced(text: str, start: int) -> str:
    """The bracketed text opening at `start` (`(` or `[`), up to its matching close."""
    depth, quote = 0, ""
    for at in range(start, len(text)):
        char = text[at]
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth == 0:
                return text[start : at + 1]
    return text[start:]


def _prefix(pattern: list[Any]) -> Any:
    """A command whose first words are the pattern's (an element may list alternatives)."""
    import shlex

    def matches(command: str) -> bool:
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
        if len(words) < len(pattern):
            return False
        return all(w == p or (isinstance(p, list) and w in p) for w, p in zip(words, pattern))

    return matches


# ---------------------------------------------------------------------- Gemini CLI

GEMINI_DECISIONS = {"deny": DENY, "ask_user": ASK, "allow": ALLOW}


def gemini_rules(project: Path, home: Path) -> Iterator[tuple[Any, str]]:
    """Policy rules on `run_shell_command` (`commandPrefix`, `commandRegex`) and
    `tools.exclude` entries `run_shell_command(PREFIX)`."""
    from automaton_rules.core.config import toml_module

    for folder in (home / ".gemini" / "policies", project / ".gemini" / "policies"):
        for path in sorted(folder.glob("*.toml")) if folder.is_dir() else []:
            try:
                data = toml_module().loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            yield from _gemini_rules(data.get("rule") or [])
    for path in (home / ".gemini/settings.json", project / ".gemini/settings.json"):
        tools = _json(path).get("tools")
        for entry in tools.get("exclude") or [] if isinstance(tools, dict) else []:
            if isinstance(entry, str) and entry.startswith("run_shell_command"):
                prefix = entry[len("run_shell_command") :].strip("() ")
                yield (lambda c, p=prefix: not p or c == p or c.startswith(p + " ")), DENY


def _gemini_rules(rules: Iterable[Any]) -> Iterator[tuple[Any, str]]:
    for rule in rules:
        if not isinstance(rule, dict) or rule.get("toolName") not in (None, "run_shell_command"):
            continue
        verdict = GEMINI_DECISIONS.get(str(rule.get("decision")))
        if verdict is None:
            continue
        prefix, regex = rule.get("commandPrefix"), rule.get("commandRegex")
        if isinstance(prefix, str):
            yield (lambda c, p=prefix: c == p or c.startswith(p + " ")), verdict
        elif isinstance(regex, str):
            try:
                compiled = re.compile(regex)
            except re.error:
                continue
            yield (lambda c, r=compiled: r.search(c) is not None), verdict


# ---------------------------------------------------------------------- opencode


def opencode_rules(project: Path, home: Path) -> Iterator[tuple[Any, str]]:
    """`permission.bash`: one action, or glob patterns (`git push*`) to actions."""
    for path in (home / ".config/opencode/opencode.json", project / "opencode.json"):
        permission = _json(path).get("permission")
        bash = permission.get("bash") if isinstance(permission, dict) else None
        if isinstance(bash, str) and bash in (DENY, ASK, ALLOW):
            yield (lambda command: True), bash
        elif isinstance(bash, dict):
            for glob, verdict in bash.items():
                if verdict in (DENY, ASK, ALLOW):
                    yield (lambda c, g=str(glob): fnmatchcase(c, g)), verdict
