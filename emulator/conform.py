"""`emulator conform`, pure: whether the emulator's own answer to a recorded request looks like the recorded
one. The recorded answer is read back into the emulator's terms (the dialect's `read_response`: text,
reasoning, tool calls, usage, finish reason), rendered afresh by the emulator under the recording's profile,
streamed as recorded, and the two are compared by `recordings.shapes`. Only shape can differ, never content:
a difference is the emulator's fidelity gap, or the provider's news.

Also here: the profile a recording was made under (`noted_profile`), which the recorder notes with each
interaction it writes (`PROFILE_KEY`), and the interactions of a cassette document as both `conform` and
`drift` read them.
"""

from __future__ import annotations

import dataclasses
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from emulator import answer, ids, limits, profiles
from emulator.dialects import Dialect, anthropic_messages, openai_chat, openai_responses
from emulator.errors import EmulatorError
from emulator.recordings import api_path
from emulator.recordings.cassette import items
from emulator.recordings.shapes import Difference, Shape, compare, shape_of
from emulator.recordings.vcr_format import parts
from emulator.sse import encode, loads

PROFILE_KEY = "emulator_profile"  # in a recorded response: the profile it was recorded under
# The public upstreams, by host: what a recording made against one of them was made under.
HOSTS = {"api.openai.com": "openai", "api.anthropic.com": "anthropic"}
DIALECTS: dict[str, Dialect] = {
    "/v1/chat/completions": openai_chat,
    "/v1/responses": openai_responses,
    "/v1/messages": anthropic_messages,
}
JSON = "application/json"
EVENT_STREAM = "text/event-stream; charset=utf-8"


def noted_profile(client_path: str, upstream: str) -> str | None:
    """The profile a recorder notes for an interaction: the upstream's own profile prefix (`http://host/infercom`),
    else the public upstream its host is (`api.openai.com`: openai), else the prefix the client used
    (`/anthropic/v1/…`); None when none of them says."""
    parsed = urllib.parse.urlsplit(upstream)
    prefix = _prefix(parsed.path + "/v1/")
    return prefix or HOSTS.get(parsed.hostname or "") or _prefix(client_path)


def _prefix(path: str) -> str | None:
    prefix = path.partition("/v1/")[0].strip("/")
    return prefix if prefix in profiles.PROFILES else None


@dataclass(frozen=True, slots=True)
class Interaction:
    """One recorded exchange, as `conform` and `drift` read it."""

    source: str  # `FILE#N`
    method: str
    uri: str
    path: str  # from /v1/ on, with its query
    body: bytes  # the request body as recorded
    request_headers: dict[str, str]
    status: int
    headers: dict[str, str]  # the response headers the cassette kept
    answer: bytes
    profile: str | None  # as the recorder noted it, else as the upstream's host says

    @property
    def stream(self) -> bool:
        return "text/event-stream" in self.headers.get("content-type", "")

    def shape(self) -> Shape:
        return shape_of(self.status, self.headers, self.answer)


def interactions(name: str, document: Any) -> Iterator[Interaction]:
    """A checked cassette document's interactions, named `NAME#N`."""
    for i, item in enumerate(items(document) if document else ()):
        request, response, _ = parts(item)
        body = request.body or b""
        kept = {k.lower(): v[0] for k, v in response["headers"].items() if v}
        profile = item["response"].get(PROFILE_KEY)
        yield Interaction(
            source=f"{name}#{i}",
            method=request.method.upper(),
            uri=request.uri,
            path=api_path(request.uri),
            body=body.encode() if isinstance(body, str) else body,
            request_headers={k.lower(): str(v) for k, v in request.headers.items()},
            status=int(response["status"]["code"]),
            headers=kept,
            answer=response["body"]["string"],
            profile=profile if isinstance(profile, str) else noted_profile("", request.uri.partition("/v1/")[0]),
        )


def rendered(interaction: Interaction, profile_name: str) -> tuple[int, dict[str, str], bytes]:
    """The emulator's own answer to a recorded request, saying what the recording said: status, headers,
    body (streamed if the recording was). `ValueError` when the recording is not an answer the emulator can
    read back (an error, another endpoint, a stream cut short)."""
    dialect = DIALECTS.get(interaction.path.partition("?")[0])
    if dialect is None:
        raise ValueError(f"not an answering endpoint: {interaction.method} {interaction.path}")
    if interaction.status != 200:
        raise ValueError(f"an error answer (status {interaction.status}): nothing to render afresh")
    profile = profiles.PROFILES[profile_name]
    reply = dialect.read_response(interaction.answer, interaction.stream)
    if not reply.reasoning and (reply.usage or {}).get("reasoning_tokens"):
        # Reasoning the provider hid (OpenAI shows none unless a summary is asked): its tokens say there was
        # some, and an answer that reasoned has a reasoning item. Its words are never shown, so any will do.
        reply = dataclasses.replace(reply, reasoning="(hidden)")
    fingerprint = ids.digest(interaction.path, interaction.body)
    try:
        prompt = dialect.parse_request(loads(interaction.body), interaction.request_headers, fingerprint, profile_name)
    except EmulatorError as exc:
        raise ValueError(f"the recorded request is one the {profile_name} profile refuses: {exc}") from None
    turn = answer.finish(prompt, reply, created=0, source="conform")
    headers = profiles.request_id(profile, dialect.NAME, fingerprint)
    headers |= profiles.answer_headers(profile, turn) if profile.headers or profile.processing_ms else {}
    flavor = "anthropic" if dialect.NAME == profiles.MESSAGES else profile.rate_headers
    for name, value in limits.Limiter(limits.DEFAULT).report(("", ""), turn.usage.total_tokens, 0.0, flavor):
        headers[name.decode()] = value.decode()
    if interaction.stream:
        headers |= {"content-type": EVENT_STREAM, "cache-control": "no-cache"}
        return 200, headers, b"".join(dialect.render_stream(prompt, turn))
    return 200, headers | {"content-type": JSON}, encode(dialect.render(prompt, turn))


def conform(interaction: Interaction, profile_name: str) -> list[Difference]:
    """Where the emulator's own answer (`rendered`) parts from the recorded one, the recording's side as
    `recorded` and the emulator's as `live`."""
    return compare(interaction.shape(), shape_of(*rendered(interaction, profile_name)))


def profile_for(interaction: Interaction, asked: str | None) -> str | None:
    """The profile to render under: the one the recording was made under, else the one asked for."""
    return interaction.profile if interaction.profile in profiles.PROFILES else asked


def as_json(source: str, differences: list[Difference] | None, note: str = "") -> Mapping[str, Any]:
    """One interaction's line of the `--json` report."""
    found = [d.as_dict() for d in differences or ()]
    return {"interaction": source, "same": differences == [], "differences": found, "note": note}
