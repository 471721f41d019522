"""The audit's report: its headings, the built-in rules' codes, and readers of its findings."""

from __future__ import annotations

from typing import Any

from automaton_rules.testing import Audit, AutomatonProject
from helpers.past import backdate, now

CAT1 = "=== Category 1: Out-of-order Artifacts ==="
CAT2 = "=== Category 2: State-Artifact Inconsistency ==="
CAT3 = "=== Category 3: Unauthorized Modifications ==="
CAT4 = "=== Category 4: Manually Created Task Folders ==="
CAT5 = "=== Category 5: Changes to the Guard ==="
CATEGORY_HEADINGS = (CAT1, CAT2, CAT3, CAT4, CAT5)
ERRORS = "=== Errors ==="
BUILTIN_CODES = (
    "AR101",
    "AR201",
    "AR202",
    "AR203",
    "AR204",
    "AR205",
    "AR206",
    "AR207",
    "AR208",
    "AR209",
    "AR212",  # builtin/inconsistency.py's last rule, before builtin/approvals.py's
    "AR210",
    "AR301",
    "AR302",
    "AR303",
    "AR211",  # registration order: builtin/work_done.py loads after builtin/unauthorized.py
    "AR304",
    "AR401",
    "AR402",
    "AR501",
    "AR502",
    "AR503",
    "AR504",
)


def write_config(project: AutomatonProject, text: str) -> None:
    (project.root / "automaton.toml").write_text(text)


def with_code(audit: Audit, code: str) -> list[dict[str, Any]]:
    return [f for f in audit.findings if f["code"] == code]


def section(text: str, heading: str) -> list[str]:
    """The lines of one report section, up to the blank line that ends it."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return lines[start:end]


def assert_clean(audit: Audit) -> None:
    assert audit.findings == [], audit.text
    assert audit.exit_code == 0, audit.text


# The specification's example (section 11), which several report tests start from.
def spec_example(project: AutomatonProject, *, git: bool = True) -> tuple[str, int]:
    """Section 11's project; with git, src/auth.py is committed during research."""
    if git:
        project.git("status")  # initialises the repository
    project.task("add-user-auth", "research", files=["SPEC.md"])
    project.task("fix-login-bug", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    project.task("add-payment-api", "complete")
    backdate(project)
    if not git:
        return "", 0
    when = now() - 600
    sha = project.commit(
        {"src/auth.py": "def login():\n    return True\n"},
        "Fix the login bug",
        task="fix-login-bug",
        when=when,
    )
    return sha, when
