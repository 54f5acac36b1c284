"""Prompt caches: which prefix of a prompt an upstream serves from its cache, deterministically, and what it keeps.

`CacheModel` is a profile's automatic prefix cache (Inferel's, keyed by `prompt_cache_key`; OpenAI's, on every
prompt), `PromptCache` its state in a process: prompts cut into blocks of tokens, a block served when the same key
sent the same prefix up to it recently. `BreakpointCache` is Anthropic's: the prefixes up to each `cache_control`
breakpoint, written and read back; `written` counts the tokens a request writes. The state in Redis
(`state/redis/counters.py`) does the same arithmetic in Lua, cutting prompts with `prefix_blocks`. Pure: the caller
passes the clock.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

from emulator.core import tokens
from emulator.core.conversation import Prompt
from emulator.core.wire import TEST_ID


@dataclass(frozen=True, slots=True)
class CacheModel:
    """A deterministic prefix cache: prompts are cut into blocks of `block` tokens; a block is cached when
    the same cache key sent the same prefix up to it within `ttl` seconds; each key keeps `capacity` blocks.
    Less than `minimum` tokens served is none (OpenAI: 1,024, then blocks of 128). A request that names no key
    shares `keyless` (OpenAI caches every prompt, a key only routes it), or is not cached when that is ""."""

    block: int = 64
    capacity: int = 4096
    ttl: float = 300.0
    keys: int = 10_000  # cache keys kept; past that, the least recently used one is forgotten
    minimum: int = 0
    keyless: str = ""

    def served(self, hits: int) -> int:
        """The tokens `hits` cached blocks serve."""
        tokens = hits * self.block
        return tokens if tokens >= self.minimum else 0

    def reaches(self, prompt: Prompt) -> bool:
        """Whether the prompt is long enough for its blocks to serve `minimum` tokens. One that is not is neither
        served nor worth remembering: a later prompt it shares a prefix with records those blocks itself, and
        fewer than `minimum` tokens served is none (no hashing, no Redis call, for a plain short request)."""
        if not self.minimum or any(m.tool_calls for m in prompt.messages):
            return True
        length = sum(len(m.role) + len(m.reasoning) + len(m.text) + 6 for m in prompt.messages)  # `prefix_blocks`' text
        return length >= self.minimum * tokens.CHARS_PER_TOKEN

    def key(self, prompt: Prompt) -> str:
        """The cache a prompt is looked up in: its own key, else the keyless one ("": none), one a test (the
        `x-emulator-test-id` a pytest fixture sends), so that tests sharing a server share no cache."""
        if prompt.cache_key or not self.keyless:
            return prompt.cache_key or ""
        scope = prompt.headers.get(TEST_ID)
        return f"{self.keyless}:{scope}" if scope else self.keyless


class PromptCache:
    """The state of a `CacheModel`: per cache key, the prefix blocks seen and when, oldest first."""

    def __init__(self, model: CacheModel) -> None:
        self.model = model
        self._keys: dict[str, OrderedDict[str, float]] = {}

    def cached_tokens(self, prompt: Prompt, now: float) -> int:
        """Tokens of `prompt` served from cache, then remember its blocks. No cache key, no caching."""
        key = self.model.key(prompt)
        if not key or not self.model.reaches(prompt):
            return 0
        seen = self._keys.pop(key, None) or OrderedDict()
        self._keys[key] = seen  # the most recently used key last
        if len(self._keys) > self.model.keys:
            del self._keys[next(iter(self._keys))]
        for block, at in list(seen.items()):  # expire, oldest first
            if now - at <= self.model.ttl:
                break
            del seen[block]
        hits, missed = 0, False
        for block in prefix_blocks(prompt, self.model.block):
            if not missed and block in seen:
                hits += 1
            else:
                missed = True
            seen[block] = now
            seen.move_to_end(block)
        while len(seen) > self.model.capacity:
            seen.popitem(last=False)
        return self.model.served(hits)

    def reset(self) -> None:
        self._keys.clear()


BREAKPOINT_LEAST = 1024  # Anthropic: the shortest prefix a breakpoint caches (its Sonnet and Opus models')
HOUR = 3600.0


class BreakpointCache:
    """Anthropic's prompt cache: each `cache_control` breakpoint's prefix (`Prompt.prefixes`) written for its
    lifetime (5 minutes, or an hour), its lifetime starting over when it is read; a prompt reads the longest of its
    prefixes held. Only a request with a breakpoint reads or writes. At most `capacity` prefixes are kept."""

    def __init__(self, capacity: int = 100_000) -> None:
        self.capacity = capacity
        self._held: OrderedDict[str, tuple[float, int, float]] = OrderedDict()  # digest → (until, tokens, lifetime)

    def read(self, prompt: Prompt, now: float) -> int:
        """The tokens read from cache, then the prompt's breakpoints written."""
        if not any(life for _, _, life in prompt.prefixes):
            return 0
        read, hit = 0, ""
        for digest, size, _ in prompt.prefixes:
            held = self._held.get(digest)
            if held is not None and held[0] >= now and size > read:
                read, hit = size, digest
        if hit:
            _, size, life = self._held.pop(hit)
            self._held[hit] = (now + life, size, life)
        for digest, size, life in prompt.prefixes:
            if life and size >= BREAKPOINT_LEAST:
                self._held.pop(digest, None)
                self._held[digest] = (now + life, size, life)
        while len(self._held) > self.capacity:
            self._held.popitem(last=False)
        return read

    def reset(self) -> None:
        self._held.clear()


def written(prompt: Prompt, read: int, limit: int) -> tuple[int, int]:
    """The tokens a request writes to Anthropic's cache, and how many of them are kept an hour: each breakpoint's
    prefix past what was read and past the breakpoint before it, where it is long enough to cache; at most `limit`
    (the prompt's input tokens) in all, with what was read."""
    done, total, hour = read, 0, 0
    for _, size, life in prompt.prefixes:
        size = min(size, limit)
        if not life or size < BREAKPOINT_LEAST or size <= done:
            continue
        total += size - done
        if life >= HOUR:
            hour += size - done
        done = size
    return total, hour


def prefix_blocks(prompt: Prompt, block: int) -> list[str]:
    """One digest per whole block of the prompt, each over everything before it: a prefix, not a piece."""
    text = "".join(f"\x1e{m.role}\x1f{m.reasoning}\x1f{m.text}\x1f{m.tool_calls}" for m in prompt.messages)
    size = block * tokens.CHARS_PER_TOKEN
    h = hashlib.blake2b(digest_size=16)
    digests = []
    for at in range(0, len(text) - size + 1, size):
        h.update(text[at : at + size].encode())
        digests.append(h.copy().hexdigest())
    return digests
