"""`--audit --format html`: one self-contained page, read two ways.

Without a browser (always): the page parsed with `html.parser` — no reference leaves the
file, the tasks awaiting approval listed first on the board, every task in its phase's
column (awaiting approval first there too), each task's timeline and artifacts, hostile
strings escaped, the exit codes of the text report. In a real browser (Debian's
`chromium`, which `bash scripts/setup.sh test` installs; else the test is skipped with
the reason): the page loads with no console error, no exception and no request but the
file itself, shows every task, opens on the tasks awaiting approval, and prints without
its sticky header. The browser is driven over the DevTools pipe, with no extra dependency.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from helpers import status_py, system_tool

from automaton_rules.core import machine
from automaton_rules.core.project import Project
from automaton_rules.engine.findings import Finding
from automaton_rules.engine.result import RunResult
from automaton_rules.report import AuditReport, renderer
from automaton_rules.testing import AutomatonProject

# ------------------------------------------------------------------ reading the page

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
VOID |= {"track", "wbr"}


class Element:
    """A node of the parsed page: its tag, attributes, children and text."""

    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag, self.attrs = tag, attrs
        self.children: list[Element | str] = []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self) -> Iterator[Element]:
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Element]:
        return [
            e
            for e in self.iter()
            if (tag is None or e.tag == tag)
            and all(e.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def has(self, attr: str) -> list[Element]:
        return [e for e in self.iter() if attr in e.attrs]

    def rows(self) -> list[list[str]]:
        """The body rows of the tables below, as cell texts."""
        return [
            [cell.text().strip() for cell in row.find_all("td")]
            for row in self.find_all("tr")
            if row.find_all("td")
        ]


class Page(HTMLParser):
    """The page as a tree, its doctype, and any end tag that closed nothing."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]
        self.doctype: str | None = None
        self.stray: list[str] = []
        self.feed(text)
        self.close()

    def handle_decl(self, decl: str) -> None:
        self.doctype = decl

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs))
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if self.stack[-1].tag == tag:
            self.stack.pop()
        else:
            self.stray.append(tag)

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(text: str) -> Element:
    """The page's tree, checked to be well formed: one doctype, every element closed."""
    page = Page(text)
    assert page.doctype is not None and page.doctype.lower() == "doctype html"
    assert page.stray == [] and page.stack == [page.root], (page.stray, page.stack[-1].tag)
    return page.root


def board_columns(page: Element) -> dict[str, list[str]]:
    """Each column of the board, by phase, with its cards' task names in order."""
    return {
        str(col.attrs["data-phase"]): [str(c.attrs["data-task"]) for c in col.has("data-task")]
        for col in page.has("data-phase")
    }


def awaiting_list(page: Element) -> list[str]:
    """The board's list of the tasks awaiting approval, in order."""
    return [str(e.attrs["data-awaiting"]) for e in page.has("data-awaiting")]


def in_order(page: Element) -> list[str]:
    """Every task the board names (its awaiting list, then its cards), in document order."""
    (section,) = [e for e in page.iter() if e.attrs.get("id") == "board"]
    return [
        str(e.attrs.get("data-awaiting") or e.attrs.get("data-task"))
        for e in section.iter()
        if "data-awaiting" in e.attrs or "data-task" in e.attrs
    ]


def detail(page: Element, name: str) -> Element:
    """A task's card in the Tasks section, reached by its board card's link."""
    (card,) = [e for e in page.has("data-task") if e.attrs["data-task"] == name]
    (link,) = card.find_all("a")
    (found,) = [e for e in page.iter() if e.attrs.get("id") == str(link.attrs["href"])[1:]]
    return found


def external_references(page: Element) -> list[str]:
    """Everything that could make the browser fetch: URLs in attributes and styles,
    scripts, links, frames, objects; internal `#fragment` references are fine."""
    found = []
    for element in page.iter():
        if element.tag in ("script", "link", "iframe", "object", "embed", "base", "img"):
            found.append(f"<{element.tag}>")
        if element.tag == "meta" and "http-equiv" in element.attrs:
            found.append(f"meta http-equiv={element.attrs['http-equiv']}")
        for name, value in element.attrs.items():
            value = value or ""
            if name in ("src", "srcset", "action", "formaction", "poster", "data", "background"):
                found.append(f"{name}={value}")
            if name in ("href", "xlink:href") and not value.startswith("#"):
                found.append(f"{name}={value}")
            if "url(" in value.replace("url(#", ""):
                found.append(f"{name}={value}")
    for style in page.find_all("style"):
        css = style.text()
        if "@import" in css or "url(" in css.replace("url(#", "") or "//" in css:
            found.append(f"<style> {css[:80]}")
    return found


# ------------------------------------------------------------------------ projects


def demo(project: AutomatonProject) -> list[str]:
    """Tasks in many phases: two in design (one awaiting approval), a decomposed parent and
    its sub-task, a skipped phase, a folder made by hand. Their names, as the audit lists them."""
    project.task("a-design", "design")
    project.task("b-design", "design:awaiting_approval")
    project.task("fix-login-bug", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    project.task("add-payment-api", "complete")
    project.task("big-thing", "decomposition:approved")
    project.task("big-thing/part-one", "implement")
    project.folder("made-by-hand", ["SPEC.md"])
    return [t["name"] for t in project.run("--audit", "--json").json()["tasks"]]


HOSTILE = "<script>alert(1)</script>"
HOSTILE_RULES = f"""
from automaton_rules import Finding, hookimpl, rule


@rule("EVIL101", summary="hostile", category="<b>Evil</b> & co", severity="warning")
def evil(task):
    yield Finding({HOSTILE!r} + " \\x07 \\"q\\" 'a'", path='src/"><img src=x>.py',
                  correction="<i>do</i>")


@hookimpl
def register_rules(register):
    register(evil)
"""


# -------------------------------------------------------------- the page as a file


def test_the_page_is_self_contained(automaton_project: AutomatonProject) -> None:
    demo(automaton_project)
    result = automaton_project.run("--audit", "--format", "html")
    page = parse(result.out)
    assert page.find_all("meta", charset="utf-8")
    (head,) = page.find_all("head")
    (title,) = head.find_all("title")
    assert "Audit of" in title.text()
    assert external_references(page) == []
    assert "http:" not in result.out and "https:" not in result.out
    ids = {e.attrs["id"] for e in page.has("id")}
    links = [str(e.attrs["href"]) for e in page.find_all("a")]
    assert links and all(link[1:] in ids for link in links)  # every link lands on the page
    assert page.find_all("svg")  # the workflow diagram, inline


def test_the_diagram_draws_re_approvals_under_the_boxes(
    automaton_project: AutomatonProject,
) -> None:
    """The way back from `X:approved` to its gate runs under the row's boxes, not through
    them as a straight line back along the row would."""
    automaton_project.task("t", "research")
    page = parse(automaton_project.run("--audit", "--format", "html").out)
    back = [e for e in page.find_all("path") if "re-approval" in str(e.attrs.get("class"))]
    assert sorted(e.text() for e in back) == sorted(
        f"{phase}:approved → {phase}:awaiting_approval (re-approval)"
        for phase in machine.APPROVAL_PHASES
    )
    nodes = [g for g in page.find_all("g") if str(g.attrs.get("class")).startswith("node")]
    boxes = {g.find_all("title")[0].text(): g.find_all("rect")[0].attrs for g in nodes}
    for edge in back:
        source = boxes[edge.text().split(" → ")[0]]
        bottom = float(str(source["y"])) + float(str(source["height"]))
        points = [float(n) for n in re.findall(r"-?[\d.]+", str(edge.attrs["d"]))]
        assert min(points[1::2]) >= bottom  # every point's y at or below the boxes


def test_the_board_shows_every_task_in_its_phase(automaton_project: AutomatonProject) -> None:
    names = demo(automaton_project)
    page = parse(automaton_project.run("--audit", "--format", "html").out)
    columns = board_columns(page)
    held = [phase for phase in machine.PHASES if phase in columns]
    assert list(columns)[: len(held)] == held  # in the workflow's order, then the rest
    assert sorted(n for cards in columns.values() for n in cards) == sorted(names)
    # A phase no task is in has no column: it is named on one line under the board.
    (empty,) = [e for e in page.iter() if e.attrs.get("id") == "empty-phases"]
    unheld = [phase for phase in machine.PHASES if phase not in columns]
    assert unheld and empty.text() == f"No task in: {', '.join(unheld)}"
    # Awaiting approval comes first in its column, and says so.
    assert columns["design"] == ["b-design", "a-design"]
    (waiting,) = [e for e in page.has("data-task") if "awaiting" in str(e.attrs["class"])]
    assert waiting.attrs["data-task"] == "b-design"
    assert "awaiting approval" in waiting.text()
    assert columns["research"] == ["fix-login-bug"]
    assert columns["decomposition"] == ["big-thing"]
    assert columns["implement"] == ["big-thing/part-one"]
    assert columns["no .state"] == ["made-by-hand"]
    assert "test_design" not in columns


def test_the_board_lists_every_task_awaiting_approval_first(
    automaton_project: AutomatonProject,
) -> None:
    """Before the columns, a list names each task waiting at a gate, in the workflow's
    order, each linking to the task: what a supervisor acts on, whatever its phase."""
    demo(automaton_project)
    automaton_project.task("z-research", "research:awaiting_approval", files=["SPEC.md"])
    page = parse(automaton_project.run("--audit", "--format", "html").out)
    assert awaiting_list(page) == ["z-research", "b-design"]
    assert in_order(page)[:2] == ["z-research", "b-design"]  # the first tasks on the board
    (strip,) = [e for e in page.iter() if e.attrs.get("id") == "awaiting"]
    assert strip.find_all("h3")[0].text() == "Awaiting approval (2)"
    for item in page.has("data-awaiting"):
        (link,) = item.find_all("a")
        assert link.text() == item.attrs["data-awaiting"]
        card = detail(page, str(item.attrs["data-awaiting"]))
        assert link.attrs["href"] == f"#{card.attrs['id']}"
        assert item.attrs["data-awaiting"] in card.find_all("h3")[0].text()


def test_the_board_says_when_no_task_awaits_approval(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("plain", "design")
    page = parse(automaton_project.run("--audit", "--format", "html").out)
    assert awaiting_list(page) == []
    (strip,) = [e for e in page.iter() if e.attrs.get("id") == "awaiting"]
    assert "no task awaits approval" in strip.text()


def test_each_task_has_its_timeline_and_artifacts(automaton_project: AutomatonProject) -> None:
    clock = automaton_project.clock
    clock.set(datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc))
    automaton_project.task("login", "research")
    clock.advance(hours=2)
    automaton_project.advance("login", ["research:awaiting_approval", "research:approved"])
    clock.advance(minutes=30)
    automaton_project.advance("login", ["design"])
    (automaton_project.task_dir("login") / "notes.txt").write_text("mine\n")
    (automaton_project.task_dir("login") / "VERDICT.md").write_text("early\n")
    page = parse(automaton_project.run("--audit", "--format", "html").out)
    card = detail(page, "login")
    timeline, artifacts = card.find_all("table")[-2:]
    assert [row[:6] for row in timeline.rows()] == [
        ["2026-03-02 09:00:00Z", "—", "→ new", "user", "", ""],
        ["2026-03-02 09:00:00Z", "new", "→ research", "user", "", ""],
        ["2026-03-02 11:00:00Z", "research", "→ research:awaiting_approval", "user", "", ""],
        [
            "2026-03-02 11:00:00Z",
            "research:awaiting_approval",
            "→ research:approved",
            *("user", "user", "cli"),  # actor, approver, via
        ],
        ["2026-03-02 11:30:00Z", "research:approved", "→ design", "user", "", ""],
    ]
    roles = dict((row[0], row[1]) for row in artifacts.rows())
    assert roles["SPEC.md"] == "artifact of research: expected"
    assert roles["VERDICT.md"] == "artifact of referee: phase not reached"
    assert roles["notes.txt"] == "other file"
    assert not [name for name in roles if name.startswith(".state")]  # records: no rows
    assert "DESIGN.md" not in roles  # the phase's own deliverable is not written yet


def test_missing_artifacts_and_findings_show_on_the_task(
    automaton_project: AutomatonProject,
) -> None:
    automaton_project.task("shipped", "complete")
    (automaton_project.task_dir("shipped") / "BUG_REPORT.md").unlink()
    result = automaton_project.run("--audit", "--format", "html")
    card = detail(parse(result.out), "shipped")
    found = card.find_all("table")[0].rows()
    assert [(row[0], row[1]) for row in found] == [("error", "AR201")]
    roles = dict((row[0], row[1]) for row in card.find_all("table")[-1].rows())
    assert roles["BUG_REPORT.md"] == "artifact of bug_find: expected, missing"


def test_a_completed_tasks_artifacts_are_worded_alike(
    automaton_project: AutomatonProject,
) -> None:
    """Every artifact says whose it is and what it is to the state: optional phases'
    artifacts are not set apart by a different wording."""
    automaton_project.task("shipped", "complete", files=["DESIGN.md", "TEST_PLAN.md"])
    page = parse(automaton_project.run("--audit", "--format", "html").out)
    roles = dict((r[0], r[1]) for r in detail(page, "shipped").find_all("table")[-1].rows())
    assert {name: role for name, role in roles.items() if name.endswith(".md")} == {
        "SPEC.md": "artifact of research: expected",
        "DESIGN.md": "artifact of design: optional",
        "TEST_PLAN.md": "artifact of test_design: optional",
        "IMPLEMENTATION.md": "artifact of implement: expected",
        "BUG_REPORT.md": "artifact of bug_find: expected",
        "ADVERSARIAL_BUG_REPORT.md": "artifact of adversarial_bug_find: expected",
        "DOC_REVIEW.md": "artifact of doc_review: expected",
        "VERDICT.md": "artifact of referee: expected",
    }


def test_findings_are_grouped_by_category_with_severity(
    automaton_project: AutomatonProject,
) -> None:
    demo(automaton_project)
    page = parse(automaton_project.run("--audit", "--format", "html").out)
    (section,) = [e for e in page.iter() if e.attrs.get("id") == "findings"]
    headings = [h.text() for h in section.find_all("h3")]
    assert headings[:5] == [
        "1. Out-of-order Artifacts",
        "2. State-Artifact Inconsistency",
        "3. Unauthorized Modifications",
        "4. Manually Created Task Folders",
        "5. Changes to the Guard",
    ]
    rows = section.rows()
    assert ["error", "AR101", "fix-login-bug"] in [row[:3] for row in rows]
    assert ["warning", "AR202", "fix-login-bug"] in [row[:3] for row in rows]
    assert ["error", "AR401", "made-by-hand"] in [row[:3] for row in rows]
    badges = {str(b.attrs["class"]) for b in section.find_all("span") if b.text() == "error"}
    assert badges == {"badge error"}


def test_findings_a_baseline_knows_are_shown_not_counted(
    automaton_project: AutomatonProject, tmp_path: Path
) -> None:
    automaton_project.task("old-skip", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    known = tmp_path / "baseline.json"
    assert automaton_project.run("--audit", "--write-baseline", str(known)).exit_code == 0
    automaton_project.task("new-skip", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    result = automaton_project.run("--audit", "--format", "html", "--baseline", str(known))
    assert result.exit_code == automaton_project.run("--audit", "--baseline", str(known)).exit_code
    page = parse(result.out)
    (summary,) = [e for e in page.iter() if e.attrs.get("id") == "summary"]
    counts = [li.text() for li in summary.find_all("li")]
    assert f"2known from the baseline {known}" in counts  # AR101 and AR202 of old-skip
    assert "1violation (at or above error)" in counts
    cards = {e.attrs["data-task"]: e.text() for e in page.has("data-task")}
    assert "error" not in cards["old-skip"] and "1 error" in cards["new-skip"]
    (row,) = [r for r in detail(page, "old-skip").find_all("tr") if "AR101" in r.text()]
    assert row.find_all("span")[0].attrs["class"] == "badge known"


def test_hostile_text_is_escaped(automaton_project: AutomatonProject) -> None:
    automaton_project.task("odd", "research")
    (automaton_project.task_dir("odd") / "<img src=x onerror=alert(2)>.md").write_text("x\n")
    automaton_project.write_plugin(HOSTILE_RULES, name="evil_rules")
    result = automaton_project.run("--audit", "--format", "html")
    assert result.exit_code == 0  # a warning: under the default fail-on
    page = parse(result.out)
    assert external_references(page) == []
    assert "Evil" not in [b.text() for b in page.find_all("b")] and not page.find_all("i")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in result.out
    assert "\x07" not in result.out and "\\x07" in result.out
    (row,) = [r for r in page.rows() if r[:3] == ["warning", "EVIL101", "odd"]]
    assert row[3] == 'src/"><img src=x>.py'
    assert row[4] == f"{HOSTILE} \\x07 \"q\" 'a' — suggested correction: <i>do</i>"
    assert "6. <b>Evil</b> & co" in [h.text() for h in page.find_all("h3")]
    roles = dict((r[0], r[1]) for r in detail(page, "odd").find_all("table")[-1].rows())
    assert roles["<img src=x onerror=alert(2)>.md"] == "other file"


def test_the_python_api_escapes_what_it_is_given(tmp_path: Path) -> None:
    root = tmp_path / "<proj>"
    (root / ".automaton" / "tasks").mkdir(parents=True)
    finding = Finding(HOSTILE, path="a&b").stamped("X1", "<Cat>", "error", "t")
    report = AuditReport(
        project=Project(root),
        tasks=[],
        result=RunResult(findings=[finding], categories=["<Cat>"]),
        rules=[],
        task_errors=[f"task t: {HOSTILE}"],
    )
    text = renderer("html")(report)
    page = parse(text)
    assert not page.find_all("script")
    (errors,) = [e for e in page.iter() if e.attrs.get("id") == "errors"]
    assert f"task t: {HOSTILE}" in errors.text()
    assert "&lt;proj&gt;" in text and "<title>Audit of " in text
    assert report.exit_code == 2 and "errors" in page.find_all("h1")[0].text()


@pytest.mark.parametrize(
    ("setup", "exit_code"),
    [("clean", 0), ("violation", 1), ("broken plugin", 2)],
)
def test_exit_codes_are_the_text_reports(
    automaton_project: AutomatonProject, setup: str, exit_code: int
) -> None:
    automaton_project.task("ok", "research", files=["SPEC.md"])
    if setup == "violation":
        automaton_project.task("skip", "research", files=["SPEC.md", "IMPLEMENTATION.md"])
    if setup == "broken plugin":
        automaton_project.write_plugin("raise RuntimeError('<broken>')\n", name="broken_rules")
    html = automaton_project.run("--audit", "--format", "html")
    text = automaton_project.run("--audit")
    assert html.exit_code == text.exit_code == exit_code
    page = parse(html.out)
    (errors,) = [e for e in page.iter() if e.attrs.get("id") == "errors"]
    if setup == "broken plugin":
        assert "broken_rules.py: failed to import" in errors.text()
        assert "RuntimeError: <broken>" in errors.text()
    else:
        assert errors.text() == "Errorsnone"


def test_an_empty_project(automaton_project: AutomatonProject) -> None:
    automaton_project.tasks_dir.mkdir(parents=True)
    result = automaton_project.run("--audit", "--format", "html")
    assert result.exit_code == 0
    page = parse(result.out)
    assert page.has("data-task") == []
    assert all(cards == [] for cards in board_columns(page).values())


# ---------------------------------------------------------- in a headless browser

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def chromium() -> str:
    """Debian's chromium (or another Chrome on PATH); else the browser tests are skipped,
    saying why."""
    return system_tool("chromium", *BROWSERS)


class Browser:
    """Headless Chromium driven over the DevTools pipe: commands are NUL-terminated JSON
    written to its fd 3, answers and events read from its fd 4."""

    def __init__(self, executable: str, profile: Path) -> None:
        to_browser, commands = os.pipe()
        answers, from_browser = os.pipe()

        def wire() -> None:  # in the child: the pipe's ends on fds 3 and 4
            import fcntl

            high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser, from_browser)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        args = [
            executable,
            *("--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe"),
            f"--user-data-dir={profile}",
            *("--no-first-run", "--no-default-browser-check", "--disable-extensions"),
            *("--disable-background-networking", "--disable-sync", "--disable-component-update"),
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,  # the child runs no thread before exec
            close_fds=False,
        )
        os.close(to_browser)
        os.close(from_browser)
        self.commands, self.answers = commands, answers
        self.buffer = b""
        self.events: list[dict[str, Any]] = []
        self.last = 0

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.answers], [], [], left)[0]:
                raise TimeoutError("the browser did not answer in time")
            chunk = os.read(self.answers, 1 << 16)
            if not chunk:
                raise ConnectionError("the browser closed the DevTools pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        answer: dict[str, Any] = json.loads(message)
        return answer

    def send(
        self, method: str, session: str | None = None, timeout: float = 30, **params: Any
    ) -> dict[str, Any]:
        """Run a command and return its result; events met meanwhile are kept."""
        self.last += 1
        message = {"id": self.last, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read(deadline)
            if answer.get("id") != self.last:
                self.events.append(answer)
            elif "error" in answer:
                raise RuntimeError(f"{method}: {answer['error']}")
            else:
                return answer.get("result", {})

    def wait_for(self, method: str, timeout: float = 30) -> dict[str, Any]:
        """The first event named `method`, received already or within `timeout`."""
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for event in self.events[seen:]:
                if event.get("method") == method:
                    return event
            seen = len(self.events)
            self.events.append(self._read(deadline))

    def named(self, method: str) -> list[dict[str, Any]]:
        return [e.get("params", {}) for e in self.events if e.get("method") == method]

    def close(self) -> None:
        """Ask the browser to quit; kill it if it does not, and close the pipe."""
        try:
            if self.proc.poll() is None:
                os.write(self.commands, b'{"id":0,"method":"Browser.close"}\0')
                self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=10)
            os.close(self.commands)
            os.close(self.answers)


@pytest.fixture
def browser(chromium: str, tmp_path: Path) -> Iterator[Browser]:
    opened = Browser(chromium, tmp_path / "profile")
    try:
        yield opened
    finally:
        opened.close()


def open_page(browser: Browser, url: str) -> str:
    """A new tab listening to the console, the log and the network, at `url`; its session."""
    target = browser.send("Target.createTarget", url="about:blank")["targetId"]
    session = browser.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    for domain in ("Runtime", "Log", "Network", "Page"):
        browser.send(f"{domain}.enable", session)
    navigated = browser.send("Page.navigate", session, url=url)
    assert "errorText" not in navigated, navigated
    browser.wait_for("Page.loadEventFired")
    return session


def evaluate(browser: Browser, session: str, expression: str) -> Any:
    answer = browser.send("Runtime.evaluate", session, expression=expression, returnByValue=True)
    assert "exceptionDetails" not in answer, answer
    return answer["result"].get("value")


def problems(browser: Browser) -> list[str]:
    """Console errors, uncaught exceptions and error log entries the page caused."""
    found = [
        f"console.{e['type']}: {e.get('args')}"
        for e in browser.named("Runtime.consoleAPICalled")
        if e.get("type") in ("error", "assert")
    ]
    found += [f"exception: {e}" for e in browser.named("Runtime.exceptionThrown")]
    found += [
        f"log: {e['entry'].get('text')} ({e['entry'].get('url')})"
        for e in browser.named("Log.entryAdded")
        if e["entry"].get("level") == "error"
    ]
    return found


# The first element naming a task on the board: its name if it is in the awaiting list,
# whether it shows, stands above the phase columns, and links to a part of the page.
FIRST_ON_THE_BOARD = """(() => {
  const e = document.querySelector('#board [data-awaiting], #board [data-task]');
  const box = e.getBoundingClientRect();
  const column = document.querySelector('#board .column').getBoundingClientRect();
  return {name: e.dataset.awaiting || null, height: box.height, above: box.bottom <= column.top,
          lands: document.querySelector(e.querySelector('a').getAttribute('href')) !== null};
})()"""

STUCK = (
    "[...document.querySelectorAll('*')]"
    ".filter(e => ['sticky', 'fixed'].includes(getComputedStyle(e).position)).length"
)


def test_the_board_in_headless_chromium(
    automaton_project: AutomatonProject, browser: Browser, tmp_path: Path
) -> None:
    names = demo(automaton_project)
    automaton_project.write_plugin(HOSTILE_RULES, name="evil_rules")
    run = status_py("--audit", "--format", "html", cwd=automaton_project.root)
    assert run.returncode == 1, run.stderr  # fix-login-bug skipped a phase
    board_file = tmp_path / "board.html"
    board_file.write_text(run.stdout, encoding="utf-8")
    session = open_page(browser, board_file.as_uri())
    shown = evaluate(
        browser,
        session,
        "[...document.querySelectorAll('[data-task]')]"
        ".filter(e => e.getBoundingClientRect().height > 0).map(e => e.dataset.task)",
    )
    assert sorted(shown) == sorted(names)
    # The board opens on the tasks awaiting approval, each a visible link to its task.
    first = evaluate(browser, session, FIRST_ON_THE_BOARD)
    assert first["name"] == "b-design"
    assert first["height"] > 0 and first["above"] and first["lands"]
    assert problems(browser) == []
    requested = [e["request"]["url"] for e in browser.named("Network.requestWillBeSent")]
    assert requested == [board_file.as_uri()]
    assert evaluate(browser, session, "document.querySelectorAll('svg g.node').length") == len(
        machine.STATES
    )
    # On screen the links stay at the top; printed, nothing sticks to every page.
    assert evaluate(browser, session, STUCK) == 1
    browser.send("Emulation.setEmulatedMedia", session, media="print")
    assert evaluate(browser, session, STUCK) == 0
    pdf = browser.send("Page.printToPDF", session, timeout=60)["data"]
    assert len(pdf) > 1000


def test_each_task_awaiting_approval_says_how_long_and_how_to_approve(
    automaton_project: AutomatonProject,
) -> None:
    clock = automaton_project.clock
    clock.set(datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc))
    automaton_project.task("login", "research:awaiting_approval", files=["SPEC.md"])
    clock.advance(hours=2, minutes=5)
    page = parse(automaton_project.run("--audit", "--format", "html").out)
    (item,) = page.has("data-awaiting")
    assert "waiting 2h 05m" in item.text()
    assert "--task login --approve --project" in item.text()
    assert "type approve login in the agent's chat" in item.text()
    (automaton_project.root / "automaton.toml").write_text('approval = "signed"\n')
    page = parse(automaton_project.run("--audit", "--format", "html").out)
    (item,) = page.has("data-awaiting")
    assert "the approver signs in a terminal" in item.text()
    assert "--approver ID" in item.text()


def test_names_and_states_wrap_only_between_words(automaton_project: AutomatonProject) -> None:
    automaton_project.task(
        "a-rather-long-task-name", "research:awaiting_approval", files=["SPEC.md"]
    )
    text = automaton_project.run("--audit", "--format", "html").out
    assert "research:<wbr>awaiting_<wbr>approval" in text
    for before in re.findall(r"(.)<wbr>", text):
        assert before in ":_-/", before
    assert "overflow-wrap: anywhere; }" not in text.split(".card a")[1].split("}")[0] + "}"


def test_no_edge_of_the_drawing_crosses_a_box() -> None:
    from automaton_rules.report.graph import workflow_graph
    from automaton_rules.report.html import NODE_H, NODE_W, _place, route

    def crosses(a: tuple[float, float], b: tuple[float, float], box: tuple[float, float]) -> bool:
        (x0, x1), (y0, y1) = sorted((a[0], b[0])), sorted((a[1], b[1]))
        x, y = box
        return x0 < x + NODE_W - 0.5 and x1 > x + 0.5 and y0 < y + NODE_H - 0.5 and y1 > y + 0.5

    graph = workflow_graph()
    boxes = [_place(state) for state in graph.states]
    drawn = 0
    for lane, edge in enumerate(graph.edges):
        if edge.source is None or edge.target is None:
            continue
        points = route(edge.source, edge.target, lane)
        for a, b in zip(points, points[1:]):
            assert a[0] == b[0] or a[1] == b[1]  # straight segments only
            assert not [box for box in boxes if crosses(a, b, box)], (edge, a, b)
        drawn += 1
    assert drawn == len([e for e in graph.edges if e.source and e.target])
    # The check can fail: a straight line from research to implement runs through boxes.
    (x1, y1), (x2, y2) = _place("research"), _place("implement")
    middle = ((x1 + NODE_W / 2, y1 + NODE_H / 2), (x2 + NODE_W / 2, y2 + NODE_H / 2))
    assert any(crosses(*middle, box) for box in boxes if box not in (_place("research"),))
