"""`GET /v1/models`: the profile's documented models and those the scenarios name, in the shape of the API
the client speaks (OpenAI's list, or Anthropic's page)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from starlette.requests import Request

from emulator import ids, profiles, recordings
from emulator.error_answer import dialect_for, error_answer
from emulator.errors import EmulatorError
from emulator.journal import at_once
from emulator.profiles import Profile
from emulator.sse import encode
from emulator.state import State
from emulator.wire import Script, Whole, whole

CREATED = 1760659200  # 2025-10-17, the date in the documented model's name


def listing(state: State, profile: Profile) -> Callable[[Request], Awaitable[Whole | Script]]:
    """The route handler for one profile's model list."""
    models = tuple(dict.fromkeys(profile.models + state.book.models))

    async def handle(request: Request) -> Whole | Script:
        arrived = time.perf_counter()
        answer = await _answer(request)
        if isinstance(answer, Whole):  # counted for `/metrics`
            took = time.perf_counter() - arrived
            await state.done(None, at_once(answer.status, answer.headers, answer.body, took), "models", profile.name)
        return answer

    async def _answer(request: Request) -> Whole | Script:
        path = request.scope["path"]
        dialect = dialect_for(path, request.headers)
        try:
            profiles.authenticate(profile, dialect.NAME, request.headers)
        except EmulatorError as error:
            return error_answer(dialect, error, profile=profile)
        hit = state.library.find("GET", path, b"") if state.library else None
        if hit:
            return recordings.script(hit, state.settings.replay_speed)
        root = ids.digest(state.settings.seed, str(request.url))
        headers = profiles.request_id(profile, dialect.NAME, root) if dialect.NAME == profiles.MESSAGES else {}
        if profile.request_id != "x-request-id":  # a profile that names every response (Infercom)
            headers[profile.request_id] = ids.uuid(root)
        return whole(encode(page(models, anthropic=dialect.NAME == profiles.MESSAGES)), headers)

    return handle


def page(models: tuple[str, ...], anthropic: bool) -> dict[str, object]:
    if anthropic:  # the Anthropic SDK and Claude Code's model discovery (wire-formats.md §3.5)
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(CREATED))
        listed = [
            {"type": "model", "id": m, "display_name": m, "created_at": created, "lifecycle": "active"} for m in models
        ]
        # `has_more: false`, or the SDK's auto-pagination keeps asking with `?after_id=`.
        return {"data": listed, "has_more": False, "first_id": models[0], "last_id": models[-1]}
    data = [{"id": m, "object": "model", "created": CREATED, "owned_by": "emulator"} for m in models]
    return {"object": "list", "data": data}
