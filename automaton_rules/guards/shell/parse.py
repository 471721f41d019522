"""tree-sitter-bash's tree walked into simple commands in the shell's own order, loaded only
for a line the pre-scan cannot answer; tree-sitter's compiled modules load without their
packages' `__init__` (which import `typing` and `importlib.resources`).
"""

from __future__ import annotations

import os
from pathlib import Path

from automaton_rules.guards.shell.words import (
    COMPUTED,
    MAX_DEPTH,
    Stdin,
    Where,
    Word,
    build,
    expand,
    names,
    text_of,
)
from automaton_rules.support.errors import AutomatonError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Sink(Protocol):
        """What the walk reports to: each simple command, each write by redirection."""

        def command(self, words: list[Word], where: Where) -> None: ...
        def redirect(self, target: Word, where: Where) -> None: ...
        def assign(self, name: str, value: Word, where: Where) -> None: ...
        def unreadable(self, text: str, where: Where) -> None: ...


_PARSER: list[Any] = []


def _binding(package: str) -> Any:
    """A package's compiled `_binding` module, loaded without running the package."""
    import importlib.machinery
    import importlib.util
    import sys

    name = f"{package}._binding"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(package)
    for place in (spec.submodule_search_locations or []) if spec else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(place, "_binding" + suffix)
            found = importlib.util.spec_from_file_location(name, path)
            if os.path.isfile(path) and found is not None and found.loader is not None:
                module = importlib.util.module_from_spec(found)
                found.loader.exec_module(module)
                sys.modules.setdefault(name, module)
                return module
    raise ImportError(f"no compiled module in {package}")


def parser() -> Any:
    """The bash parser, built once per process."""
    if not _PARSER:
        try:
            core, bash = _binding("tree_sitter"), _binding("tree_sitter_bash")
            _PARSER.append(core.Parser(core.Language(bash.language())))
        except (ImportError, OSError, ValueError, AttributeError, TypeError) as exc:
            raise AutomatonError(
                "shell-parser",
                f"the shell parser is missing or broken ({exc}); reinstall automaton-rules "
                "with its dependencies tree-sitter and tree-sitter-bash",
            ) from exc
    return _PARSER[0]


def walk(text: str, where: Where, sink: Sink) -> None:
    """Report every simple command and redirection of `text` to `sink`, in shell order."""
    if where.depth > MAX_DEPTH:
        sink.unreadable(text, where)
        return
    root = parser().parse(text.encode("utf-8", "surrogatepass")).root_node
    if root.has_error and _real_errors(root):
        sink.unreadable(text, where)
    _Walk(sink, where).block(root)


def _real_errors(node: Any) -> bool:
    """Errors beyond `<>` (read-write redirection), which the grammar does not know."""
    if node.is_missing:
        return True
    if node.type == "ERROR" and not _read_write(node):
        return True
    return any(_real_errors(child) for child in node.children if child.has_error)


def _read_write(error: Any) -> bool:
    """The grammar's error for `<>`: a `<` before a `>`, one of them in an ERROR node."""
    before, after, text = error.prev_sibling, error.next_sibling, text_of(error)
    if text == "<":
        return after is not None and text_of(after).startswith(">")
    return text == ">" and before is not None and text_of(before).endswith("<")


def _expands(heredoc: Any, body: Any) -> bool:
    """A heredoc whose delimiter is unquoted expands the `$X` and `$(...)` in its body."""
    start = next((c for c in heredoc.named_children if c.type == "heredoc_start"), None)
    if start is None or any(q in text_of(start) for q in "'\"\\"):
        return False
    return any(child.type != "heredoc_content" for child in body.named_children)


SEQUENCE = names(  # nodes whose children run one after the other
    "program list compound_statement do_group if_statement elif_clause else_clause "
    "while_statement case_statement case_item negated_command function_definition "
    "for_statement c_style_for_statement ERROR"
)
APART = names("subshell command_substitution process_substitution")
REDIRECTS = names("file_redirect heredoc_redirect herestring_redirect")
STATEMENTS = names("command pipeline list redirected_statement")  # inside a test, a loop's list


class _Walk:
    """One walk through a tree, carrying the folder `cd` moves (and pushd's stack)."""

    def __init__(self, sink: Sink, where: Where) -> None:
        self.sink = sink
        self.where = where
        self.stack: list[Path | None] = []

    def apart(self, node: Any, stdin: Stdin | None = None) -> None:
        """A subshell, pipeline stage or substitution: its `cd` stays inside it."""
        inner = _Walk(self.sink, self.where if stdin is None else self.where.but(stdin=stdin))
        inner.block(node)

    def block(self, node: Any) -> None:
        """Statements in the order they run."""
        kind = node.type
        if kind == "pipeline":
            self.pipeline(node.named_children)
        elif kind == "redirected_statement":
            self.redirected(node)
        elif kind == "command":
            self.command(node)
        elif kind in ("variable_assignment", "declaration_command"):
            self.assignments(node)
        elif kind == "for_statement":
            self.loop(node)
        elif kind in APART or kind in SEQUENCE:  # apart: its `cd` stays inside it
            inner = _Walk(self.sink, self.where) if kind in APART else self
            for child in node.named_children:
                inner.block(child)
        elif kind in REDIRECTS:
            _redirect(self, node)
        elif kind != "comment":
            self.words(node)  # a test, a loop's list, an unset: only substitutions run

    def loop(self, node: Any) -> None:
        """`for X in WORDS`: each word is a value X may hold in the body."""
        variable = node.child_by_field_name("variable")
        name = text_of(variable) if variable is not None else ""
        for value in node.children_by_field_name("value"):
            for word in expand(value, self):
                self.sink.assign(name, word, self.where)
        body = node.child_by_field_name("body")
        if body is not None:
            self.block(body)

    def pipeline(self, stages: list[Any]) -> None:
        """Each stage runs apart; every stage but the first reads a pipe."""
        for index, stage in enumerate(stages):
            self.apart(stage, Stdin("pipe") if index else None)

    def redirected(self, node: Any) -> None:
        """A statement with redirections: its input comes from them, its output goes to them."""
        body = node.child_by_field_name("body")
        redirects = node.children_by_field_name("redirect")
        if body is not None:
            _with_redirects(self, body, redirects)
        else:
            for redirect in redirects:
                _redirect(self, redirect)

    def assignments(self, node: Any) -> None:
        """`X=v`, `export X=v`: values a computed write may use; HOME stops being known."""
        for child in [node] if node.type == "variable_assignment" else node.named_children:
            if child.type == "variable_assignment":
                self.assign(child)
            elif child.type == "variable_name" and text_of(child) == "HOME":
                self.where = self.where.but(home=None)

    def assign(self, node: Any) -> tuple[str, Word]:
        """One `NAME=value`, reported to the sink; its value's substitutions run."""
        name_node = node.child_by_field_name("name")
        name = text_of(name_node) if name_node is not None else ""
        value = node.child_by_field_name("value")
        word = build(value, self) if value is not None else Word("")
        if name == "HOME":
            self.where = self.where.but(home=None)
        if name == "PWD":  # `$PWD` is no longer the folder: nothing relative is known
            self.where = self.where.but(cwd=None)
        self.sink.assign(name, word, self.where)
        return name, word

    def command(self, node: Any) -> None:
        """A simple command: its prefix assignments, words and own redirections."""
        env: list[tuple[str, Word]] = []
        words: list[Word] = []
        stdin = None
        for child in node.named_children:
            if child.type == "variable_assignment":
                env.append(self.assign(child))
            elif child.type in REDIRECTS:
                stdin = _redirect(self, child) or stdin
            elif child.type != "comment":
                words.extend(expand(child, self))
        where = self.where.but(env=tuple(env), stdin=stdin or self.where.stdin)
        if words and not _moves(self, words):
            self.sink.command(words, where)

    def words(self, node: Any) -> None:
        """Run the substitutions inside a node that is not a command."""
        for child in node.named_children:
            if child.type in APART or child.type in STATEMENTS:
                self.block(child)  # a substitution runs apart
            else:
                self.words(child)


def _with_redirects(walk: _Walk, body: Any, redirects: list[Any]) -> None:
    """`cd a && cmd > f`: the grammar hangs the redirection on the list, bash on `cmd`."""
    stages = body.named_children
    if body.type == "list" and stages:
        for child in stages[:-1]:
            walk.block(child)
        _with_redirects(walk, stages[-1], redirects)
        return
    if body.type == "pipeline" and len(stages) > 1:
        walk.pipeline(stages[:-1])
        last = _Walk(walk.sink, walk.where.but(stdin=Stdin("pipe")))
        _with_redirects(last, stages[-1], redirects)
        return
    stdin = None
    for redirect in redirects:
        stdin = _redirect(walk, redirect) or stdin
    saved = walk.where.stdin  # the body reads what the redirections give, then it is back
    walk.where = walk.where.but(stdin=stdin or saved)
    walk.block(body)
    walk.where = walk.where.but(stdin=saved)


def _redirect(walk: _Walk, node: Any) -> Stdin | None:
    """Report a write; return the input a `<`, heredoc or here-string gives."""
    if node.type == "heredoc_redirect":
        return _heredoc(walk, node)
    if node.type == "herestring_redirect":
        words = [w for child in node.named_children for w in expand(child, walk)]
        text = " ".join(w.value for w in words)
        return Stdin("text", text, any(w.computed for w in words))
    operator = "".join(text_of(c) for c in node.children if c.type == "ERROR" or not c.is_named)
    target = node.child_by_field_name("destination")
    if target is None:
        return None
    if ">" not in operator and "<" in operator:
        word = build(target, walk)
        return None if operator.startswith("<&") else Stdin("file", word.value)
    if "&" in operator and (target.type == "number" or text_of(target) == "-"):
        return None  # `2>&1`, `>&-`: a descriptor, not a file
    walk.sink.redirect(build(target, walk), walk.where)
    return None


def _heredoc(walk: _Walk, node: Any) -> Stdin:
    """A heredoc feeds its command; redirections and pipes may follow its start."""
    body, computed = "", False
    for child in node.named_children:
        if child.type == "heredoc_body":
            body = text_of(child)
            computed = _expands(node, child)
            if computed:
                walk.words(child)  # an unquoted heredoc runs its `$(...)`
        elif child.type in REDIRECTS:
            _redirect(walk, child)
        elif child.type == "pipeline":  # `cat <<EOF | sh`: every stage reads a pipe
            for stage in child.named_children:
                walk.apart(stage, Stdin("pipe"))
        elif child.type not in ("heredoc_start", "heredoc_end"):
            walk.block(child)  # `cat <<EOF && rm x`
    return Stdin("text", body, computed)


def _moves(walk: _Walk, words: list[Word]) -> bool:
    """`cd`, `pushd` and `popd` change the folder of the commands after them."""
    name = words[0].value
    if name not in ("cd", "pushd", "popd") or words[0].computed:
        return False
    args = [w for w in words[1:] if not (w.value.startswith("-") and len(w.value) > 1)]
    if name == "popd":
        walk.where = walk.where.but(cwd=walk.stack.pop() if walk.stack else None)
        return True
    if name == "pushd":
        walk.stack.append(walk.where.cwd)
        if not args:  # swaps the top two folders
            walk.where = walk.where.but(cwd=None)
            return True
    target = args[0] if args else Word(str(walk.where.home) if walk.where.home else COMPUTED)
    walk.where = walk.where.into(target)
    return True
