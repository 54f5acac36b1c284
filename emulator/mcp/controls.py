"""The emulator's controls as an agent calls them (`emulator mcp`): each tool's name, description and JSON Schema,
its arguments checked as the admin API checks them, and the admin-API calls it makes. No MCP here: the SDK's
home is `emulator.mcp.stdio`, which serves this table; a tool's result is what the admin API answered.

Faults, timing and the scenario a test set live together in one `POST /_emulator/faults`, which replaces them
all: `set_fault` and `set_timing` read what is set, then post the union, and `clear_faults` posts it without the
fault. Between the read and the post another caller's change for the same test id can be lost.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from emulator.core.wire import TEST_ID
from emulator.rules import faults, profiles

DEFAULT_URL = "http://127.0.0.1:8000"
TIMEOUT = 30.0  # seconds for one admin call; the emulator answers them at once


class ToolError(Exception):
    """A tool call that failed: a bad argument (the message names it), or the admin API's refusal in its words."""


@dataclass(frozen=True)
class Admin:
    """A running emulator's admin API at `url`, with its token when it listens beyond loopback."""

    url: str = DEFAULT_URL
    token: str | None = None

    def call(self, method: str, path: str, body: Any = None, test_id: str | None = None, **query: Any) -> Any:
        """The JSON the admin API answers; its refusal (4xx, 5xx) or no answer at all is a `ToolError`."""
        given = {k: _text(v) for k, v in query.items() if v is not None}
        address = f"{self.url.rstrip('/')}{path}" + (f"?{urllib.parse.urlencode(given)}" if given else "")
        headers = {"accept": "application/json"}
        if test_id:
            headers[TEST_ID] = test_id
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            raw = isinstance(body, str)
            headers["content-type"] = "application/yaml" if raw else "application/json"
            data = body.encode() if raw else json.dumps(body).encode()
        asked = urllib.request.Request(address, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(asked, timeout=TIMEOUT) as response:
                return json.load(response)
        except urllib.error.HTTPError as exc:
            with exc:
                said = exc.read().decode("utf-8", "replace")
            with contextlib.suppress(ValueError, KeyError, TypeError):  # the admin API's words, when it sent some
                said = json.loads(said)["error"]["message"]
            raise ToolError(f"The emulator refused {method} {path} ({exc.code}): {said}") from None
        except (OSError, ValueError) as exc:
            raise ToolError(
                f"Could not reach the emulator at {self.url} ({exc}): start it with `emulator serve`, or run "
                "`emulator mcp --serve` to have one of its own."
            ) from None


def _text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


# --- arguments ---------------------------------------------------------------------------------------------

TEST_ID_ARGUMENT = {
    "type": "string",
    "minLength": 1,
    "description": "The test's scope (the x-emulator-test-id header): only requests sent with this id, or through "
    "the base URLs base_urls gives for it, are affected or listed. Omit it for every request.",
}


def _schema(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": dict(properties), "required": list(required), "additionalProperties": False}


def check(schema: Mapping[str, Any], arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """`arguments` as `schema` (one of this module's, a flat object) allows them; a `ToolError` names the first
    argument that is wrong, and what was expected."""
    given = dict(arguments or {})
    properties: Mapping[str, Any] = schema["properties"]
    for name in given:
        if name not in properties:
            expected = ", ".join(properties) or "none"
            raise ToolError(f"{name}: not an argument of this tool; expected {expected}.")
    for name in schema["required"]:
        if name not in given:
            raise ToolError(f"{name}: missing; this argument is required.")
    for name, value in given.items():
        _check_value(name, properties[name], value)
    return given


_NAMES = {"string": "a string", "integer": "a whole number", "boolean": "true or false", "object": "an object"}
# What an argument may hold: a fault or timing spec is a line, a test id a name that goes in a header and a path,
# and a scenario an object a person would write (the admin API refuses a deeper or larger one as well).
MOST_CHARACTERS = {"spec": 1_000, "test_id": 200, "name": 200}
MOST_BYTES = 1_000_000  # a scenario, as JSON or YAML text
MOST_DEPTH = 32  # levels of objects and arrays in a scenario
PRINTABLE = re.compile(r"[\x21-\x7e]+")  # printable ASCII, no space: what a header and a URL path carry as they are


def _check_value(name: str, rule: Mapping[str, Any], value: Any) -> None:
    kinds = rule["type"] if isinstance(rule["type"], list) else [rule["type"]]
    fits = {
        "string": isinstance(value, str),
        "integer": type(value) is int,
        "boolean": type(value) is bool,
        "object": isinstance(value, dict),
    }
    if not any(fits[kind] for kind in kinds):
        wanted = " or ".join(_NAMES[kind] for kind in kinds)
        raise ToolError(f"{name}: expected {wanted}, got {json.dumps(value)}.")
    if isinstance(value, str) and len(value) < rule.get("minLength", 0):
        raise ToolError(f"{name}: expected a non-empty string.")
    if type(value) is int and value < rule.get("minimum", value):
        raise ToolError(f"{name}: expected a whole number of at least {rule['minimum']}, got {value}.")
    if "enum" in rule and value not in rule["enum"]:
        raise ToolError(f"{name}: expected one of {', '.join(rule['enum'])}, got {json.dumps(value)}.")
    most = MOST_CHARACTERS.get(name)
    if isinstance(value, str) and most is not None and len(value) > most:
        raise ToolError(f"{name}: expected at most {most:,} characters, got {len(value):,}.")
    if name == "test_id" and isinstance(value, str) and not PRINTABLE.fullmatch(value):
        raise ToolError(
            f"{name}: expected printable ASCII without spaces (it goes in a header), got {json.dumps(value)}."
        )
    if isinstance(value, dict | str) and name == "scenario":
        _bounded(name, value)


def _bounded(name: str, value: Any) -> None:
    """A scenario within `MOST_BYTES` and `MOST_DEPTH`, checked without recursing into what is too deep."""
    size = len(value.encode()) if isinstance(value, str) else 0
    pending: list[tuple[Any, int]] = [(value, 1)] if not isinstance(value, str) else []
    while pending:
        item, depth = pending.pop()
        if depth > MOST_DEPTH:
            raise ToolError(f"{name}: nested more than {MOST_DEPTH} levels deep; a scenario needs far fewer.")
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            size += len(child) if isinstance(child, str) else 8
            if isinstance(child, dict | list):
                pending.append((child, depth + 1))
        size += sum(len(k) for k in item) if isinstance(item, dict) else 0
        if size > MOST_BYTES:
            break
    if size > MOST_BYTES:
        raise ToolError(f"{name}: larger than {MOST_BYTES:,} bytes; a scenario is a few kilobytes.")


# --- the tools ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tool:
    """One control: what an agent reads (name, description, schema) and what it does (`run`)."""

    name: str
    description: str
    run: Callable[[Admin, dict[str, Any]], Any]
    properties: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()

    @property
    def schema(self) -> dict[str, Any]:
        return _schema(self.properties, self.required)


def _directions(admin: Admin, test_id: str | None) -> dict[str, Any]:
    """What is set for the scope, as `POST /_emulator/faults` takes it: a spent fault (no strikes left) dropped."""
    found = admin.call("GET", "/_emulator/faults", test_id=test_id)
    kept = {k: found.get(k) for k in ("spec", "times", "timing", "scenario", "lenient")}
    if kept["times"] == 0:
        kept["spec"] = kept["times"] = None
    return {k: v for k, v in kept.items() if v not in (None, False)}


def _direct(admin: Admin, test_id: str | None, directions: dict[str, Any]) -> Any:
    """Post `directions` for the scope, or forget what is set when nothing is left."""
    if not directions:
        deleted = admin.call("DELETE", "/_emulator/faults", test_id=test_id)
        return deleted | {"spec": None, "times": None, "timing": None, "scenario": None, "lenient": False}
    return admin.call("POST", "/_emulator/faults", directions, test_id=test_id)


def _spec(read: Callable[[Mapping[str, Any], str], Any], spec: str) -> None:
    """A fault or timing spec checked as the admin API checks it, its mistakes naming the argument `spec`."""
    try:
        read(faults.split_spec(spec), "spec")
    except faults.FaultError as exc:
        raise ToolError(str(exc) if str(exc).startswith("spec") else f"spec: {exc}") from None


def set_fault(admin: Admin, args: dict[str, Any]) -> Any:
    _spec(faults.fault, args["spec"])
    test_id = args.get("test_id")
    return _direct(admin, test_id, _directions(admin, test_id) | {"spec": args["spec"], "times": args.get("times")})


def set_timing(admin: Admin, args: dict[str, Any]) -> Any:
    _spec(faults.timing, args["spec"])
    test_id = args.get("test_id")
    return _direct(admin, test_id, _directions(admin, test_id) | {"timing": args["spec"]})


def clear_faults(admin: Admin, args: dict[str, Any]) -> Any:
    test_id = args.get("test_id")
    kept = {k: v for k, v in _directions(admin, test_id).items() if k not in ("spec", "times")}
    return _direct(admin, test_id, kept)


def post_scenario(admin: Admin, args: dict[str, Any]) -> Any:
    test_id, scenario = args.get("test_id"), args["scenario"]
    posted = admin.call("POST", "/_emulator/scenarios", scenario, test_id=test_id)
    if args.get("use"):
        names = posted["scenarios"]
        if len(names) != 1:
            raise ToolError(f"use: answers with one scenario, and {len(names)} were posted ({', '.join(names)}).")
        posted["directions"] = _direct(admin, test_id, _directions(admin, test_id) | {"scenario": names[0]})
    return posted


def base_urls(admin: Admin, args: dict[str, Any]) -> dict[str, Any]:
    scope = admin.url.rstrip("/")
    if args.get("test_id"):
        scope += "/_t/" + urllib.parse.quote(args["test_id"], safe="")
    root = scope + "/" + args["profile"] if args.get("profile") else scope
    return {
        "openai": f"{root}/v1",
        "anthropic": root,
        "azure": scope,
        "ollama": scope,
        "test_id": args.get("test_id"),
        "profile": args.get("profile") or None,
        "api_key": "any value: the emulator takes every key",
    }


TOOLS = (
    Tool(
        "set_fault",
        "Make the scope's requests fail on purpose (an HTTP 429 or 503, a stream cut or stalled, a reset...), "
        "every one or the first `times`. Keeps the timing and scenario already set. The spec is the fault "
        "grammar of the x-emulator-fault header (resource emulator://faults), e.g. 'status=429; retry_after=1', "
        "'stream_error; after_events=5; status=529', 'truncate; after_events=3'. A request's own header wins.",
        set_fault,
        {
            "spec": {"type": "string", "minLength": 1, "description": "the fault, e.g. 'status=429; retry_after=1'"},
            "times": {
                "type": "integer",
                "minimum": 1,
                "description": "how many of the scope's next answering requests it strikes; omit for every one",
            },
            "test_id": TEST_ID_ARGUMENT,
        },
        ("spec",),
    ),
    Tool(
        "set_timing",
        "Pace the scope's answers like a real model: latency before the headers, time to the first token, tokens "
        "per second, jitter. Keeps the fault and scenario already set. The spec is the x-emulator-timing grammar "
        "(resource emulator://faults), e.g. 'ttft_ms=300; tokens_per_second=60'.",
        set_timing,
        {
            "spec": {"type": "string", "minLength": 1, "description": "e.g. 'ttft_ms=300; tokens_per_second=60'"},
            "test_id": TEST_ID_ARGUMENT,
        },
        ("spec",),
    ),
    Tool(
        "clear_faults",
        "Take away the fault set_fault set for the scope; its timing and scenario stay.",
        clear_faults,
        {"test_id": TEST_ID_ARGUMENT},
    ),
    Tool(
        "post_scenario",
        "Script what the model answers, while the emulator runs: one scenario or {scenarios: [...]}, as YAML or "
        "JSON text or as an object (the format and examples: resource emulator://scenarios). A scenario with a "
        "`match` answers the requests it matches; one without answers when picked by name (as the model name, or "
        "with `use: true` for every request of the scope). Every mistake is reported with its key path.",
        post_scenario,
        {
            "scenario": {"type": ["string", "object"], "description": "YAML or JSON text, or an object"},
            "test_id": TEST_ID_ARGUMENT,
            "use": {
                "type": "boolean",
                "description": "also answer every request of the scope with it, whatever it matches (keeps the "
                "fault and timing set)",
            },
        },
        ("scenario",),
    ),
    Tool(
        "list_scenarios",
        "The scenarios loaded (files, and those posted) and where each comes from.",
        lambda admin, args: admin.call("GET", "/_emulator/scenarios"),
    ),
    Tool(
        "list_requests",
        "What clients sent and what they got back: the journal's entries, oldest first, each with the request's "
        "headers and body, the answer (status, body or timed stream events), its source (scenario, recording, "
        "default), its fault and timing. `last` is the newest id, for `since` next time.",
        lambda admin, args: admin.call(
            "GET",
            "/_emulator/requests",
            test_id=args.get("test_id"),
            since=args.get("since"),
            limit=args.get("limit"),
            bodies=args.get("bodies"),
        ),
        {
            "test_id": TEST_ID_ARGUMENT,
            "since": {"type": "integer", "minimum": 0, "description": "only entries after this id"},
            "limit": {"type": "integer", "minimum": 1, "description": "only the newest N entries"},
            "bodies": {"type": "boolean", "description": "false leaves out headers, bodies and answers (default true)"},
        },
    ),
    Tool(
        "get_request",
        "One journal entry in full, by its id; `transcript: true` adds it as a person reads it (the messages, the "
        "answer as the client's SDK assembled it).",
        lambda admin, args: admin.call("GET", f"/_emulator/requests/{args['id']}", transcript=args.get("transcript")),
        {
            "id": {"type": "integer", "minimum": 1, "description": "the entry's id (list_requests gives them)"},
            "transcript": {"type": "boolean", "description": "add the entry as a transcript"},
        },
        ("id",),
    ),
    Tool(
        "get_report",
        "How the client behaved under the faults it met (retried a 429 too soon? gave up on a 503?): a verdict and "
        "findings, each naming its requests.",
        lambda admin, args: admin.call("GET", "/_emulator/report", test_id=args.get("test_id")),
        {"test_id": TEST_ID_ARGUMENT},
    ),
    Tool(
        "reset",
        "Forget the scope's journal, call counters, rate-limit levels, posted scenarios, fault and timing: a clean "
        "slate for the next test.",
        lambda admin, args: admin.call("POST", "/_emulator/reset", test_id=args.get("test_id")),
        {"test_id": TEST_ID_ARGUMENT},
    ),
    Tool(
        "base_urls",
        "The base URLs a client should use: `openai` for the OpenAI SDK (OPENAI_BASE_URL, Codex's base_url), "
        "`anthropic` for the Anthropic SDK and Claude Code (ANTHROPIC_BASE_URL), `azure` for AzureOpenAI's "
        "azure_endpoint (AZURE_OPENAI_ENDPOINT), `ollama` for the ollama clients' host (OLLAMA_HOST). With a test id "
        "they carry it in "
        "the path, so a client that sets no header is in the scope all the same.",
        base_urls,
        {
            "test_id": TEST_ID_ARGUMENT,
            "profile": {
                "type": "string",
                "enum": list(profiles.PROFILES),
                "description": "the upstream to stand in for (resource emulator://profiles); omit for the server's",
            },
        },
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}


def call(admin: Admin, name: str, arguments: Mapping[str, Any] | None) -> Any:
    """Run the tool `name` with `arguments`, checked first; a `ToolError` says what went wrong."""
    tool = BY_NAME.get(name)
    if tool is None:
        raise ToolError(f"No tool named {name!r}; the tools are {', '.join(BY_NAME)}.")
    return tool.run(admin, check(tool.schema, arguments))


# --- the command -------------------------------------------------------------------------------------------


def arguments(parser: argparse.ArgumentParser) -> None:
    """`emulator mcp`'s flags (here, not beside the SDK: `emulator --help` works without the extra)."""
    parser.add_argument("--url", type=_url, default=DEFAULT_URL, help="the emulator to drive (default: %(default)s)")
    parser.add_argument(
        "--admin-token",
        default=os.environ.get("EMULATOR_ADMIN_TOKEN") or None,
        metavar="TOKEN",
        help="its admin token, when it listens beyond loopback (default: $EMULATOR_ADMIN_TOKEN)",
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="start an emulator of its own in this process, on a free loopback port, instead of using --url",
    )
    parser.add_argument(
        "--scenarios",
        type=Path,
        action="append",
        metavar="PATH",
        help="with --serve: scenario file or directory, repeatable (default: ./scenarios if it exists, else the "
        "bundled ones)",
    )


def _url(text: str) -> str:
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"expected an http:// or https:// URL, got {text!r}")
    return text
