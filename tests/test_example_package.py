"""The template rule package under examples/, installed as a user installs it.

The template is built and installed offline (`pip install --no-index
--no-build-isolation`, with this environment's setuptools) into a throwaway venv that
sees this environment's packages (automaton-rules, pytest) the way a venv made with
`--system-site-packages` sees the system's; there its own tests run, and status.py
lists its rules from the entry point alone.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import site
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from helpers import ROOT, STATUS_PY, empty_project

TEMPLATE = ROOT / "examples" / "acme-rules"
GUIDE = (ROOT / "docs" / "writing-rules.md").read_text(encoding="utf-8")
CODES = ("ACME102", "ACME103", "ACME104", "ACME105")


def _can_build_wheels() -> str | None:
    """Why this environment cannot build the template offline, or None if it can."""
    if importlib.util.find_spec("venv") is None or importlib.util.find_spec("ensurepip") is None:
        return "the venv module is unavailable"
    # Read the version from metadata: importing setuptools here would put its vendored
    # packages on this process's sys.path for every later test.
    try:
        version = metadata.version("setuptools")
    except metadata.PackageNotFoundError:
        return "setuptools is not installed (bash scripts/setup.sh test installs it)"
    has_own = tuple(int(part) for part in re.findall(r"\d+", version)[:2]) >= (70, 1)
    if not has_own and importlib.util.find_spec("wheel") is None:
        return "setuptools < 70.1 without wheel cannot build a wheel (install the test extras)"
    return None


def _venv_python(where: Path) -> Path:
    return where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _venv(where: Path) -> Path:
    """A venv that sees this environment's packages after its own; its python."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(where)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    python = _venv_python(where)
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.strip()
    parents = site.getsitepackages()
    if site.ENABLE_USER_SITE:
        parents.append(site.getusersitepackages())
    lines = "".join(f"import site; site.addsitedir({path!r})\n" for path in parents)
    (Path(purelib) / "_this_environment.pth").write_text(lines)
    return python


def _env() -> dict[str, str]:
    """No PYTHONPATH (the package must come from the venv) and no pip configuration (no
    index, no extra wheels folder)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    env.pop("PYTHONPATH", None)
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The template copied out, and the python of a venv it is installed in: built once
    per test run, also when parallel test processes (pytest-xdist) share the module."""
    reason = _can_build_wheels()
    if reason:
        pytest.skip(f"cannot build the template offline: {reason}")
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _install_template(tmp_path_factory.mktemp("example"))
    shared = tmp_path_factory.getbasetemp().parent  # this run's, shared by its workers
    from filelock import FileLock

    with FileLock(str(shared / "example-package.lock")):
        base = shared / "example-package"
        if not (base / "installed").exists():
            _install_template(base)
            (base / "installed").touch()
    return base / "acme-rules", _venv_python(base / "venv")


def _install_template(base: Path) -> tuple[Path, Path]:
    """Copy the template into `base` and install it into a venv there."""
    base.mkdir(parents=True, exist_ok=True)
    package = base / "acme-rules"
    junk = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".pytest_cache")
    shutil.copytree(TEMPLATE, package, ignore=junk)
    python = _venv(base / "venv")
    proc = subprocess.run(
        [
            str(python),
            *("-m", "pip", "install", "--no-index", "--no-build-isolation", str(package)),
        ],
        cwd=base,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return package, python


def test_the_template_is_installed_from_a_built_wheel(installed: tuple[Path, Path]) -> None:
    package, python = installed
    probe = (
        "import json, acme_rules\n"
        "from importlib import metadata\n"
        "from pathlib import Path\n"
        "eps = metadata.entry_points(group='automaton_rules')\n"
        "folder = Path(acme_rules.__file__).parent\n"
        "print(json.dumps([str(folder), (folder / 'py.typed').is_file(),\n"
        "                  [[ep.name, ep.value] for ep in eps]]))\n"
    )
    proc = subprocess.run(
        [str(python), "-c", probe], cwd=package.parent, env=_env(), capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    folder, typed, entry_points = json.loads(proc.stdout)
    assert Path(folder).is_relative_to(package.parent / "venv")  # not the source tree
    assert typed
    assert ["acme", "acme_rules"] in entry_points


def test_the_templates_tests_pass_where_it_is_installed(installed: tuple[Path, Path]) -> None:
    package, python = installed
    proc = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=package,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    tests = (package / "tests" / "test_acme_rules.py").read_text().count("\ndef test_")
    assert re.search(rf"\b{tests} passed\b", proc.stdout), proc.stdout


def test_status_py_lists_the_templates_rules(installed: tuple[Path, Path], tmp_path: Path) -> None:
    """No configuration names the package: installing it is enough."""
    _, python = installed
    project = empty_project(tmp_path)
    proc = subprocess.run(
        [str(python), str(STATUS_PY), "--list-rules", "--project", str(project)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    for code in CODES:
        line = re.search(rf"^{code} .*\n\s+runs at (.*); plugin (\S+)$", proc.stdout, re.M)
        assert line, f"{code} not listed:\n{proc.stdout}"
        assert line.group(2) == "acme"
    assert re.search(
        r"^ACME102 +error +Design Quality: DESIGN.md has a rollback plan", proc.stdout, re.M
    )


def test_the_template_type_checks_under_mypy_strict(installed: tuple[Path, Path]) -> None:
    """As the package's own CI would check it, against the installed automaton-rules."""
    package, python = installed
    base = package.parent
    (package / "mypy.ini").write_text("[mypy]\n")
    sources = [package / "src" / "acme_rules" / "__init__.py", *package.glob("tests/*.py")]
    options = ["--strict", "--config-file", "mypy.ini", "--cache-dir", str(base / "mypy")]
    # automaton-rules' own modules are checked by its own CI, as installed ones are.
    options.append("--follow-imports=silent")
    proc = subprocess.run(
        [str(python), "-m", "mypy", *options, *map(str, sources)],
        cwd=package,
        # The editable install of this checkout is an import hook mypy cannot follow.
        env={**_env(), "MYPYPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ------------------------------------------------------- the guide and the template agree


def _guide_block(first_line: str, language: str = "python") -> str:
    """The guide's code block that starts with `first_line`, without that line."""
    blocks = re.findall(rf"```{language}\n{re.escape(first_line)}\n(.*?)```", GUIDE, re.S)
    assert len(blocks) == 1, f"the guide has {len(blocks)} blocks starting {first_line!r}"
    return blocks[0]


def test_the_guide_shows_the_templates_pyproject() -> None:
    shown = _guide_block("# examples/acme-rules/pyproject.toml", "toml")
    assert shown == (TEMPLATE / "pyproject.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("module", ["rollback", "pace", "commits", "edits"])
def test_the_tutorials_rules_are_the_templates(module: str) -> None:
    """Each rule of the tutorial, decorator to last line, is the template's word for word."""
    block = _guide_block(f"# acme_rules/{module}.py")
    rule_source = block[block.index("@rule(") : block.index("\n\n\n@hookimpl")]
    template = (TEMPLATE / "src" / "acme_rules" / "__init__.py").read_text(encoding="utf-8")
    assert rule_source in template


def test_the_guide_and_readme_point_at_the_template() -> None:
    assert "](../examples/acme-rules/)" in GUIDE
    assert "](examples/acme-rules/)" in (ROOT / "README.md").read_text(encoding="utf-8")
