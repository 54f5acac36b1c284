"""One small error hierarchy: each error knows its HTTP status; the dialect renders the body.

EmulatorError
 ├─ InvalidRequest      400  the body or a field is wrong (names the field in `param`)
 ├─ NotFound            404  no such path, model or scenario
 ├─ MethodNotAllowed    405
 ├─ PayloadTooLarge     413
 └─ InternalError       500  a bug of ours, never a traceback on the wire
"""

from __future__ import annotations


class EmulatorError(Exception):
    """An error the client sees as an HTTP status and a body in its dialect's shape."""

    status = 500
    kind = "server_error"  # OpenAI's `error.type`; dialects translate it

    def __init__(self, message: str, *, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, message={self.message!r}, param={self.param!r})"


class InvalidRequest(EmulatorError):
    status = 400
    kind = "invalid_request_error"


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
