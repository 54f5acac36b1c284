"""One small error hierarchy: each error knows its HTTP status; the dialect renders the body.

EmulatorError
 ├─ InvalidRequest      400  the body or a field is wrong (names the field in `param`)
 │   └─ PerRequestLimit      more tokens in one request than the endpoint takes
 ├─ Unauthorized        401  no credentials at all
 ├─ Forbidden           403  no credentials, where the upstream says so with a 403 (Google)
 ├─ NotFound            404  no such path, model or scenario
 ├─ MethodNotAllowed    405
 ├─ PayloadTooLarge     413
 ├─ InternalError       500  a bug of ours, never a traceback on the wire
 └─ StateUnavailable    503  the shared state store (`--state`) failed: the emulator's own fault, retryable

This module stays Python in the compiled wheel (setup.py): compiled by mypyc, a class derived from `Exception`
never sets the class-level `status` and `kind` below on its instances, so reading them raised AttributeError.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from emulator.core.conversation import Fault


class EmulatorError(Exception):
    """An error the client sees as an HTTP status and a body in its dialect's shape."""

    status = 500
    kind = "server_error"  # OpenAI's `error.type`; dialects translate it

    def __init__(
        self, message: str, *, param: str | None = None, code: str | None = None, details: Mapping[str, Any] = {}
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code
        self.details = details  # Anthropic's `error.details` (`error_code`…): what an SDK branches on

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, message={self.message!r}, param={self.param!r})"


class InvalidRequest(EmulatorError):
    status = 400
    kind = "invalid_request_error"


class PerRequestLimit(InvalidRequest):
    """More tokens in one request than an endpoint takes (OpenAI's embeddings: 300,000), typed as OpenAI types it."""

    kind = "max_tokens_per_request"


class Unauthorized(EmulatorError):
    status = 401
    kind = "invalid_request_error"


class Forbidden(EmulatorError):
    status = 403
    kind = "permission_error"


class NotFound(EmulatorError):
    status = 404
    kind = "invalid_request_error"


class MethodNotAllowed(EmulatorError):
    status = 405
    kind = "invalid_request_error"


class PayloadTooLarge(EmulatorError):
    status = 413
    kind = "invalid_request_error"


class InternalError(EmulatorError):
    status = 500
    kind = "server_error"


class StateUnavailable(EmulatorError):
    """The store of what requests share (Redis, `--state`) refused, timed out or is full: a 503 the client may
    retry, in its dialect's shape, rather than an answer made without the shared counts and journal."""

    status = 503
    kind = "service_unavailable_error"

    def __init__(self, reason: str) -> None:
        super().__init__(
            f"The emulator's shared state is unreachable ({reason}); please try again shortly.",
            code="state_unavailable",
        )


# OpenAI's `error.type` and `error.code` by status, for errors a scenario scripts (wire-formats.md §4.1).
OPENAI_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    413: ("invalid_request_error", "request_too_large"),
    429: ("requests", "rate_limit_exceeded"),
    503: ("service_unavailable_error", "server_is_overloaded"),
}
DEFAULT_MESSAGES = {
    429: "Rate limit reached for requests. Please try again in 1s.",
    500: "The server had an error while processing your request. Sorry about that!",
    503: "The server is overloaded. Please try again later.",
    529: "Overloaded",
}


def openai_body(error: EmulatorError) -> dict[str, Any]:
    """OpenAI's error body, shared by Chat Completions and Responses: `{"error": {message, type, param, code}}`."""
    return {"error": {"message": error.message, "type": error.kind, "param": error.param, "code": error.code}}


def model_output_message(fault: Fault, tool_call: bool) -> str:
    """What a `model_output` fault says, unless it was given words: the answer it breaks was a tool call,
    or (the model being asked for either) a tool call or structured output."""
    what = "tool call" if tool_call else "tool call or structured output"
    return fault.message or f"The model's output could not be parsed as a valid {what}."


class UpstreamError(EmulatorError):
    """An error with any status, as the upstream would send it; scripted by a scenario's `fault`."""

    @classmethod
    def of(cls, fault: Fault) -> UpstreamError:
        """The error a fault scripts; a 429 with `retry_after` says when to try again, as OpenAI's do."""
        message = fault.message
        if message is None and fault.status == 429 and fault.retry_after is not None:
            message = f"Rate limit reached for requests. Please try again in {fault.retry_after:g}s."
        made = cls(fault.status, message, code=fault.code)
        made.worded = fault.message is not None
        made.retry_after = fault.retry_after
        return made

    def __init__(self, status: int, message: str | None = None, *, code: str | None = None) -> None:
        kind, default_code = OPENAI_TYPES.get(
            status, ("server_error" if status >= 500 else "invalid_request_error", None)
        )
        text = message or DEFAULT_MESSAGES.get(status) or f"The upstream answered with status {status}."
        super().__init__(text, code=code or default_code or ("server_error" if status >= 500 else None))
        self.status = status
        self.kind = kind
        self.worded = message is not None  # its words are the scenario's, not a default a dialect may word its own
        self.retry_after: float | None = None  # seconds, where the fault says when to try again
