"""Qwen Code, the real binary, against the scripted model (Chat Completions).

`qwen -p` with `--yolo`, its OpenAI-compatible auth from OPENAI_BASE_URL, OPENAI_API_KEY
and OPENAI_MODEL; folder trust is off by default, so the project's hooks load. Its
PreToolUse hook cannot change what runs (the record's `rewrites` is off): the reader alone
holds its shell, and no line is rewritten into the sandbox."""

from __future__ import annotations

import pytest

from harnesses.model_server import Text

pytestmark = pytest.mark.harnesses

WRITE = "touch src/x.py"
UNJUDGED = "python3 -c \"open('src/app.py','a').write('x')\""


@pytest.fixture
def qwen(driver, lab):
    """A Qwen Code driver (-p, --yolo) and a project adopted for it."""
    return driver("qwen"), lab("qwen")


def test_a_shell_write_in_research_is_denied_and_the_model_reads_why(qwen) -> None:
    run_as, lab = qwen
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert run.rc == 0, run.explain()
    assert lab.file("src/x.py") is None
    [result] = run.tool_results
    assert "DENIED: No task in project" in result, result
    assert "This shell command writes files." in result


def test_a_read_in_research_runs_as_it_is(qwen) -> None:
    run_as, lab = qwen
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell("cat src/app.py"), Text("ok")])
    [result] = run.tool_results
    assert "print(1)" in result, run.explain()
    assert lab.marks() == []  # nothing rewritten


def test_a_shell_write_in_implement_is_applied(qwen) -> None:
    run_as, lab = qwen
    lab.phase("implement")
    run = run_as.run(lab, [run_as.shell(WRITE), Text("ok")])
    assert lab.file("src/x.py") == "", run.explain()


def test_code_the_reader_cannot_judge_is_refused(qwen) -> None:
    """No sandbox holds Qwen's shell, so the reader refuses what it cannot judge."""
    run_as, lab = qwen
    lab.phase("research")
    run = run_as.run(lab, [run_as.shell(UNJUDGED), Text("ok")])
    [result] = run.tool_results
    assert lab.file("src/app.py") == "print(1)\n", run.explain()
    assert "DENIED:" in result
