"""The LLM upstream emulator. What its folders hold, lowest layer first, is in docs/layout.md; each package's
docstring says what its layer is and what it may import. Here: the version the command line and MCP report."""

from __future__ import annotations

from importlib import metadata, util

# What pip installs is `llm-emulator` (PyPI's `emulator` is another project); the package and the command keep
# the name `emulator`.
DISTRIBUTION = "llm-emulator"
# A module setup.py compiles (its `COMPILED`): it is an extension module exactly when the core runs compiled.
PROBE = "emulator.answering.stages"


def version() -> str:
    """What `--version` prints after the name: the installed version, then `(compiled)` or `(pure Python)`, for
    whether the answering core runs as mypyc's extension modules or as its sources."""
    try:
        version = metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        version = "(not installed)"
    return f"{version} ({'compiled' if compiled() else 'pure Python'})"


def compiled() -> bool:
    """Whether the core runs compiled: `PROBE`'s file is an extension module (`.so`, `.pyd` on Windows)."""
    # The file an import loads (an extension module wins over the .py beside it), found without importing it here.
    spec = util.find_spec(PROBE)
    return spec is not None and spec.origin is not None and spec.origin.endswith((".so", ".pyd"))
