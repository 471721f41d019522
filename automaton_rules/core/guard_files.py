"""The guard's own files by name, and what a path relative to the project is among them.

The edit-time guard (`guards/edits/protected.py`) holds every edit to these; the audit's fifth
category and the git pre-commit hook read git's paths, which name no file on disk,
against the same names with `kind_of_relpath`. The installer's marked section of a file
it shares with the user (`with_section`, `without_section`) lives here too: the pre-commit
hook tells a change confined to it from the user's own. Pure data, path and text
arithmetic: no I/O.
"""

from __future__ import annotations

from pathlib import Path

from automaton_rules.core.config import CONFIG_FILE, PYPROJECT
from automaton_rules.core.project import FRAMEWORK_HOME

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from automaton_rules.core.config import Config
    from automaton_rules.core.project import Project


class HarnessFiles:
    """The files of one agent harness the guard holds, by the harness's name.

    Their one home, below the guards: the audit and the git hook read them from the core,
    and each harness record (guards/hooks/harnesses.py) takes its `settings_file` and
    `instructions` from here. Paths are relative to the project and to the home folder
    alike. `settings`: where the installer writes its hooks; `also`: the other files that
    decide whether they run (a local override, `disableAllHooks`, trusted folders);
    `folders`: folders whose every file may carry hooks; `instructions`: the agent
    instructions file it reads."""

    __slots__ = ("also", "folders", "instructions", "settings")

    def __init__(
        self,
        settings: str,
        also: tuple[str, ...] = (),
        folders: tuple[str, ...] = (),
        instructions: str = "AGENTS.md",
    ) -> None:
        self.settings, self.also, self.folders = settings, also, folders
        self.instructions = instructions


HARNESSES: dict[str, HarnessFiles] = {
    "claude": HarnessFiles(
        ".claude/settings.json", (".claude/settings.local.json",), instructions="CLAUDE.md"
    ),
    "codex": HarnessFiles(".codex/hooks.json", (".codex/config.toml",)),
    "gemini": HarnessFiles(".gemini/settings.json", instructions="GEMINI.md"),
    "cursor": HarnessFiles(".cursor/hooks.json", (".cursor/cli.json",)),
    "opencode": HarnessFiles(
        ".opencode/plugin/automaton-guard.js",
        ("opencode.json", "opencode.jsonc", ".config/opencode/opencode.json"),
        (".opencode/plugin", ".opencode/plugins", ".config/opencode"),
    ),
    # GitHub Copilot CLI: `disableAllHooks` and inline hooks in the repository's settings
    # and the user's; which folders are trusted (~/.copilot/config.json); its hook files,
    # the repository's and the user's.
    "copilot": HarnessFiles(
        ".github/hooks/automaton-rules.json",
        (
            ".github/copilot/settings.json",
            ".github/copilot/settings.local.json",
            ".copilot/settings.json",
            ".copilot/config.json",
        ),
        (".github/hooks", ".copilot/hooks"),
    ),
    # Kiro CLI: its hook files, its agents (which carry hooks of their own, the 2.x way)
    # and its settings, the default agent among them.
    "kiro": HarnessFiles(
        ".kiro/hooks/automaton-rules.json",
        folders=(".kiro/hooks", ".kiro/agents", ".kiro/settings"),
    ),
    # Factory Droid: its hook file, the settings whose `hooks` it reads without one (and
    # whose `hooksDisabled` switches them off), the project's and the user's, and the
    # folder of its earlier hook file (hooks/hooks.json), still read.
    "droid": HarnessFiles(
        ".factory/hooks.json",
        (".factory/settings.json", ".factory/settings.local.json"),
        (".factory/hooks",),
    ),
    # Qwen Code: its settings (`hooks`, `disableAllHooks`), and which folders are trusted.
    "qwen": HarnessFiles(".qwen/settings.json", (".qwen/trustedFolders.json",)),
}


def _every(*names: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


HARNESS_FOLDERS: tuple[str, ...] = _every(*(f for h in HARNESSES.values() for f in h.folders))
# Every settings file not already inside one of the folders.
HARNESS_FILES: tuple[str, ...] = _every(
    *(
        name
        for h in HARNESSES.values()
        for name in (h.settings, *h.also)
        if not any(name.startswith(f"{folder}/") for folder in HARNESS_FOLDERS)
    )
)
INSTRUCTION_FILES: tuple[str, ...] = _every(*(h.instructions for h in HARNESSES.values()))

# The pre-commit framework's configuration: which hooks git runs, so the guard's.
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
DEFAULT_SIGNERS = f"{FRAMEWORK_HOME}/allowed_signers"

CONFIGURATION = "the workflow's configuration"
TOOL_TABLE = "the workflow's configuration ([tool.automaton] of pyproject.toml)"
HARNESS = "a harness setting that runs the workflow's hooks"
GIT_HOOKS = "where git's hooks live or which run"
RECORDS = "the workflow's own records under .automaton/"
SIGNERS = "the approval signers file"
PLUGIN = "a rule plugin the workflow's configuration loads"
SCRIPT = "the installed status.py"
PROGRAM = "the workflow guard's own program"
# The console scripts that run the guard, wherever they are installed.
PROGRAMS = frozenset({"automaton-hook", "automaton-status", "automaton-git-hook", "status.py"})
# Python's start-up hooks: a `.pth` file or one of these in an environment's folders runs
# before any program, the guard included.
STARTUP_FILES = frozenset({"sitecustomize.py", "usercustomize.py"})

# automaton-install's section of a text file it shares with the user: the agent
# instructions (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`) and `.automaton/.gitignore`. The
# lines from the one holding BEGIN to the one holding END are the installer's.
SECTION_BEGIN = "automaton-rules:begin"
SECTION_END = "automaton-rules:end"


def project_guard_paths() -> tuple[str, ...]:
    """The guard's files a project holds by fixed name, relative to it (folders too)."""
    return (CONFIG_FILE, PRE_COMMIT_CONFIG, *HARNESS_FILES, *HARNESS_FOLDERS)


def signers_file(project: Project, settings: Config) -> Path:
    """The allowed-signers file: the configured one, else `.automaton/allowed_signers`."""
    return settings.signers(project.root)


def tool_table(text: str) -> object:
    """The `[tool.automaton]` table of a pyproject.toml's text; unreadable text is itself
    a value, so a change that breaks the file counts as a change to the table."""
    from automaton_rules.core.config import toml_module

    try:
        data = toml_module().loads(text)
    except Exception:
        return ("unreadable", text)
    tool = data.get("tool")
    return tool.get("automaton") if isinstance(tool, dict) else None


def named_relpaths(
    project: Project, settings: Config | None, hooks: Iterable[Path] = ()
) -> dict[str, str]:
    """The guard's files that the settings and the hooks folders (resolved) name, relative
    to the project, a folder ending in `/`: what `kind_of_relpath` needs beyond fixed names."""
    root = project.root.resolve()
    named = {DEFAULT_SIGNERS: SIGNERS}
    for folder in hooks:
        relpath = _below(folder, root)
        if relpath:
            named[f"{relpath}/"] = GIT_HOOKS
    if settings is None:
        return named
    del named[DEFAULT_SIGNERS]
    signers = _below(signers_file(project, settings), root)
    if signers:
        named[signers] = SIGNERS
    config = _below(settings.path.resolve(), root) if settings.path is not None else None
    if config:
        named[config] = TOOL_TABLE if Path(config).name == PYPROJECT else CONFIGURATION
    return named


def kind_of_relpath(relpath: str, named: Mapping[str, str] | None = None) -> str | None:
    """What guard file a path relative to the project is (as git names it), or None.

    `named` comes from `named_relpaths`. A `pyproject.toml` is TOOL_TABLE: whether a
    change to it touched the table is the caller's question (`tool_table`).
    """
    named = {DEFAULT_SIGNERS: SIGNERS} if named is None else named
    kind = named.get(relpath)
    if kind is not None:
        return kind
    if relpath == CONFIG_FILE:
        return CONFIGURATION
    if relpath == PYPROJECT:
        return TOOL_TABLE
    if relpath in HARNESS_FILES or any(relpath.startswith(f"{f}/") for f in HARNESS_FOLDERS):
        return HARNESS
    if relpath == PRE_COMMIT_CONFIG:
        return GIT_HOOKS
    for folder, what in named.items():
        if folder.endswith("/") and relpath.startswith(folder):
            return what
    if relpath.startswith(".git/"):
        return GIT_HOOKS
    if relpath.startswith(f"{FRAMEWORK_HOME}/"):
        return RECORDS
    return None


def _below(path: Path, root: Path) -> str | None:
    """`path` relative to `root`, when it lies strictly inside it."""
    if root not in path.parents:
        return None
    return path.relative_to(root).as_posix()


def section_span(text: str) -> tuple[int, int] | None:
    """Where the installer's section lies in `text`, as whole lines; None without one
    (a begin line with no end line after it is no section)."""
    begin = text.find(SECTION_BEGIN)
    end = text.find(SECTION_END, begin) if begin >= 0 else -1
    if end < 0:
        return None
    stop = text.find("\n", end)
    return text.rfind("\n", 0, begin) + 1, len(text) if stop < 0 else stop + 1


def with_section(text: str | None, section: str) -> str:
    """`text` (None: no file yet) with `section` in place of the installer's, or after
    the user's text and one newline, so `without_section` gives the text back."""
    if text is None:
        return section
    span = section_span(text)
    if span is not None:
        return text[: span[0]] + section + text[span[1] :]
    return f"{text}\n{section}"


def without_section(text: str) -> str:
    """`text` as it was before `with_section` added the installer's section."""
    span = section_span(text)
    if span is None:
        return text
    before, after = text[: span[0]], text[span[1] :]
    return (before[:-1] if before.endswith("\n") else before) + after


# What the other modules of the package use; the built-in rules import nothing else.
__all__ = [
    "CONFIGURATION",
    "DEFAULT_SIGNERS",
    "GIT_HOOKS",
    "HARNESS",
    "HARNESSES",
    "HARNESS_FILES",
    "HARNESS_FOLDERS",
    "INSTRUCTION_FILES",
    "PLUGIN",
    "PRE_COMMIT_CONFIG",
    "PROGRAM",
    "PROGRAMS",
    "RECORDS",
    "SCRIPT",
    "SECTION_BEGIN",
    "SECTION_END",
    "SIGNERS",
    "STARTUP_FILES",
    "TOOL_TABLE",
    "kind_of_relpath",
    "named_relpaths",
    "project_guard_paths",
    "section_span",
    "signers_file",
    "tool_table",
    "with_section",
    "without_section",
]
