"""Provider profiles: what differs between the upstreams the seeds document, as data and a few functions.

A profile is chosen for the whole server (`emulator serve --profile inferel`) or per request by path
prefix (`/inferel/v1/chat/completions`); plain `/v1` uses the server's profile. So far the profiles
differ in the endpoints they serve, their documented models, Inferel's `model:pool` suffix and its
prompt cache; the other differences of issue 7 (Infercom's shapes, headers and validation) are to come.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass

from emulator import tokens
from emulator.conversation import Prompt
from emulator.errors import NotFound

CHAT, RESPONSES, MESSAGES = "openai_chat", "openai_responses", "anthropic_messages"
RETRY_MS = 250  # what each upstream retry adds to the answer's latency


@dataclass(frozen=True, slots=True)
class CacheModel:
    """A deterministic prefix cache: prompts are cut into blocks of `block` tokens; a block is cached when
    the same cache key sent the same prefix up to it within `ttl` seconds; each key keeps `capacity` blocks."""

    block: int = 64
    capacity: int = 4096
    ttl: float = 300.0


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    dialects: tuple[str, ...]
    models: tuple[str, ...]
    pools: bool = False  # Inferel: a `model:pool` suffix picks a resource group
    cache: CacheModel | None = None  # Inferel: `prompt_cache_key` (else `user`) groups requests for caching
    upstream_retries: int = 0  # Inferel: transient upstream failures retried on alternative capacity
    doc: str = ""  # which seed documents it


PROFILES = {
    "inferam": Profile(
        "inferam",
        (CHAT, RESPONSES, MESSAGES),
        ("DeepSeek-V4.1-Flash-1017",),
        doc="seeds 000 (Chat Completions), 001 (Responses), 004 (Messages)",
    ),
    "inferel": Profile(
        "inferel",
        (CHAT,),
        ("claude-sonnet-4.6",),
        pools=True,
        cache=CacheModel(),
        upstream_retries=2,
        doc="seed 002 (Chat Completions with prompt caching and pools)",
    ),
    "openai": Profile("openai", (CHAT, RESPONSES), ("gpt-4.1", "gpt-5"), doc="the public OpenAI API"),
    "anthropic": Profile("anthropic", (MESSAGES,), ("claude-sonnet-4-5",), doc="the public Anthropic API"),
}
DEFAULT = "inferam"


def serves(profile: Profile, dialect: str, path: str) -> None:
    """Raise the profile's 404 when it does not serve this endpoint."""
    if dialect not in profile.dialects:
        raise NotFound(f"Invalid URL (POST {path}): the {profile.name} profile does not serve it.", code="unknown_url")


def base_model(profile: Profile, model: str) -> str:
    """The model without Inferel's `:pool` suffix, which routes to a resource group and is not a model."""
    return model.partition(":")[0] if profile.pools and ":" in model else model


class PromptCache:
    """The state of a `CacheModel`: per cache key, the prefix blocks seen and when, oldest first."""

    def __init__(self, model: CacheModel) -> None:
        self.model = model
        self._keys: dict[str, OrderedDict[str, float]] = {}

    def cached_tokens(self, prompt: Prompt, now: float) -> int:
        """Tokens of `prompt` served from cache, then remember its blocks. No cache key, no caching."""
        key = prompt.cache_key
        if not key:
            return 0
        seen = self._keys.setdefault(key, OrderedDict())
        for block, at in list(seen.items()):  # expire, oldest first
            if now - at <= self.model.ttl:
                break
            del seen[block]
        hits, missed = 0, False
        for block in _prefix_blocks(prompt, self.model.block):
            if not missed and block in seen:
                hits += 1
            else:
                missed = True
            seen[block] = now
            seen.move_to_end(block)
        while len(seen) > self.model.capacity:
            seen.popitem(last=False)
        return hits * self.model.block

    def reset(self) -> None:
        self._keys.clear()


def _prefix_blocks(prompt: Prompt, block: int) -> list[str]:
    """One digest per whole block of the prompt, each over everything before it: a prefix, not a piece."""
    text = "".join(f"\x1e{m.role}\x1f{m.reasoning}\x1f{m.text}\x1f{m.tool_calls}" for m in prompt.messages)
    size = block * tokens.CHARS_PER_TOKEN
    h = hashlib.blake2b(digest_size=16)
    digests = []
    for at in range(0, len(text) - size + 1, size):
        h.update(text[at : at + size].encode())
        digests.append(h.copy().hexdigest())
    return digests
