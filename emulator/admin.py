"""The emulator's own routes: `/health`, and under `/_emulator/` the journal, the client report and reset.

Each call may name a test's scope (`x-emulator-test-id`, or `?test_id=`); without one it covers everything.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Route

from emulator import report
from emulator.answer import TEST_ID
from emulator.sse import encode
from emulator.state import State
from emulator.wire import Whole, whole


def routes(state: State) -> list[Route]:
    async def health(request: Request) -> Whole:
        return whole(encode({"status": "ok", "scenarios": len(state.book.scenarios)}))

    async def reset(request: Request) -> Whole:
        test_id = _test_id(request)
        await state.reset(test_id)
        return whole(encode({"reset": True, "test_id": test_id}))

    async def client_report(request: Request) -> Whole:
        return whole(encode(report.grade(await state.entries(_test_id(request)))))

    async def requests(request: Request) -> Whole:
        if request.method == "DELETE":
            await state.clear(_test_id(request))
            return whole(encode({"cleared": True}))
        return whole(encode({"requests": await state.find(dict(request.query_params))}))

    return [
        Route("/health", health, methods=["GET"]),
        Route("/_emulator/reset", reset, methods=["POST"]),
        Route("/_emulator/requests", requests, methods=["GET", "DELETE"]),
        Route("/_emulator/report", client_report, methods=["GET"]),
    ]


def _test_id(request: Request) -> str | None:
    """The test scope an admin call names: `x-emulator-test-id`, or `?test_id=`; None for everything."""
    return request.headers.get(TEST_ID) or request.query_params.get("test_id")
