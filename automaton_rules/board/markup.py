"""Artifacts as HTML: Markdown rendered with raw HTML escaped, and diffs since approval.

An artifact is written by an agent, so it is untrusted text. markdown-it-py renders it
as CommonMark (with tables and strikethrough) with `html` off: a `<script>` in SPEC.md is
shown as text, never run, and links keep markdown-it's own check that refuses
`javascript:`, `vbscript:`, `file:` and `data:` (but images') URLs. Each top-level block
carries the number of the line it starts on, so a comment can be made on a line, and
the blocks comments are about are marked.
"""

from __future__ import annotations

import difflib
from html import escape

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from markdown_it import MarkdownIt

_parser: MarkdownIt | None = None


def _markdown() -> MarkdownIt:
    global _parser
    if _parser is None:
        from markdown_it import MarkdownIt

        _parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    return _parser


def render(text: str, marked: set[int] | frozenset[int] = frozenset()) -> str:
    """The artifact as HTML; each top-level block names its first line (`data-line`), and
    one holding a line in `marked` (a comment's) is marked `commented`."""
    parser = _markdown()
    tokens = parser.parse(text)
    for token in tokens:
        if token.level == 0 and token.nesting >= 0 and token.map and token.block:
            line = token.map[0] + 1
            token.attrSet("data-line", str(line))
            token.attrSet("id", f"L{line}")
            if any(token.map[0] < n <= token.map[1] for n in marked):
                token.attrSet("class", "commented")
    return str(parser.renderer.render(tokens, parser.options, {}))


def diff(
    before: str, after: str, name: str, labels: tuple[str, str] = ("approved", "now")
) -> list[tuple[str, str]]:
    """The lines of a unified diff from one revision to another, each with its kind
    (`add`, `del`, `hunk`, `head`, `same`)."""
    lines = difflib.unified_diff(
        before.splitlines(),
        after.splitlines(),
        f"{name} ({labels[0]})",
        f"{name} ({labels[1]})",
        lineterm="",
    )
    return rows(lines)


def rows(lines: Iterable[str], heads: tuple[str, ...] = ("---", "+++")) -> list[tuple[str, str]]:
    """Each line of a unified diff with its kind; `heads` are the header lines' starts (git's
    own diff has `diff --git` and `index` lines too)."""
    out = []
    for line in lines:
        if line.startswith(heads):
            kind = "head"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "same"
        out.append((kind, line))
    return out


def diff_html(rows: list[tuple[str, str]]) -> str:
    """A diff as a preformatted block, every line escaped."""
    body = "".join(f'<span class="d-{kind}">{escape(line)}</span>\n' for kind, line in rows)
    return f'<pre class="diff">{body}</pre>'


def numbered(text: str) -> list[tuple[int, str]]:
    """The artifact's lines with their numbers, for the source view."""
    return list(enumerate(text.splitlines() or [""], 1))
