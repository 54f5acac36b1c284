"""The Lua scripts the shared state runs in Redis, each atomically: `lua/NAME.lua`, read once. Each file's
comment says what its KEYS and ARGV are and what it returns. A script may call others as functions of their own
KEYS and ARGV (`PARTS`): they are put before it, so that one round trip does what each does alone."""

from __future__ import annotations

from importlib import resources

PARTS = {"before": ("direct", "buckets", "cache")}


def _read(name: str) -> str:
    return (resources.files(__package__) / "lua" / f"{name}.lua").read_text("utf-8")


def _composed(name: str) -> str:
    """A script with the scripts it calls put before it, each as `local function NAME(KEYS, ARGV)`."""
    parts = [f"local function {part}(KEYS, ARGV)\n{_read(part)}end\n" for part in PARTS.get(name, ())]
    return "".join(parts) + _read(name)


NAMES = sorted(
    f.name.removesuffix(".lua") for f in (resources.files(__package__) / "lua").iterdir() if f.name.endswith(".lua")
)
SCRIPTS = {name: _composed(name) for name in NAMES}
