"""The package's version, in one place the console scripts, the reports and pyproject agree on."""

__version__ = "0.1.0"
