"""The scenarios and cassettes the wheel carries, wherever the emulator runs (in a checkout, links to the top-level
`scenarios/` and `recordings/`): what `emulator serve` and `emulator mcp` fall back on."""

from __future__ import annotations

from pathlib import Path

BUNDLED = Path(__file__).parent


def default_scenarios() -> Path:
    """With no `--scenarios`: ./scenarios if it exists, else the bundled ones."""
    local = Path("scenarios")
    return local if local.is_dir() else BUNDLED / "scenarios"
