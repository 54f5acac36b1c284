"""The Lua scripts the shared state runs in Redis, each atomically: `lua/NAME.lua`, read once. Each file's
comment says what its KEYS and ARGV are and what it returns."""

from __future__ import annotations

from importlib import resources

NAMES = ("publish", "buckets", "cache", "journal", "forget_test", "direct", "post", "unpost", "issue")
SCRIPTS = {name: (resources.files(__package__) / "lua" / f"{name}.lua").read_text("utf-8") for name in NAMES}
