"""The harness lab's fixtures: the chosen releases (--harnesses pinned|latest), a driver
per harness that skips, with the reason, where node or the binary is missing, and a fresh
adopted project per test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from harnesses import cache, harness_lab


@pytest.fixture(scope="session")
def mode(request: pytest.FixtureRequest) -> str:
    """Which releases run: `pinned` (versions.toml) or `latest`."""
    return str(request.config.getoption("harnesses") or "pinned")


def _driver(name: str, mode: str, kind: type[harness_lab.Driver]) -> harness_lab.Driver:
    pin = cache.pins()[name]
    why = harness_lab.missing(pin, mode)
    if why:
        pytest.skip(why)
    return kind(pin, pin.binary(mode))


@pytest.fixture(scope="session")
def driver(mode: str) -> Callable[..., harness_lab.Driver]:
    """The driver of a harness by name (`kind` picks a variant of its driver)."""

    def make(name: str, kind: type[harness_lab.Driver] | None = None) -> harness_lab.Driver:
        return _driver(name, mode, kind or harness_lab.DRIVERS[name])

    return make


@pytest.fixture
def lab(tmp_path: Path) -> Callable[[str], harness_lab.Lab]:
    """A fresh home and project adopted for the harness named."""
    return lambda harness: harness_lab.Lab(tmp_path, harness)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Which release of each harness the lab runs, as npm installed it."""
    mode = str(config.getoption("harnesses") or "pinned")
    found = []
    for pin in cache.pins().values():
        version = pin.installed_version(mode)
        found.append(f"{pin.name} {version}" if version else f"{pin.name} (not installed)")
    return [f"harness lab ({mode} releases, {cache.root()}): {', '.join(found)}"]
