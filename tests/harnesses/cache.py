"""Where the harness lab's binaries are: the pinned versions (versions.toml) and the npm
cache folder `scripts/setup.sh harnesses` installs them into. Run as a script it prints
one line per harness (`NAME PACKAGE VERSION BIN`) for setup.sh to install from.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the project supports 3.9 with tomli
    import tomli as tomllib

VERSIONS = Path(__file__).with_name("versions.toml")
MODES = ("pinned", "latest")


def root() -> Path:
    """The cache of installed harnesses, outside the repository and kept between runs."""
    if os.environ.get("AUTOMATON_HARNESS_CACHE"):
        return Path(os.environ["AUTOMATON_HARNESS_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "automaton-rules" / "harnesses"


@dataclass(frozen=True)
class Pin:
    """One harness as versions.toml pins it."""

    name: str
    package: str
    version: str
    bin: str

    def folder(self, mode: str) -> Path:
        """The install folder: NAME-VERSION pinned, NAME-latest (a link setup.sh points at
        the newest release it installed) for `latest`."""
        return root() / f"{self.name}-{self.version if mode == 'pinned' else 'latest'}"

    def binary(self, mode: str) -> Path:
        """The harness's command in its install folder (it may be missing)."""
        return self.folder(mode) / "node_modules" / ".bin" / self.bin

    def installed_version(self, mode: str) -> str | None:
        """The version npm installed there, read from the package's own package.json."""
        manifest = self.folder(mode) / "node_modules" / self.package / "package.json"
        try:
            return str(json.loads(manifest.read_text(encoding="utf-8"))["version"])
        except (OSError, ValueError, KeyError):
            return None


def pins() -> dict[str, Pin]:
    """Every harness versions.toml names, by name."""
    table = tomllib.loads(VERSIONS.read_text(encoding="utf-8"))
    return {name: Pin(name, **fields) for name, fields in table.items()}


if __name__ == "__main__":
    for pin in pins().values():
        print(pin.name, pin.package, pin.version, pin.bin)
