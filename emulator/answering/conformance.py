"""`emulator conform`, pure: whether the emulator's own answer to a recorded request looks like the recorded
one. The recorded answer is read back into the emulator's terms (the dialect's `read_response`: text,
reasoning, tool calls, usage, finish reason), rendered afresh by the emulator under the recording's profile,
streamed as recorded, and the two are compared by `recordings.shapes`. Only shape can differ, never content:
a difference is the emulator's fidelity gap, or the provider's news. The recorded request meets the server's
own checks first, so one the profile refuses is answered (and reported) with its refusal; a recorded error is
compared with the emulator's refusal, or with the same status as a scripted fault renders it.

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

from emulator.answering import compose
from emulator.answering.reading import ENDPOINT_NAMES, placing
from emulator.core import ids
from emulator.core.conversation import Fault, Prompt, Reply, Turn
from emulator.core.errors import EmulatorError, InvalidRequest, UpstreamError
from emulator.core.sse import encode, loads
from emulator.core.wire import Whole
from emulator.dialects import (
    Dialect,
    anthropic_messages,
    openai_chat,
    openai_completions,
    openai_embeddings,
    openai_responses,
    operations,
)
from emulator.dialects.error_bodies import error_answer, google_method, retry_headers
from emulator.dialects.ollama import chat as ollama_chat
from emulator.dialects.ollama import embed as ollama_embed
from emulator.dialects.ollama import generate as ollama_generate
from emulator.recordings import api_path
from emulator.recordings.cassette import items
from emulator.recordings.shapes import Difference, Shape, compare, shape_of
from emulator.recordings.vcr_format import parts
from emulator.rules import catalog, limits, profiles, validation

PROFILE_KEY = "emulator_profile"  # in a recorded response: the profile it was recorded under
# The public upstreams, by host: what a recording made against one of them was made under.
HOSTS = {"api.openai.com": "openai", "api.anthropic.com": "anthropic", "generativelanguage.googleapis.com": "gemini"}
DIALECTS: dict[str, Dialect] = {
    "/v1/chat/completions": openai_chat,
    "/v1/responses": openai_responses,
    "/v1/messages": anthropic_messages,
    "/v1/embeddings": openai_embeddings,
    "/v1/completions": openai_completions,
    "/openai/responses": openai_responses,  # Azure's
    "/api/chat": ollama_chat,
    "/api/generate": ollama_generate,
    "/api/embed": ollama_embed,
    "/api/embeddings": ollama_embed,
}
DEPLOYED = {"chat/completions": openai_chat, "embeddings": openai_embeddings, "completions": openai_completions}
JSON = "application/json"
STREAMS = ("text/event-stream", "application/x-ndjson", "application/vnd.amazon.eventstream")


def dialect_of(path: str) -> Dialect | None:
    """The dialect of a recorded path (its query aside), Azure's deployment paths (`/openai/deployments/NAME/…`)
    included; None for a path that answers nothing."""
    path = path.partition("?")[0]
    if profiles.DEPLOYMENTS in path:
        return DEPLOYED.get(path.split(profiles.DEPLOYMENTS, 1)[1].partition("/")[2])
    if path.startswith("/model/"):  # Bedrock's `/model/{modelId}/{operation}`
        return operations.BEDROCK.get(path.rpartition("/")[2])
    if google_method(path):  # Google's `…/models/{model}:{method}`
        model, _, method = path.rpartition("/")[2].partition(":")
        return None if model == "count-tokens" else operations.GOOGLE.get(method)
    return DIALECTS.get(path)


def noted_profile(client_path: str, upstream: str) -> str | None:
    """The profile a recorder notes for an interaction: the upstream's own profile prefix (`http://host/infercom`),
    else the public upstream its host is (`api.openai.com`: openai), else the prefix the client used
    (`/anthropic/v1/…`); None when none of them says."""
    parsed = urllib.parse.urlsplit(upstream)
    prefix = _prefix(parsed.path + "/v1/")
    return prefix or HOSTS.get(parsed.hostname or "") or _family(parsed.hostname or "", client_path)


def _family(host: str, path: str) -> str | None:
    """The profile a host or a path says: Azure's (`RESOURCE.openai.azure.com`, a deployment path), Bedrock's (its
    hosts, `/model/…`), Vertex's (its hosts, a publisher's path), Ollama's (`/api/…`), Gemini's (a method on a
    model), a profile prefix (`/anthropic/v1/…`)."""
    if host.endswith(".openai.azure.com") or profiles.DEPLOYMENTS in path:
        return "azure"
    if host.startswith("bedrock-runtime.") or api_path(path).startswith("/model/"):
        return "bedrock"
    if host.endswith("aiplatform.googleapis.com") or "/publishers/" in path:  # regional hosts: `{region}-aiplatform…`
        return "vertex"
    if api_path(path).startswith("/api/"):
        return "ollama"
    if google_method(path):  # `…/models/{model}:generateContent`
        return "gemini"
    return _prefix(path)


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
        return self.headers.get("content-type", "").startswith(STREAMS)

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
            answer=answer.encode() if isinstance(answer := response["body"]["string"], str) else answer,
            profile=profile if isinstance(profile, str) else _noted(request.uri),
        )


def _noted(uri: str) -> str | None:
    """The profile a recorded URI says, when the recorder noted none."""
    parsed = urllib.parse.urlsplit(uri)
    return (
        noted_profile(parsed.path, uri.partition("/v1/")[0])
        if "/v1/" in uri
        else _family(parsed.hostname or "", parsed.path)
    )


def rendered(interaction: Interaction, profile_name: str) -> tuple[int, dict[str, str], bytes]:
    """The emulator's own answer to a recorded request, saying what the recording said: status, headers, body
    (streamed if the recording was). A request the profile refuses (the public profiles' catalog checks, then
    the dialect's parser, as the server applies them) gets the emulator's refusal; a recorded error status the
    emulator would not refuse of itself gets that status as a scripted fault renders it, with the recorded
    message. `ValueError` when there is nothing to render (another endpoint, a 200 that cannot be read back)."""
    dialect = dialect_of(interaction.path)
    if dialect is None:
        raise ValueError(f"not an answering endpoint: {interaction.method} {interaction.path}")
    profile = profiles.PROFILES[profile_name]
    fingerprint = ids.digest(interaction.path, interaction.body)
    try:
        prompt = _accepted(dialect, interaction, profile_name, fingerprint)
    except EmulatorError as refused:
        return _whole(error_answer(dialect, refused, fingerprint, profile=profile))
    if interaction.status != 200:
        return _scripted(dialect, interaction, profile, prompt, fingerprint)
    reply = dialect.read_response(interaction.answer, interaction.stream)
    if not reply.reasoning and (reply.usage or {}).get("reasoning_tokens"):
        # Reasoning the provider hid (OpenAI shows none unless a summary is asked): its tokens say there was
        # some, and an answer that reasoned has a reasoning item. Its words are never shown, so any will do.
        reply = dataclasses.replace(reply, reasoning="(hidden)")
    turn = compose.finish(prompt, reply, created=0, source="conform")
    headers = _answer_headers(dialect, profile, turn, fingerprint)
    if interaction.stream:
        headers |= dialect.STREAM_HEADERS
        return 200, headers, b"".join(dialect.render_stream(prompt, turn))
    return 200, headers | {"content-type": JSON}, encode(dialect.render(prompt, turn))


def refusal(interaction: Interaction, profile_name: str) -> str | None:
    """Why the profile refuses a recorded request, in its own words; None when it takes it (or the endpoint is
    none that answers)."""
    dialect = dialect_of(interaction.path)
    if dialect is None:
        return None
    try:
        _accepted(dialect, interaction, profile_name, ids.digest(interaction.path, interaction.body))
    except EmulatorError as refused:
        return f"{refused.status} {refused.message}"
    return None


def _accepted(dialect: Dialect, interaction: Interaction, profile_name: str, fingerprint: str) -> Prompt:
    """The recorded request as the server reads it under `profile_name`: the public profiles' checks of the
    body, the dialect's parser, then the model's (unknown to the catalog: the provider's 404). Raises the
    refusal, as the server answers it."""
    held = catalog.catalog(profile_name)
    endpoint = validation.checked_as(dialect.NAME, ENDPOINT_NAMES[dialect.NAME], profile_name)
    path = interaction.path.partition("?")[0]
    try:
        body = loads(interaction.body)
    except ValueError:
        raise InvalidRequest("The request body is not valid JSON.") from None
    deployments = profiles.PROFILES[profile_name].deployments
    place = placing(dialect, profiles.PROFILES[profile_name])
    if place is not None:  # what the path says: Azure's deployment, Gemini's model
        body = place(path, body)
    if held is not None:
        validation.body(held, endpoint, body, interaction.request_headers, lenient=False)
    prompt = dialect.parse_request(body, interaction.request_headers, fingerprint, profile_name)
    if held is not None:
        model = held.get(prompt.model)
        if model is None and not deployments:  # an Azure deployment of some model is not the catalog's to know
            raise validation.unknown_model(endpoint, prompt.model, path)
        if model is not None:
            validation.parameters(endpoint, model, body, prompt, path)
    return prompt


def _scripted(
    dialect: Dialect, interaction: Interaction, profile: profiles.Profile, prompt: Prompt, fingerprint: str
) -> tuple[int, dict[str, str], bytes]:
    """A recorded error the request did not earn: the emulator's answer to a fault of that status (as
    `fault: {status: N}` scripts it), with the recorded message and retry advice, and the rate-limit headers
    every answer carries."""
    status = interaction.status
    retry = interaction.headers.get("retry-after")
    fault = Fault(
        kind="status",
        status=status,
        message=_message(interaction.answer) or profile.error_messages.get(status),
        retry_after=float(retry) if retry and retry.replace(".", "", 1).isdigit() else None,
        should_retry={"true": True, "false": False}.get(interaction.headers.get("x-should-retry", "")),
    )
    turn = compose.finish(prompt, Reply(), created=0, source="conform")
    headers = _answer_headers(dialect, profile, turn, fingerprint) | retry_headers(fault)
    return _whole(error_answer(dialect, UpstreamError.of(fault), fingerprint, headers, profile))


def _message(body: bytes) -> str | None:
    """The message of a recorded error body: OpenAI's and Anthropic's `error.message`, Infercom's `error`
    string, or its plain text."""
    try:
        document = loads(body)
    except ValueError:
        return body.decode("utf-8", "replace").strip() or None
    error = document.get("error") if isinstance(document, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return error if isinstance(error, str) else None


def _answer_headers(dialect: Dialect, profile: profiles.Profile, turn: Turn, fingerprint: str) -> dict[str, str]:
    """The headers every answer of the profile carries, a scripted error's too: the request's id, the
    profile's own (OpenAI's version and processing time), and the rate-limit headers the default limits
    report, in the dialect's or the profile's names."""
    headers = profiles.request_id(profile, dialect.NAME, fingerprint)
    headers |= profiles.answer_headers(profile, turn) if profile.headers or profile.processing_ms else {}
    if profile.rate_headers == "none":  # Ollama, Google and Vertex report no limits
        return headers
    flavor = "anthropic" if dialect.NAME == profiles.MESSAGES else profile.rate_headers
    reported = limits.Limiter(limits.DEFAULT).report(("", ""), turn.usage.total_tokens, 0.0, flavor)
    return headers | {name.decode(): value.decode() for name, value in reported}


def _whole(answered: Whole) -> tuple[int, dict[str, str], bytes]:
    return answered.status, {k.decode(): v.decode() for k, v in answered.headers}, answered.body


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
