"""Bedrock's errors (reference providers-aws-azure-ollama.md §1.8): `{"message"}` with the code in `x-amzn-ErrorType`,
and mid-stream an exception frame named as botocore looks it up; shared by Converse and InvokeModel."""

from __future__ import annotations

from typing import Any

from emulator.core.errors import EmulatorError, UpstreamError
from emulator.dialects.bedrock import eventstream

# Bedrock's error codes by status (§1.8), where the error names none of its own.
CODES = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    413: "ValidationException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}
# What Bedrock's errors say where a scenario gives no words (§1.8).
WORDS = {
    429: "Too many requests, please wait before trying again.",
    503: "Bedrock is unable to process your request.",
    500: "The server encountered an internal error while processing the request.",
}


def error_code(error: EmulatorError) -> str:
    """The error's code, as `x-amzn-ErrorType` and an exception frame name it: its own (`ThrottlingException`)
    where it names one, else its status's."""
    code = error.code or ""
    if code[:1].isupper() and code.endswith("Exception"):
        return code
    return CODES.get(error.status, "InternalServerException" if error.status >= 500 else "ValidationException")


def _message_of(error: EmulatorError) -> str:
    if isinstance(error, UpstreamError) and not error.worded and error.status in WORDS:
        return WORDS[error.status]
    return error.message


def render_error(error: EmulatorError) -> dict[str, Any]:
    """Bedrock's error body: `{"message"}` (the code is in the `x-amzn-ErrorType` header)."""
    body: dict[str, Any] = {"message": _message_of(error)}
    if error_code(error) in ("ModelErrorException", "ModelStreamErrorException"):
        body["originalStatusCode"] = error.status
    return body


def stream_exception(error: EmulatorError) -> bytes:
    """An error mid-stream: an exception frame named as the stream's member (`throttlingException`); a 5xx or a
    424 is the model's stream error."""
    code = error_code(error)
    if code in ("InternalServerException", "ModelErrorException") or error.status == 424:
        return eventstream.exception(
            "modelStreamErrorException",
            _message_of(error),
            originalStatusCode=error.status,
            originalMessage=_message_of(error),
        )
    return eventstream.exception(code[0].lower() + code[1:], _message_of(error))
