"""Azure OpenAI's gateway in front of its paths (`/openai/deployments/{name}/…`, `/openai/responses`,
`/openai/models`): every call names an `api-version` in its query, as `AzureOpenAI` sends one; without it Azure
answers 404 "Resource not found", and a version it does not know is a 400 (reference providers-aws-azure-ollama.md
§2.4, rule A1). Its `/openai/v1/…` paths take none and are not gated."""

from __future__ import annotations

import re
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from emulator.core.sse import encode
from emulator.core.wire import whole

# A dated version, a preview of one, or the v1 API's `preview` and `latest`.
VERSION = re.compile(r"\d{4}-\d{2}-\d{2}(-preview)?|preview|latest")


class Versioned:
    """An ASGI app behind Azure's `api-version` check."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("api-version")
        if not asked:
            refusal = {"error": {"code": "404", "message": "Resource not found"}}
            await whole(encode(refusal), status=404)(scope, receive, send)
        elif not VERSION.fullmatch(asked[0]):
            refusal = {"error": {"code": "BadRequest", "message": "API version not supported"}}
            await whole(encode(refusal), status=400)(scope, receive, send)
        else:
            await self.app(scope, receive, send)
