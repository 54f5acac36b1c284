"""Ollama's model routes (reference providers-aws-azure-ollama.md §3.2, §3.4): `GET /api/tags` (the models "pulled":
the profile's, `--model`'s, the scenarios'), `POST /api/show` (any name, as if pulled), `GET /api/ps` (none loaded:
a model answers without loading), `GET /api/version`, and `GET /` ("Ollama is running"). The answering endpoints
(`/api/chat`, `/api/generate`, `/api/embed`, `/api/embeddings`) are `app.py`'s, on the dialects of
`dialects/ollama/`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request

from emulator.core import ids
from emulator.core.errors import InvalidRequest
from emulator.core.sse import encode, loads
from emulator.core.wire import Whole, whole
from emulator.dialects.ollama import common, embed
from emulator.http import models
from emulator.rules import profiles
from emulator.state import State

VERSION = "0.33.0"  # the release the reference's captures were taken against
MODIFIED = "2026-08-21T10:00:00.000000Z"
TEXT = b"text/plain; charset=utf-8"
Handler = Callable[[Request], Awaitable[Whole]]


def _details(name: str) -> dict[str, Any]:
    """A model's `details`, as `ollama show` reports them: its family read from its name."""
    family = name.partition(":")[0].split("-")[0].rstrip("0123456789.") or name
    embedding = name.partition(":")[0] in embed.SIZES
    return {
        "parent_model": "",
        "format": "gguf",
        "family": "nomic-bert" if embedding else family,
        "families": ["nomic-bert" if embedding else family],
        "parameter_size": "137M" if embedding else "3.2B",
        "quantization_level": "F16" if embedding else "Q4_K_M",
    }


def _tag(name: str) -> str:
    return name if ":" in name else f"{name}:latest"


def _entry(name: str) -> dict[str, Any]:
    tag = _tag(name)
    size = 274_302_450 if name.partition(":")[0] in embed.SIZES else 2_019_393_189
    return {"name": tag, "model": tag, "modified_at": MODIFIED, "size": size, "digest": ids.digest(tag)} | {
        "details": _details(name)
    }


def tags(state: State) -> Handler:
    profile = profiles.PROFILES["ollama"]

    async def handle(request: Request) -> Whole:
        return whole(encode({"models": [_entry(name) for name in models.known(state, profile)]}))

    return handle


async def ps(request: Request) -> Whole:
    return whole(encode({"models": []}))


async def version(request: Request) -> Whole:
    return whole(encode({"version": VERSION}))


async def running(request: Request) -> Whole:
    return whole(b"Ollama is running", content_type=TEXT)


async def show(request: Request) -> Whole:
    """Any model, as if pulled: its details and capabilities (an embedding model embeds; others complete, call
    tools and think)."""
    try:
        asked = loads(await request.body() or b"{}")
    except ValueError:
        asked = None
    name = asked.get("model") or asked.get("name") if isinstance(asked, dict) else None
    if not isinstance(name, str) or not name:
        body = common.render_error(InvalidRequest("model is required"))
        return whole(encode(body), status=400)
    embedding = name.partition(":")[0] in embed.SIZES
    capabilities = ["embedding"] if embedding else ["completion", "tools", "thinking"]
    return whole(
        encode(
            {
                "modelfile": f"FROM {_tag(name)}\n",
                "parameters": "",
                "template": "{{ .Prompt }}",
                "details": _details(name),
                "model_info": {"general.architecture": _details(name)["family"]},
                "capabilities": capabilities,
                "modified_at": MODIFIED,
            }
        )
    )
