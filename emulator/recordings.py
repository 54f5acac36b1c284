"""Cassettes and replay: read vcrpy cassettes into `Recording`s, match a request to one (by its body, or
as the same conversation in any dialect), and play it back at the recorded pace.

The home of vcrpy, used as the cassette library (format, safe YAML, `Cassette` API); `Tape` appends what
the recorder (`recorder.py`) captures. The gaps between SSE events live in each cassette's metadata.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import re2
from vcr.matchers import method as same_method
from vcr.matchers import requests_match
from vcr.request import Request as VcrRequest
from vcr.serialize import deserialize
from vcr.serializers import compat, yamlserializer

from emulator import yamlfile
from emulator.conversation import Prompt, Reply, Timing
from emulator.errors import EmulatorError, NotFound
from emulator.faults import MAX_PAUSE_MS, Pause, Step
from emulator.identity import conversation, loose
from emulator.recent import Recent
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
PACING = "emulator_pacing"  # each interaction's key (the older layout's `metadata` key): {headers_after, event_gaps}
_log = logging.getLogger("emulator.recordings")
MATCH_HEADER = "x-emulator-match"  # how a recording matched: exact, conversation, tool-results-differ


def allowed(name: str) -> bool:
    name = name.lower()
    return name in ALLOWED_HEADERS or name.startswith(ALLOWED_PREFIXES)


# Volatile text the agent CLIs send, scrubbed by default (found by recording each CLI twice, from two working
# directories): Codex's tool output carries a chunk id and the command's wall time, different on every run,
# and its `<environment_context>` the working directory, the shell, the date and the time zone; Claude Code's
# system prompt names the working directory, the machine, its memory folder (under the project's path) and
# the date, and inside a git repository its status.
DEFAULT_SCRUBS = (
    (r"Chunk ID: [0-9a-fA-F]+", "Chunk ID: …"),
    (r"Wall time: [0-9.]+ seconds", "Wall time: … seconds"),
    (r"<(cwd|shell|current_date|timezone|root)>[^<]*</(cwd|shell|current_date|timezone|root)>", r"<\1>…</\2>"),
    (r"(Primary working directory|Is a git repository|Platform|Shell|OS Version): [^\n]*", r"\1: …"),
    (r"persistent file-based memory at `[^`]*`", "persistent file-based memory at `…`"),
    (r"Today's date is [0-9]{4}-[0-9]{2}-[0-9]{2}", "Today's date is …"),
    (r"(?s)gitStatus: .*?\n\n", "gitStatus: …\n\n"),
)
SCRUB_KEY = "emulator_scrub"  # a cassette's own scrubbers, written once when it is created


class Scrubber:
    """Replacements applied to every string of a request body, before matching and before writing (vcrpy's
    `before_record_request`, declared rather than coded): `(pattern, replacement)` pairs, RE2 patterns."""

    def __init__(self, scrubs: Iterable[tuple[str, str]] = DEFAULT_SCRUBS) -> None:
        self.scrubs = tuple(dict.fromkeys(scrubs))  # in order, once each
        self._compiled = [(re2.compile(p), _template(r)) for p, r in self.scrubs]

    def touches(self, text: str) -> bool:
        """Whether any pattern matches `text`: else scrubbing leaves it as it is, and nothing need be parsed."""
        return any(pattern.search(text) for pattern, _ in self._compiled)

    def text(self, text: str) -> str:
        for pattern, replacement in self._compiled:
            if pattern.search(text):
                text = pattern.sub(replacement, text)
        return text

    def body(self, body: bytes | str) -> bytes:
        """A request body with every string in it scrubbed (the whole text, if it is not JSON); untouched, as
        it came."""
        text = _text(body)
        if not self.touches(text):
            return body if isinstance(body, bytes) else body.encode()
        try:
            parsed = json.loads(text)
        except ValueError:
            return self.text(text).encode()
        return json.dumps(self.json(parsed), ensure_ascii=False, separators=(",", ":")).encode()

    def json(self, value: Any) -> Any:
        """A parsed JSON value with every string in it scrubbed."""
        return self._json(value)

    def _json(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self._json(v) for v in value]
        if isinstance(value, dict):
            return {k: self._json(v) for k, v in value.items()}
        return value

    def __add__(self, more: Iterable[tuple[str, str]]) -> Scrubber:
        return Scrubber((*self.scrubs, *more))


_GROUP = re.compile(r"\\(\d+)|\\g<(\w+)>")  # group references in a replacement


def _template(replacement: str) -> Callable[[Any], str]:
    """A replacement as a function of the match, its group references (backslash and a number, or
    backslash-g and a name) expanded here: the RE2 bindings garble the non-ASCII characters of a replacement
    string (`…` came out as three Latin-1 characters)."""
    parts = _GROUP.split(replacement)  # literal, group number, group name, literal, …

    def expand(match: Any) -> str:
        out = []
        for i in range(0, len(parts), 3):
            out.append(parts[i])
            if i + 2 < len(parts):
                ref = parts[i + 1] if parts[i + 1] is not None else parts[i + 2]
                out.append(match.group(int(ref) if ref.isdigit() else ref) or "")
        return "".join(out)

    return expand


def scrub_spec(text: str) -> tuple[str, str]:
    """`--scrub 'REGEX=>REPLACEMENT'`, checked: the pattern must be RE2's."""
    pattern, arrow, replacement = text.partition("=>")
    if not arrow or not pattern:
        raise ValueError(f"--scrub: expected REGEX=>REPLACEMENT, got {text!r}")
    try:
        re2.compile(pattern)
    except re2.error as exc:
        raise ValueError(f"--scrub: {pattern!r} is not a regular expression in RE2's syntax: {exc}") from None
    return pattern, replacement


def match_key(body: bytes | str | None, scrubber: Scrubber | None = None) -> str:
    """What matching compares of a body: its JSON with the volatile fields removed (and `stream: false`,
    which is the default), keys sorted, its strings scrubbed by `scrubber`; a body that is not JSON, as it is
    (scrubbed). One parse, one dump: it runs for every request replay sees."""
    text = _text(body)
    touched = scrubber is not None and scrubber.touches(text)
    try:
        parsed = json.loads(text)
    except ValueError:
        return scrubber.text(text) if scrubber is not None and touched else text
    if scrubber is not None and touched:
        parsed = scrubber.json(parsed)
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


class Tape:
    """A cassette being recorded into: what it held when opened, then one interaction appended as each answer
    ends, in one write and an fsync, so that a killed recorder keeps every interaction it finished and a save
    costs the same after a thousand interactions as after one (vcrpy saves only when a cassette closes, and
    then rewrites it whole).

    The file is vcrpy's format with `interactions` last, each carrying its pacing as `emulator_pacing` (a key
    vcrpy ignores): `version: 1`, then `interactions:` and one YAML item per interaction. A cassette in the
    older layout (pacing in `metadata`) is rewritten once in this one, atomically, before the first append."""

    def __init__(self, path: Path, scrubs: Sequence[tuple[str, str]] = ()) -> None:
        self.path = path
        self.scrubs = [{"pattern": p, "replace": r} for p, r in scrubs]  # written once, when the file is made
        self.items: list[dict[str, Any]] = []  # as stored: request, response, emulator_pacing
        if path.exists() and path.read_text(encoding="utf-8").strip():
            document = _document_of(path)  # a malformed cassette is refused before anything is appended
            self.items = _items(document)
            self.scrubs = document.get(SCRUB_KEY) or []
            if not _appendable(path.read_text(encoding="utf-8")):
                self._rewrite()
        self.loaded = len(self.items)  # interactions that were in the file when it was opened

    def recordings(self) -> Iterator[Recording]:
        for i, item in enumerate(self.items):
            yield _recording(f"{self.path.name}#{i}", *_parts(item))

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
        """Append an interaction and save it; `replace`: a held one the request matches goes (a rewrite)."""
        request = VcrRequest(method, uri, body, headers)
        item = {
            "request": compat.convert_to_unicode(request._to_dict()),
            "response": compat.convert_to_unicode(dict(response)),
            PACING: pacing,
        }
        held = [
            i for i, old in enumerate(self.items[: self.loaded]) if requests_match(request, _parts(old)[0], MATCH_ON)
        ]
        self.items.append(item)
        if replace and held:  # re-recorded: the loaded interaction it matches goes
            del self.items[held[0]]
            self.loaded -= 1
            self._rewrite()
        else:
            self._append(item)
        return _recording(f"{self.path.name}#{len(self.items) - 1}", *_parts(item))

    def _append(self, item: dict[str, Any]) -> None:
        text = yamlserializer.serialize([item])
        if not self.path.exists() or not self.path.stat().st_size:
            text = self._header() + text
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # prompts and answers: the owner's
        try:
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def _header(self) -> str:
        """What the file begins with: the version, the cassette's own scrubbers if any, then `interactions:`."""
        scrubs = yamlserializer.serialize({SCRUB_KEY: self.scrubs}) if self.scrubs else ""
        return f"version: 1\n{scrubs}interactions:\n"

    def _rewrite(self) -> None:
        """The whole cassette anew, atomically: a temporary file beside it, then `os.replace`."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        mode = self.path.stat().st_mode & 0o777 if self.path.exists() else 0o600
        fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            os.fchmod(fd, mode)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self._header() + (yamlserializer.serialize(self.items) if self.items else ""))
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, self.path)
        except BaseException:
            os.unlink(temp)
            raise


def _appendable(text: str) -> bool:
    """Whether a cassette's text ends with its `interactions`, in block style, so that items can follow."""
    tops = [line for line in text.splitlines() if line and not line[0].isspace() and not line.startswith("-")]
    return bool(tops) and tops[-1] == "interactions:"


def _items(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A cassette's interactions, each with its pacing moved in from the older layout's `metadata`."""
    pacing = _pacing(document)
    return [dict(item) | {PACING: pacing[i]} for i, item in enumerate(document["interactions"])]


def _pacing(document: Mapping[str, Any]) -> list[Any]:
    """Each interaction's pacing: its own `emulator_pacing`, else the older layout's list in `metadata`."""
    interactions = document["interactions"]
    older = (document.get("metadata") or {}).get(PACING) or []
    return [item.get(PACING, older[i] if i < len(older) else None) for i, item in enumerate(interactions)]


def _parts(item: Mapping[str, Any]) -> tuple[VcrRequest, Mapping[str, Any], Mapping[str, Any] | None]:
    """A stored interaction as vcrpy reads it: its request, its response (body as bytes) and its pacing."""
    response = compat.convert_to_bytes(copy.deepcopy(dict(item["response"])))
    return VcrRequest._from_dict(dict(item["request"])), response, item.get(PACING)


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

    def __init__(
        self, recordings: Iterable[Recording], readers: Mapping[str, Reader] = {}, scrubber: Scrubber | None = None
    ) -> None:
        self.scrubber = scrubber or Scrubber()
        self._warned: Recent[str, int] = Recent(10_000)  # conversations already warned of
        self.recordings: dict[tuple[str, str, str], Recording] = {}
        self.conversations: dict[str, tuple[Recording, Reply]] = {}
        # by the conversation with tool results' contents left out; None where two conversations share one
        self.sessions: dict[str, tuple[str, Recording, Reply] | None] = {}
        self.readers = readers
        for r in recordings:
            self.add(r)

    def add(self, r: Recording) -> None:
        """A recording more (its request scrubbed); one of the same request already held keeps answering it."""
        scrubbed = self.scrubber.body(r.request).decode()
        r = dataclasses.replace(r, request=scrubbed, key=match_key(scrubbed))
        self.recordings.setdefault((r.method, r.path, r.key), r)
        reader = self.readers.get(r.path)
        if reader and r.status == 200 and r.method == "POST":
            understood = _understood(reader, r)
            if understood:
                key, session, reply = understood
                self.conversations.setdefault(key, (r, reply))
                held = self.sessions.get(session, (key, r, reply))
                self.sessions[session] = held if held is not None and held[0] == key else None

    def answer(self, prompt: Prompt) -> tuple[Recording, Reply] | None:
        """The recording of the same conversation, in whatever dialect it was recorded, and what it said."""
        return self.conversations.get(prompt.conversation or conversation(prompt))

    def session(self, prompt: Prompt) -> tuple[Recording, Reply] | None:
        """The recording of the same conversation but for what its tools printed (an agent session replayed
        step by step), unless two recorded conversations are that alike: an ambiguous match is a miss."""
        found = self.sessions.get(loose(prompt)) if any(m.role == "tool" for m in prompt.messages) else None
        return (found[1], found[2]) if found else None

    def __len__(self) -> int:
        return len(self.recordings)

    def find(self, method: str, path: str, body: bytes) -> Recording | None:
        """The recording of this very request (scrubbed as the recordings are)."""
        return self.recordings.get((method.upper(), api_path(path), match_key(body, self.scrubber)))

    def nearest(self, method: str, path: str, body: bytes) -> tuple[Recording, list[str]] | None:
        """The recording a request that matched none was most likely meant to match, and where they differ
        (paths, the first one first): the same method and path first, then the longest run of the same
        messages or items from the start (the same conversation, so far), then the fewest differences."""
        return self._nearest(method, path, _parsed(match_key(body, self.scrubber)))

    def _nearest(self, method: str, path: str, wanted: Any) -> tuple[Recording, list[str]] | None:
        where = (method.upper(), api_path(path))
        best: tuple[tuple[int, int, int], Recording, list[str]] | None = None
        for (rec_method, rec_path, _), recording in self.recordings.items():
            route = [
                name for name, differ in (("method", rec_method != where[0]), ("path", rec_path != where[1])) if differ
            ]
            held = _parsed(recording.key)
            body_differs = _differences(held, wanted, "body")
            score = (len(route), -_shared_turns(held, wanted), len(body_differs))
            if best is None or score < best[0]:
                best = (score, recording, route + _first_in_turns(body_differs))
        return (best[1], best[2]) if best else None

    def warn_once(self, conversation: str, nearest: str | None) -> None:
        """Log, once per conversation, that a request fell through to the default while recordings are loaded."""
        if conversation in self._warned:
            return
        self._warned.count(conversation)
        _log.warning("no recording matches a request; the default answers it. The nearest is %s", nearest)

    def nearest_words(self, method: str, path: str, body: bytes) -> str | None:
        """`nearest` in words: which recording, the first path that differs with both values, the others."""
        wanted = _parsed(match_key(body, self.scrubber))
        nearest = self._nearest(method, path, wanted)
        if nearest is None:
            return None
        recording, differs = nearest
        text = f"{recording.source}, which differs in "
        if differs and differs[0].startswith("body"):
            held, asked = _at(_parsed(recording.key), differs[0]), _at(wanted, differs[0])
            text += f"{differs[0]}: {_short(held)} vs {_short(asked)}"
        else:
            text += differs[0] if differs else "nothing (it is not understood)"
        rest = differs[1:6]
        more = f" and {len(differs) - 6} more" if len(differs) > 6 else ""
        return text + (f"; also {', '.join(rest)}{more}" if rest else "")


def _turns(body: Any) -> list[Any]:
    """A body's conversation: Chat's and Messages' `messages`, Responses' `input` (a list)."""
    if not isinstance(body, dict):
        return []
    turns = body.get("messages", body.get("input"))
    return turns if isinstance(turns, list) else []


def _shared_turns(held: Any, asked: Any) -> int:
    """How many messages or items two bodies share from the start."""
    count = 0
    for a, b in zip(_turns(held), _turns(asked), strict=False):
        if a != b:
            break
        count += 1
    return count


def _first_in_turns(differs: list[str]) -> list[str]:
    """The differing paths with those inside the conversation first, in order: the first differing message is
    what a reader wants to see (the rest follow in key order)."""

    def place(path: str) -> tuple[int, int]:
        for key in (".messages[", ".input["):
            if key in path:
                index = path.split(key, 1)[1].split("]", 1)[0]
                return (0, int(index)) if index.isdigit() else (0, 0)
        return (1, 0)

    return sorted(differs, key=place)


def _at(value: Any, path: str) -> Any:
    """The value at a `body.messages[3].content` path, or None where there is none."""
    for part in path.replace("[", ".[").split(".")[1:]:
        if part.startswith("[") and isinstance(value, list):
            index = int(part[1:-1])
            value = value[index] if index < len(value) else None
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return json.dumps(text[:24] + "…" if len(text) > 24 else text, ensure_ascii=False)


def _understood(reader: Reader, recording: Recording) -> tuple[str, str, Reply] | None:
    """A recording's conversation key, that key without its tool results' contents, and its answer; None when
    its request or answer cannot be read back."""
    try:
        prompt = reader.parse_request(loads(recording.request.encode()), {})
        stream = "text/event-stream" in recording.headers.get("content-type", "")
        return conversation(prompt), loose(prompt), reader.read_response(recording.body, stream)
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
    nearest = library.nearest_words(method, path, body)
    if nearest is None:
        return NotFound("No recording matches this request, and none are loaded.", code="recording_not_found")
    return NotFound(
        f"No recording matches this request (replay only). The nearest is {nearest}.", code="recording_not_found"
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
    if isinstance(recorded, list) and isinstance(asked, list):  # item by item; then the first one past the shorter
        found = [
            d for i, (r, a) in enumerate(zip(recorded, asked, strict=False)) for d in _differences(r, a, f"{at}[{i}]")
        ]
        return found + ([f"{at}[{min(len(recorded), len(asked))}]"] if len(recorded) != len(asked) else [])
    return [] if recorded == asked else [at]


class CassetteError(ValueError):
    """Cassettes are malformed; the message has one line per mistake: the file, the key path, what is wrong."""


def load(paths: Sequence[Path], readers: Mapping[str, Reader] = {}, scrubber: Scrubber | None = None) -> Library:
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
    scrubs = list(scrubber.scrubs if scrubber else DEFAULT_SCRUBS)
    for file in files:
        try:
            document = _document_of(file)
        except CassetteError as exc:
            problems.append(str(exc))
            continue
        found += _read(file, document)
        scrubs += [(s["pattern"], s["replace"]) for s in (document or {}).get(SCRUB_KEY) or []]
    if problems:
        raise CassetteError("\n".join(problems))
    return Library(found, readers, Scrubber(scrubs))


def read(file: Path) -> list[Recording]:
    """One cassette's interactions; the YAML is parsed once, checked, then handed to vcrpy's reader."""
    return _read(file, _document_of(file))


def _read(file: Path, document: Any) -> list[Recording]:
    if document is None:
        return []  # an empty file, as vcrpy sees it: nothing recorded yet
    requests, responses, *_ = deserialize(document, _Parsed)
    return list(_recordings(file.name, requests, responses, _pacing(document)))


def _document_of(file: Path) -> Any:
    """A cassette file's document, checked. A last interaction cut short (a recorder killed mid-write: the
    text does not parse, or only its last item is incomplete) is left out with a warning, the rest read."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteError(f"{file}: not a readable file: {exc}") from None
    try:
        return _checked(file, text)
    except CassetteError as whole:
        cut = text.rfind("\n- ")
        if cut < 0 or not _appendable(text[: cut + 1]) or not _cut_short(whole, text):
            raise
        try:
            document = _checked(file, text[: cut + 1])
        except CassetteError:
            raise whole from None
        _log.warning("%s: its last interaction is incomplete (cut short while written): left out", file)
        return document


def _checked(file: Path, text: str) -> Any:
    try:
        document = _document(text)
    except yamlfile.DocumentError as exc:
        raise CassetteError(f"{file}: not a readable YAML file: {exc}") from None
    if document is not None and (problems := list(cassette_problems(document))):
        raise CassetteError("\n".join(f"{file}: {p}" for p in problems))
    return document


def _cut_short(error: CassetteError, text: str) -> bool:
    """Whether an unreadable cassette looks cut short rather than written wrong: it does not parse, or its
    text stops mid-line, or every mistake is in its last interaction."""
    lines = str(error).splitlines()
    last = f"interactions[{text.count(chr(10) + '- ') - 1}]"
    return "not a readable YAML file" in lines[0] or not text.endswith("\n") or all(last in line for line in lines)


def is_cassette(document: Any) -> bool:
    """Whether a parsed YAML document means to be a cassette (and not, say, a scenario file)."""
    return isinstance(document, dict) and "interactions" in document


def is_cassette_file(file: Path) -> bool:
    """Whether a file means to be a cassette: YAML with `interactions` at the top (`emulator check` sorts by it)."""
    try:
        return is_cassette(_document(file.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, yamlfile.DocumentError):
        return False  # the scenario loader says what is wrong with it


def _document(text: str) -> Any:
    """A cassette's YAML, by vcrpy's safe cassette loader (which knows the few Python tags old cassettes
    hold), with the bounds of `yamlfile`."""
    return yamlfile.load(text, yamlserializer._CassetteLoader)


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
        if PACING in interaction:
            yield from _pacing_problems(interaction[PACING], f"{at}.{PACING}")
    scrubs = document.get(SCRUB_KEY) or []
    for i, scrub in enumerate(scrubs if isinstance(scrubs, list) else [scrubs]):
        at = f"{SCRUB_KEY}[{i}]" if isinstance(scrubs, list) else SCRUB_KEY
        if not (
            isinstance(scrub, dict) and isinstance(scrub.get("pattern"), str) and isinstance(scrub.get("replace"), str)
        ):
            yield f"{at}: expected a mapping of pattern and replace, two strings"
            continue
        try:
            re2.compile(scrub["pattern"])
        except re2.error:
            yield f"{at}.pattern: not a regular expression in RE2's syntax"
    metadata = document.get("metadata") or {}
    if not isinstance(metadata, dict):
        yield f"metadata: expected a mapping, got {_kind(metadata)}"
        return
    pacing = metadata.get(PACING) or []
    if not isinstance(pacing, list):
        yield f"metadata.{PACING}: expected a list, one entry per interaction, got {_kind(pacing)}"
        return
    for i, paced in enumerate(pacing):
        yield from _pacing_problems(paced, f"metadata.{PACING}[{i}]")


def _pacing_problems(paced: Any, at: str) -> Iterator[str]:
    if paced is not None and not isinstance(paced, dict):
        yield f"{at}: expected a mapping of headers_after and event_gaps, got {_kind(paced)}"
        return
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


def script(recording: Recording, speed: float, entry: int | None = None) -> Script:
    """A recorded answer as it was sent: its status and kept headers, then its body, SSE events with the
    recorded gaps scaled by `speed` (0: no pauses), or the whole body at once; its delivery completes the
    journal's `entry`."""
    headers = recording.headers | {"x-emulator-source": f"recording {recording.source}", MATCH_HEADER: "exact"}
    latency = recording.headers_after * speed
    if "text/event-stream" not in headers.get("content-type", ""):
        headers["content-length"] = str(len(recording.body))
        return Script([recording.body], recording.status, raw(headers), latency, entry=entry)
    pieces = [p + b"\n\n" for p in recording.body.split(b"\n\n")]
    pieces[-1] = pieces[-1][:-2]
    steps: list[Step] = []
    for i, piece in enumerate(p for p in pieces if p):
        gap = recording.event_gaps[i] * speed if i < len(recording.event_gaps) else 0.0
        steps += [Pause(gap), piece] if gap > 0 else [piece]
    return Script(steps, recording.status, raw(headers), latency, entry=entry)
