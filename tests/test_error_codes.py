"""Every error code a command can report is in the catalogue, with its exit status, and documented.

Read from the source with `ast`: every call of `AutomatonError`, `Refusal` or a class
derived from them in the package, its code read from a literal, a module constant or an
f-string. Agents and harnesses match on `error.code`, so a code that reaches the output
without a row in `support/errors.py`'s `CODES` and a line in the docs is a contract nobody
wrote down. The controls at the end show the reader sees each way a code can be written.
"""

from __future__ import annotations

import ast
import re

import pytest
from helpers import ROOT, Project

from automaton_rules.core import policy
from automaton_rules.support.errors import CODES, ERROR_CODES, AutomatonError, Code, Refusal

PACKAGE = ROOT / "automaton_rules"
BASES = {"AutomatonError": AutomatonError.exit_code, "Refusal": Refusal.exit_code}
# Codes built in an f-string, with every value its placeholder takes.
FORMED = {"approval-{}": policy.REASONS}


class Raised:
    """One construction of an error in the package: where, its exit status, its codes."""

    def __init__(self, where: str, exit_status: int, codes: list[str]) -> None:
        self.where, self.exit_status, self.codes = where, exit_status, codes

    def __repr__(self) -> str:
        return f"{self.where} (exit {self.exit_status}): {', '.join(self.codes)}"


def error_classes(trees: dict[str, ast.Module]) -> dict[str, int]:
    """The exception classes of the package by name, each with its exit status: the two
    bases, and every class derived from one (a Refusal's subclass refuses too)."""
    classes = dict(BASES)
    grown = True
    while grown:
        grown = False
        for tree in trees.values():
            for node in ast.walk(tree):
                if not isinstance(node, ast.ClassDef) or node.name in classes:
                    continue
                for base in node.bases:
                    name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", None)
                    if name in classes:
                        classes[node.name] = classes[name]
                        grown = True
                        break
    return classes


def constants(trees: dict[str, ast.Module]) -> dict[str, list[str]]:
    """Module-level string constants by name (`HAND_EDITED = "state-edited-by-hand"`)."""
    found: dict[str, list[str]] = {}
    for tree in trees.values():
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.setdefault(target.id, []).append(node.value.value)
    return found


def read_code(node: ast.expr | None, named: dict[str, list[str]]) -> list[str]:
    """The codes an argument can be; an expression this reader cannot follow fails."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and len(set(named.get(node.id, []))) == 1:
        return [named[node.id][0]]
    if isinstance(node, ast.JoinedStr):
        template = "".join(
            part.value if isinstance(part, ast.Constant) else "{}" for part in node.values
        )
        if template in FORMED:
            return [template.format(value) for value in FORMED[template]]
        raise AssertionError(f"code {template!r}: add its values to FORMED")
    shown = ast.unparse(node) if node is not None else "no code"
    raise AssertionError(f"a code this test cannot read: {shown}")


def raised_in(trees: dict[str, ast.Module]) -> list[Raised]:
    """Every construction of an error class in the given modules."""
    classes = error_classes(trees)
    named = constants(trees)
    found = []
    for where, tree in trees.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name not in classes:
                continue
            code = node.args[0] if node.args else None
            code = next((kw.value for kw in node.keywords if kw.arg == "code"), code)
            codes = read_code(code, named)
            found.append(Raised(f"{where}:{node.lineno}", classes[name], codes))
    return found


def package_trees() -> dict[str, ast.Module]:
    return {
        path.relative_to(ROOT).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


RAISED = raised_in(package_trees())


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    kept = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return kept.replace(" ", "-")


def section(doc: str) -> str:
    """The text under the heading `doc` (`docs/PAGE.md#anchor`) names, to the next heading
    of the same or a higher level."""
    page, _, anchor = doc.partition("#")
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        heading = re.match(r"^(#+) (.*)", line)
        if heading and slug(heading.group(2)) == anchor:
            level = len(heading.group(1))
            body = []
            for rest in lines[index + 1 :]:
                deeper = re.match(r"^(#+) ", rest)
                if deeper and len(deeper.group(1)) <= level:
                    break
                body.append(rest)
            return "\n".join(body)
    raise AssertionError(f"{doc}: no such heading")


def table_of_codes() -> dict[str, int]:
    """The error codes table of docs/harness-integration.md: code -> exit status."""
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| (\d) \|", section(ERROR_CODES), re.MULTILINE)
    return {code: int(status) for code, status in rows}


def test_the_package_raises_errors_the_reader_sees() -> None:
    """The scan found the package's errors: far more than a handful, both exit statuses."""
    assert len(RAISED) > 100
    assert {raised.exit_status for raised in RAISED} == {1, 2}


def test_every_code_raised_is_in_the_catalogue_with_its_exit_status() -> None:
    missing = [f"{raised}" for raised in RAISED for code in raised.codes if code not in CODES]
    assert missing == []
    wrong = [
        f"{raised}: the catalogue says exit {CODES[code].exit_status}"
        for raised in RAISED
        for code in raised.codes
        if CODES[code].exit_status != raised.exit_status
    ]
    assert wrong == []


def test_every_code_in_the_catalogue_is_raised_somewhere() -> None:
    """No row outlives the failure it names."""
    raised = {code for found in RAISED for code in found.codes}
    assert sorted(set(CODES) - raised) == []


@pytest.mark.parametrize("code", sorted(CODES.values(), key=lambda c: c.name), ids=str)
def test_every_code_is_documented_where_its_row_points(code: Code) -> None:
    assert code.doc.startswith("docs/") and ".md#" in code.doc
    assert f"`{code.name}`" in section(code.doc), f"{code.name} is not in {code.doc}"


def test_the_table_of_error_codes_is_the_catalogue() -> None:
    documented = table_of_codes()
    assert documented == {code.name: code.exit_status for code in CODES.values()}


def test_an_error_knows_where_its_code_is_documented() -> None:
    assert AutomatonError("task-exists", "x").documented_at == "docs/workflow.md#creating-a-task"
    assert AutomatonError("acme-own-code", "a plugin's own").documented_at is None


def test_an_error_in_json_carries_its_code_as_a_string(project: Project) -> None:
    """The code reaches the output as the catalogue spells it."""
    project.create("alpha")
    result = project.run("--task", "nope", "--json")
    assert result.rc == CODES["task-not-found"].exit_status
    assert result.json["error"]["code"] == "task-not-found"


# --------------------------------------------------------------------------------------
# Controls: the reader sees every way a code is written, and fails on what it cannot read
# --------------------------------------------------------------------------------------

CONTROL = """
from automaton_rules.support.errors import AutomatonError, Refusal

MINE = "acme-constant"


class AcmeRefusal(Refusal):
    pass


class AcmeDeeper(AcmeRefusal):
    pass


def f(reason):
    raise AutomatonError("acme-literal", "x")
    raise Refusal(code="acme-keyword", message="x")
    raise AutomatonError(MINE, "x")
    raise AcmeDeeper("acme-subclass", "x")
    raise Refusal(f"approval-{reason}", "x")
"""


def test_the_reader_sees_each_way_of_writing_a_code() -> None:
    found = raised_in({"control.py": ast.parse(CONTROL)})
    read = [(raised.exit_status, raised.codes) for raised in found]
    assert read == [
        (2, ["acme-literal"]),
        (1, ["acme-keyword"]),
        (2, ["acme-constant"]),
        (1, ["acme-subclass"]),
        (1, [f"approval-{reason}" for reason in policy.REASONS]),
    ]
    assert all(code not in CODES for _, codes in read[:4] for code in codes)


@pytest.mark.parametrize(
    "call",
    [
        "AutomatonError(make_code(), 'x')",
        "Refusal(f'acme-{x}', 'x')",
        "AutomatonError(message='x')",
    ],
)
def test_a_code_the_reader_cannot_follow_fails(call: str) -> None:
    with pytest.raises(AssertionError):
        raised_in({"control.py": ast.parse(call)})


def test_a_heading_anchor_is_read_as_github_makes_it() -> None:
    assert slug("Prompt mode: approving in the chat") == "prompt-mode-approving-in-the-chat"
    assert slug("The guard's own files") == "the-guards-own-files"
    with pytest.raises(AssertionError):
        section("docs/workflow.md#no-such-heading")


def test_the_docs_table_reader_sees_a_row() -> None:
    assert table_of_codes()["usage"] == 2


def test_the_policy_names_the_reasons_signing_and_passkeys_give() -> None:
    """The policy names them so the views and hooks need not import either module."""
    from automaton_rules.support import passkey_check, signing

    named = (policy.SIGNATURE_REASONS, policy.PASSKEY_REASONS)
    given = ((signing.MISSING, signing.INVALID, signing.UNKNOWN_KEY), tuple(passkey_check.REASONS))
    assert named == given
