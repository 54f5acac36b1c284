"""The recorder's SigV4 (emulator/recordings/sigv4.py) against botocore's as the oracle: the same signature for the
same request, whatever its path, query, body, region, service and session token; and the recorder signs a
forwarded Bedrock request again, with the operator's keys, for a stand-in upstream that checks it as AWS does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.http import recorder
from emulator.recordings import sigv4
from tests.conftest import Server, serve_app
from tests.test_bedrock import runtime

NOW = datetime(2026, 12, 7, 14, 30, 5, tzinfo=UTC)


def botocore_signature(
    method: str,
    url: str,
    headers: dict[str, str],
    body: bytes,
    keys: tuple[str, str, str],
    region: str,
    service: str,
    stamp: str,
) -> str:
    """botocore's `Authorization` for a request signed at `stamp` (its signer's clock set to it)."""
    request = AWSRequest(method=method, url=url, data=body, headers=headers)
    request.context["timestamp"] = stamp
    signer = SigV4Auth(Credentials(*keys), service, region)
    request.headers["X-Amz-Date"] = stamp
    if keys[2]:
        request.headers["X-Amz-Security-Token"] = keys[2]
    canonical = signer.canonical_request(request)
    signature = signer.signature(signer.string_to_sign(request, canonical), request)
    names = signer.signed_headers(signer.headers_to_sign(request))
    scope = f"{stamp[:8]}/{region}/{service}/aws4_request"
    return f"AWS4-HMAC-SHA256 Credential={keys[0]}/{scope}, SignedHeaders={names}, Signature={signature}"


# A path's segments as the recorder forwards them: normalized, with no `.` or `..` (it refuses those).
segment = st.text(
    st.characters(codec="ascii", categories=("L", "N"), include_characters="-._:~%"), min_size=1, max_size=12
).filter(lambda s: s not in (".", ".."))


@settings(max_examples=150, deadline=None)
@given(
    path=st.lists(segment, min_size=1, max_size=4).map(lambda parts: "/" + "/".join(parts)),
    query=st.lists(st.tuples(segment, st.text(max_size=6)), max_size=3),
    body=st.binary(max_size=64),
    region=st.sampled_from(["us-east-1", "eu-west-3", "ap-southeast-2"]),
    service=st.sampled_from(["bedrock", "execute-api"]),
    token=st.sampled_from(["", "FwoGZXIvYXdzEBYaD"]),
)
def test_a_signature_is_botocores(
    path: str, query: list[tuple[str, str]], body: bytes, region: str, service: str, token: str
) -> None:
    from urllib.parse import quote, urlencode

    url = f"https://bedrock-runtime.{region}.amazonaws.com{quote(path, safe='/:~%')}"
    if query:
        url += "?" + urlencode(query, quote_via=quote)
    keys = ("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token)
    headers = {"Content-Type": "application/json", "User-Agent": "x"}
    ours = dict(sigv4.sign("POST", url, list(headers.items()), body, keys, region, service, NOW))
    theirs = botocore_signature("POST", url, headers, body, keys, region, service, NOW.strftime("%Y%m%dT%H%M%SZ"))
    assert ours["authorization"] == theirs


def test_what_a_signature_names_and_the_operators_keys() -> None:
    signed = (
        "AWS4-HMAC-SHA256 Credential=AKID/20261207/eu-central-1/bedrock/aws4_request, SignedHeaders=host, Signature=0"
    )
    assert sigv4.scope_of(signed) == ("eu-central-1", "bedrock")
    assert sigv4.scope_of("Bearer abc") is None
    assert sigv4.credentials({}) is None
    environ = {"AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_SESSION_TOKEN": "T"}
    assert sigv4.credentials(environ) == ("AK", "SK", "T")


OPERATOR = ("AKIDOPERATOR", "operator-secret-never-written", "")


class CheckingUpstream:
    """An upstream that checks a request's SigV4 signature as AWS does (botocore recomputing it with the
    operator's keys, for its own host): 403 for a wrong one, else a Converse answer."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        self.seen.append(headers.get("authorization", ""))
        raw = scope["raw_path"].decode()
        url = f"http://{headers['host']}{raw}" + (f"?{scope['query_string'].decode()}" if scope["query_string"] else "")
        given_scope = sigv4.scope_of(headers.get("authorization", ""))
        kept = {k: v for k, v in headers.items() if k in ("content-type",)}
        expected = botocore_signature(
            "POST",
            url,
            kept | {"host": headers["host"]},
            body,
            OPERATOR,
            *(given_scope or ("?", "?")),
            headers.get("x-amz-date", ""),
        )
        ok = headers.get("authorization") == expected
        answer = {
            "output": {"message": {"role": "assistant", "content": [{"text": "signed by the operator"}]}},
            "stopReason": "end_turn",
            "usage": {"inputTokens": 3, "outputTokens": 4, "totalTokens": 7},
            "metrics": {"latencyMs": 10},
        }
        sent = json.dumps(answer if ok else {"message": "The request signature we calculated does not match"})
        await send(
            {
                "type": "http.response.start",
                "status": 200 if ok else 403,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": sent.encode()})


@pytest.fixture
def checking(tmp_path: Path) -> Iterator[tuple[CheckingUpstream, Server, Path]]:
    upstream = CheckingUpstream()
    cassette = tmp_path / "bedrock.yaml"
    running = serve_app(upstream)
    server = next(running)
    proxy = serve_app(recorder.Recorder(server.base_url, cassette, "all"), lifespan=True)
    yield upstream, next(proxy), cassette
    next(proxy, None)
    next(running, None)


def test_the_recorder_signs_a_bedrock_request_again_with_the_operators_keys(
    checking: tuple[CheckingUpstream, Server, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    upstream, proxy, cassette = checking
    client = runtime(proxy, region="eu-west-3")
    arn = "arn:aws:bedrock:eu-west-3:123456789012:inference-profile/eu.anthropic.claude-v1:0"
    asked = [{"role": "user", "content": [{"text": "hi"}]}]
    monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    with closing(client), pytest.raises(Exception, match="signature"):
        client.converse(modelId=arn, messages=asked)  # unsigned again: the upstream refuses the client's signature
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", OPERATOR[0])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", OPERATOR[1])
    client = runtime(proxy, region="eu-west-3")
    with closing(client):
        answer = client.converse(modelId=arn, messages=asked)
    assert answer["output"]["message"]["content"][0]["text"] == "signed by the operator"
    assert "Credential=AKIDOPERATOR/" in upstream.seen[-1] and "/eu-west-3/bedrock/" in upstream.seen[-1]
    written = cassette.read_text()
    assert OPERATOR[1] not in written and "AKIDOPERATOR" not in written and "Signature=" not in written
