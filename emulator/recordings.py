"""Cassettes and replay: read vcrpy cassettes into `Recording`s, match a request to one (by its body, or
as the same conversation in any dialect), and play it back at the recorded pace.

The home of vcrpy, used as the cassette library (format, safe YAML, `Cassette` API); `Tape` appends what
the recorder (`recorder.py`) captures. The gaps between SSE events live in each cassette's metadata.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from vcr.cassette import Cassette
from vcr.matchers import method as same_method
from vcr.matchers import requests_match
from vcr.persisters.filesystem import FilesystemPersister
from vcr.record_mode import RecordMode
from vcr.request import Request as VcrRequest
from vcr.serialize import deserialize, serialize
from vcr.serializers import yamlserializer

from emulator import yamlfile
from emulator.conversation import Prompt, Reply, Timing
from emulator.errors import EmulatorError, NotFound
from emulator.faults import MAX_PAUSE_MS, Pause, Step
from emulator.identity import conversation
from emulator.sse import loads
from emulator.wire import Script, raw

# Request and response headers a cassette keeps (case-insensitive); every other one is dropped.
ALLOWED_HEADERS = frozenset(
    {
        "content-type",
        "accept",
        "anthropic-version",
        "anthropic-beta",
        "openai-beta",
        "openai-version",
        "openai-model",
        "openai-processing-ms",
        "user-agent",
        "request-id",
        "x-request-id",
        "retry-after",
        "retry-after-ms",
        "x-should-retry",
        "cache-control",
    }
)
ALLOWED_PREFIXES = ("x-stainless-", "x-ratelimit-", "anthropic-ratelimit-")
# Top-level request fields that do not change the answer, so matching ignores them.
VOLATILE_FIELDS = ("user", "metadata", "prompt_cache_key", "client_metadata", "safety_identifier")
MAX_GAP = MAX_PAUSE_MS / 1000  # seconds: the longest recorded pause a cassette may hold, as for any pause
PACING = "emulator_pacing"  # metadata key: per interaction, {headers_after, event_gaps} in seconds


def allowed(name: str) -> bool:
    name = name.lower()
    return name in ALLOWED_HEADERS or name.startswith(ALLOWED_PREFIXES)


def match_key(body: bytes | str | None) -> str:
    """What matching compares of a body: its JSON with the volatile fields removed (and `stream: false`,
    which is the default), keys sorted; a body that is not JSON, as it is."""
    text = _text(body)
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    if isinstance(parsed, dict):
        parsed = {k: v for k, v in parsed.items() if k not in VOLATILE_FIELDS and (k, v) != ("stream", False)}
    return json.dumps(parsed, sort_keys=True, separators=(",", ":"))


def api_path(uri: str) -> str:
    """The path from `/v1/` on, without query: a profile prefix or an upstream base path aside."""
    path = urlsplit(uri).path
    at = path.find("/v1/")
    return path[at:] if at >= 0 else path


def _same_request(r1: VcrRequest, r2: VcrRequest) -> None:
    """vcrpy matcher: same path from /v1/ on, and the same body as `match_key` sees it."""
    assert api_path(r1.uri) == api_path(r2.uri)
    assert match_key(r1.body) == match_key(r2.body)


MATCH_ON = (same_method, _same_request)


class _AtomicPersister:
    """vcrpy's file persister, but a reader never sees half a cassette: temp file, then `os.replace`."""

    load_cassette = FilesystemPersister.load_cassette

    @staticmethod
    def save_cassette(cassette_path: Any, cassette_dict: Any, serializer: Any) -> None:
        path = Path(cassette_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o600  # prompts and answers: the owner's only
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            os.fchmod(fd, mode)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(serialize(cassette_dict, serializer))
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise


class Tape:
    """A cassette being recorded into: what it held when opened, and each new interaction saved at once,
    atomically (vcrpy saves only when a cassette closes)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.exists():
            read(path)  # a malformed cassette is refused before anything is appended to it
        self.cassette = Cassette.load(
            path=str(path), record_mode=RecordMode.NEW_EPISODES, persister=_AtomicPersister, match_on=MATCH_ON
        )
        self.loaded = len(self.cassette)  # interactions that were in the file when it was opened

    def recordings(self) -> Iterator[Recording]:
        pacing = self.cassette.get_metadata(PACING, [])
        return _recordings(self.path.name, self.cassette.requests, self.cassette.responses, pacing)

    def add(
        self,
        method: str,
        uri: str,
        body: str,
        headers: dict[str, str],
        response: dict[str, Any],
        pacing: dict[str, Any],
        replace: bool = False,
    ) -> Recording:
        """Append an interaction and save; `replace`: a held one the request matches goes first."""
        request = VcrRequest(method, uri, body, headers)
        gaps: list[dict[str, Any] | None] = self.cassette.get_metadata(PACING, [])
        gaps += [None] * (len(self.cassette) - len(gaps))  # interactions recorded without pacing
        if replace:  # re-recorded: the loaded interaction it matches goes
            for i, (old, _) in enumerate(self.cassette.data[: self.loaded]):
                if requests_match(request, old, MATCH_ON):
                    del self.cassette.data[i], gaps[i]
                    self.loaded -= 1
                    break
        self.cassette.append(request, response)
        gaps.append(pacing)
        self.cassette._save()  # vcrpy's only way to save before the cassette is closed
        return _recording(f"{self.path.name}#{len(self.cassette) - 1}", request, response, pacing)


# --- replay -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Recording:
    """One recorded interaction, as replay needs it."""

    source: str  # file name and index, for `x-emulator-source`
    method: str
    path: str  # from /v1/ on
    key: str  # `match_key` of the request body
    request: str  # the request body as recorded
    status: int
    headers: dict[str, str]
    body: bytes
    headers_after: float  # seconds from the request to the status line
    event_gaps: tuple[float, ...]  # seconds before each SSE event


class Reader(Protocol):
    """What replay needs of a dialect to answer a recorded conversation in another one."""

    def parse_request(
        self, body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = ...
    ) -> Prompt: ...
    def read_response(self, body: bytes, stream: bool) -> Reply: ...


class Library:
    """Recordings by (method, path, body); the first recording of a request answers it, every time.

    Each successful recording that a `Reader` understands is also indexed by its conversation
    (`identity.conversation`): a request that matches no body, for instance the same conversation asked in
    another dialect, or streamed where the recording was not, is answered with the recorded `Reply`.
    """

    def __init__(self, recordings: Iterable[Recording], readers: Mapping[str, Reader] = {}) -> None:
        self.recordings: dict[tuple[str, str, str], Recording] = {}
        self.conversations: dict[str, tuple[Recording, Reply]] = {}
        self.readers = readers
        for r in recordings:
            self.add(r)

    def add(self, r: Recording) -> None:
        """A recording more; one of the same request already held keeps answering it."""
        self.recordings.setdefault((r.method, r.path, r.key), r)
        reader = self.readers.get(r.path)
        if reader and r.status == 200 and r.method == "POST":
            understood = _understood(reader, r)
            if understood:
                self.conversations.setdefault(understood[0], (r, understood[1]))

    def answer(self, prompt: Prompt) -> tuple[Recording, Reply] | None:
        """The recording of the same conversation, in whatever dialect it was recorded, and what it said."""
        return self.conversations.get(prompt.conversation or conversation(prompt))

    def __len__(self) -> int:
        return len(self.recordings)

    def find(self, method: str, path: str, body: bytes) -> Recording | None:
        return self.recordings.get((method.upper(), api_path(path), match_key(body)))

    def nearest(self, method: str, path: str, body: bytes) -> tuple[Recording, list[str]] | None:
        """The recording closest to a request that matched none (vcrpy's best-match idea), and what differs:
        the method and path first, then the fewest differing fields of the body."""
        wanted = _parsed(match_key(body))
        where = (method.upper(), api_path(path))
        best: tuple[tuple[int, int], Recording, list[str]] | None = None
        for (rec_method, rec_path, _), recording in self.recordings.items():
            route = [
                name for name, differ in (("method", rec_method != where[0]), ("path", rec_path != where[1])) if differ
            ]
            body_differs = _differences(_parsed(recording.key), wanted, "body")
            score = (len(route), len(body_differs))
            if best is None or score < best[0]:
                best = (score, recording, route + body_differs)
        return (best[1], best[2]) if best else None


def _understood(reader: Reader, recording: Recording) -> tuple[str, Reply] | None:
    """A recording's conversation key and answer, or None when its request or answer cannot be read back."""
    try:
        prompt = reader.parse_request(loads(recording.request.encode()), {})
        stream = "text/event-stream" in recording.headers.get("content-type", "")
        return conversation(prompt), reader.read_response(recording.body, stream)
    except (EmulatorError, ValueError, LookupError, TypeError, AttributeError):
        return None


def pace(recording: Recording, speed: float) -> Timing | None:
    """A recording's pacing, as a `Timing` for an answer rendered afresh: its wait for the status line and
    for the first event, then its average rate over the events after that; None at speed 0."""
    gaps = recording.event_gaps
    if speed == 0 or not gaps:
        return None
    rest = sum(gaps[2:])
    rate = (len(gaps) - 2) / (rest * speed) if rest > 0 else 0.0
    return Timing(
        latency_ms=round(recording.headers_after * speed * 1000),
        ttft_ms=round(sum(gaps[:2]) * speed * 1000),
        tokens_per_second=rate,
    )


def miss(library: Library, method: str, path: str, body: bytes) -> NotFound:
    """Replay only, and no recording matched: say which one came closest and where it differs."""
    nearest = library.nearest(method, path, body)
    if nearest is None:
        return NotFound("No recording matches this request, and none are loaded.", code="recording_not_found")
    recording, differs = nearest
    where = ", ".join(differs[:6]) + (f" and {len(differs) - 6} more" if len(differs) > 6 else "")
    return NotFound(
        f"No recording matches this request (replay only). "
        f"The nearest is {recording.source}, which differs in {where}.",
        code="recording_not_found",
    )


def _parsed(key: str) -> Any:
    try:
        return json.loads(key)
    except ValueError:
        return key


def _differences(recorded: Any, asked: Any, at: str) -> list[str]:
    """The paths (`body.messages[1].content`) at which two JSON values differ, outermost first."""
    if isinstance(recorded, dict) and isinstance(asked, dict):
        found = []
        for key in sorted(recorded.keys() | asked.keys()):
            found += _differences(recorded.get(key), asked.get(key), f"{at}.{key}")
        return found
    if isinstance(recorded, list) and isinstance(asked, list) and len(recorded) == len(asked):
        return [
            d for i, (r, a) in enumerate(zip(recorded, asked, strict=True)) for d in _differences(r, a, f"{at}[{i}]")
        ]
    return [] if recorded == asked else [at]


class CassetteError(ValueError):
    """Cassettes are malformed; the message has one line per mistake: the file, the key path, what is wrong."""


def load(paths: Sequence[Path], readers: Mapping[str, Reader] = {}) -> Library:
    """Read cassettes (files, or `*.yaml`/`*.yml` in directories, sorted) with vcrpy's safe loader; an empty
    file holds nothing, a missing path is an error, a malformed cassette a `CassetteError` that lists every
    mistake in every file. `readers` (by path from `/v1/` on) index the conversations for cross-dialect
    replay."""
    files: list[Path] = []
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(f"no cassette or directory at {path}")
        files += sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml")) if path.is_dir() else [path]
    found: list[Recording] = []
    problems: list[str] = []
    for file in files:
        try:
            found += read(file)
        except CassetteError as exc:
            problems.append(str(exc))
    if problems:
        raise CassetteError("\n".join(problems))
    return Library(found, readers)


def read(file: Path) -> list[Recording]:
    """One cassette's interactions; the YAML is parsed once, checked, then handed to vcrpy's reader."""
    try:
        document = _document(file)
    except (OSError, UnicodeDecodeError, yamlfile.DocumentError) as exc:
        raise CassetteError(f"{file}: not a readable YAML file: {exc}") from None
    if document is None:
        return []  # an empty file, as vcrpy sees it: nothing recorded yet
    if problems := list(cassette_problems(document)):
        raise CassetteError("\n".join(f"{file}: {p}" for p in problems))
    requests, responses, *metadata = deserialize(document, _Parsed)
    return list(_recordings(file.name, requests, responses, (metadata[0] if metadata else {}).get(PACING) or []))


def is_cassette(document: Any) -> bool:
    """Whether a parsed YAML document means to be a cassette (and not, say, a scenario file)."""
    return isinstance(document, dict) and "interactions" in document


def is_cassette_file(file: Path) -> bool:
    """Whether a file means to be a cassette: YAML with `interactions` at the top (`emulator check` sorts by it)."""
    try:
        return is_cassette(_document(file))
    except (OSError, UnicodeDecodeError, yamlfile.DocumentError):
        return False  # the scenario loader says what is wrong with it


def _document(file: Path) -> Any:
    """A cassette file's YAML, by vcrpy's safe cassette loader (which knows the few Python tags old cassettes
    hold), with the bounds of `yamlfile`."""
    return yamlfile.load(file.read_text(encoding="utf-8"), yamlserializer._CassetteLoader)


class _Parsed:
    """A vcrpy serializer for a document already parsed: `read` parses and checks before vcrpy converts."""

    @staticmethod
    def deserialize(document: Any) -> Any:
        return document


# What vcrpy and replay read of an interaction: (key path, accepted types, what was expected).
_SHAPE: tuple[tuple[str, tuple[type, ...], str], ...] = (
    ("request.method", (str,), "a string such as POST"),
    ("request.uri", (str,), "a string, the URL"),
    ("request.body", (str, bytes, type(None)), "a string, bytes or null"),
    ("request.headers", (dict,), "a mapping of header names to lists of values"),
    ("response.status.code", (int,), "an integer HTTP status"),
    ("response.headers", (dict,), "a mapping of header names to lists of values"),
    ("response.body.string", (str, bytes), "a string or bytes"),
)
_MISSING = object()


def cassette_problems(document: Any) -> Iterator[str]:
    """Every way a parsed document falls short of a cassette, each as `KEY PATH: what is wrong`."""
    if not is_cassette(document):
        yield "not a cassette: expected a mapping with 'interactions', a list of {request, response}"
        return
    interactions = document["interactions"]
    if not isinstance(interactions, list):
        yield f"interactions: expected a list of {{request, response}}, got {_kind(interactions)}"
        return
    for i, interaction in enumerate(interactions):
        at = f"interactions[{i}]"
        if not isinstance(interaction, dict):
            yield f"{at}: expected a mapping with request and response, got {_kind(interaction)}"
            continue
        for path, types, expected in _SHAPE:
            value = _dig(interaction, path)
            if value is _MISSING:
                yield f"{at}.{path}: missing; expected {expected}"
            elif not isinstance(value, types) or isinstance(value, bool):
                yield f"{at}.{path}: expected {expected}, got {_kind(value)}"
        headers = _dig(interaction, "response.headers")
        for name, values in headers.items() if isinstance(headers, dict) else ():
            if not (isinstance(values, list) and all(isinstance(v, str) for v in values)):
                yield f"{at}.response.headers.{name}: expected a list of strings, got {_kind(values)}"
    metadata = document.get("metadata") or {}
    if not isinstance(metadata, dict):
        yield f"metadata: expected a mapping, got {_kind(metadata)}"
        return
    pacing = metadata.get(PACING) or []
    if not isinstance(pacing, list):
        yield f"metadata.{PACING}: expected a list, one entry per interaction, got {_kind(pacing)}"
        return
    for i, paced in enumerate(pacing):
        at = f"metadata.{PACING}[{i}]"
        if paced is not None and not isinstance(paced, dict):
            yield f"{at}: expected a mapping of headers_after and event_gaps, got {_kind(paced)}"
            continue
        gaps = (paced or {}).get("event_gaps", [])
        if not _seconds((paced or {}).get("headers_after", 0)):
            yield f"{at}.headers_after: expected seconds, a number from 0 to {MAX_GAP:g}"
        if not (isinstance(gaps, list) and all(_seconds(g) for g in gaps)):
            yield f"{at}.event_gaps: expected a list of seconds, numbers from 0 to {MAX_GAP:g}"


def _seconds(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= MAX_GAP


def _dig(mapping: Mapping[str, Any], path: str) -> Any:
    value: Any = mapping
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return _MISSING
        value = value[key]
    return value


def _kind(value: Any) -> str:
    return "nothing" if value is None else f"{type(value).__name__} ({str(value)[:40]!r})"


def _recordings(
    name: str, requests: Sequence[VcrRequest], responses: Sequence[Mapping[str, Any]], pacing: Sequence[Any]
) -> Iterator[Recording]:
    """A cassette's interactions, named `FILE#N`, each with its pacing where the cassette has it."""
    for i, (request, response) in enumerate(zip(requests, responses, strict=True)):
        yield _recording(f"{name}#{i}", request, response, pacing[i] if i < len(pacing) else None)


def _recording(
    source: str, request: VcrRequest, response: Mapping[str, Any], paced: Mapping[str, Any] | None
) -> Recording:
    """One cassette interaction, as replay needs it."""
    paced = paced or {}
    body = response["body"]["string"]
    return Recording(
        source=source,
        method=request.method.upper(),
        path=api_path(request.uri),
        key=match_key(request.body),
        request=_text(request.body),
        status=int(response["status"]["code"]),
        headers={k.lower(): v[0] for k, v in response["headers"].items() if allowed(k) and v},
        body=body.encode() if isinstance(body, str) else body,
        headers_after=float(paced.get("headers_after", 0.0)),
        event_gaps=tuple(float(g) for g in paced.get("event_gaps", ())),
    )


def _text(body: bytes | str | None) -> str:
    return body.decode("utf-8", "replace") if isinstance(body, bytes) else body or ""


def script(recording: Recording, speed: float) -> Script:
    """A recorded answer as it was sent: its status and kept headers, then its body, SSE events with the
    recorded gaps scaled by `speed` (0: no pauses), or the whole body at once."""
    headers = recording.headers | {"x-emulator-source": f"recording {recording.source}"}
    latency = recording.headers_after * speed
    if "text/event-stream" not in headers.get("content-type", ""):
        headers["content-length"] = str(len(recording.body))
        return Script([recording.body], recording.status, raw(headers), latency)
    pieces = [p + b"\n\n" for p in recording.body.split(b"\n\n")]
    pieces[-1] = pieces[-1][:-2]
    steps: list[Step] = []
    for i, piece in enumerate(p for p in pieces if p):
        gap = recording.event_gaps[i] * speed if i < len(recording.event_gaps) else 0.0
        steps += [Pause(gap), piece] if gap > 0 else [piece]
    return Script(steps, recording.status, raw(headers), latency)
