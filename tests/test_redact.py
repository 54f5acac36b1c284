"""The secrets in a client's request, and their redaction from a body without breaking it."""

from __future__ import annotations

import base64
import json

from emulator.recordings import redact


def test_a_credential_header_counts_whole_after_its_scheme_and_decoded() -> None:
    basic = base64.b64encode(b"alice:pa55word-long").decode()
    found = redact.secrets([("Authorization", f"basic {basic}"), ("X-Api-Key", "sk-other-0001")])
    assert {basic, f"basic {basic}", "alice:pa55word-long", "pa55word-long", "sk-other-0001"} <= found


def test_cookies_are_secrets_when_long_or_named_like_one() -> None:
    found = redact.secrets(
        [("cookie", 'consent=true; theme=dark; lang=en-GB; csrftoken=ab12; sid="quoted-value"'), ("cookie", "x=1")]
    )
    assert found == {"ab12", "quoted-value"}  # short, plainly named values are too common to replace
    found = redact.secrets([("cookie", "prefs=a%2Fb%3Dlonger")])
    assert found == {"a%2Fb%3Dlonger", "a/b=longer"}  # as sent, and as a server decodes it


def test_query_keys_and_the_environment_are_secrets() -> None:
    found = redact.secrets([], "model=x&key=qk-0001&API_KEY=qk-0002&other=visible", ["env-key-1", ""])
    assert found == {"qk-0001", "qk-0002", "env-key-1"}


def test_inside_json_only_strings_change_and_escaped_forms_go_too() -> None:
    secret = 'tok/en"12345678'  # with a slash and a quote, as JSON escapes them
    body = json.dumps({"echo": secret, "n": 12345678, "flag": True})[:-1] + ', "url": "atok\\/en\\"12345678"}'
    out = redact.body(body, {secret, "12345678"})
    assert json.loads(out) == {"echo": "REDACTED", "n": 12345678, "flag": True, "url": "aREDACTED"}


def test_a_stream_is_redacted_event_by_event_and_other_text_everywhere() -> None:
    stream = 'event: x\ndata: {"v": "sk-1234 true"}\n\ndata: sk-1234\n\ndata: [DONE]\n\n'
    out = redact.body(stream, {"sk-1234", "true"}, "text/event-stream")
    assert out == 'event: x\ndata: {"v": "REDACTED REDACTED"}\n\ndata: REDACTED\n\ndata: [DONE]\n\n'
    assert redact.body("key=sk-1234&x=1", {"sk-1234"}, "application/x-www-form-urlencoded") == "key=REDACTED&x=1"
    assert redact.text("Bearer sk-1234", {"sk-1234", "Bearer sk-1234"}) == "REDACTED"  # the longest first
