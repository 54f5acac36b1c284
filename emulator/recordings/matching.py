"""What matching compares of a request: its path from `/v1/` on and its body's JSON without the volatile
fields, scrubbed as the cassettes are.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from emulator.recordings.scrub import Scrubber, text_of

# Top-level request fields that do not change the answer, so matching ignores them.
VOLATILE_FIELDS = ("user", "metadata", "prompt_cache_key", "client_metadata", "safety_identifier")


def match_key(body: bytes | str | None, scrubber: Scrubber | None = None) -> str:
    """What matching compares of a body: its JSON with the volatile fields removed (and `stream: false`,
    which is the default), keys sorted, its strings scrubbed by `scrubber`; a body that is not JSON, as it is
    (scrubbed). One parse, one dump: it runs for every request replay sees."""
    text = text_of(body)
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


# Where an API's path starts: OpenAI's and Anthropic's (and Gemini's v1), Azure's, Ollama's, Gemini's and Vertex's,
# Bedrock's.
API_MARKS = ("/v1/", "/openai/", "/api/", "/v1beta/", "/v1alpha/", "/v1beta1/", "/model/")


def api_path(uri: str) -> str:
    """The path from `/v1/` on (Azure's from `/openai/`, Ollama's from `/api/`), without query: a profile prefix,
    a test's scope or an upstream base path aside."""
    path = urlsplit(uri).path
    for mark in API_MARKS:
        at = path.find(mark)
        if at >= 0:
            return path[at:]
    return path
