"""AWS Signature Version 4, to sign a request again for the host it is forwarded to: a SigV4 signature covers the
`host` header, so the signature a client made for the recorder is refused by AWS. The recorder signs each forwarded
request with the operator's credentials from its own environment (never the client's; never written anywhere),
in the region and for the service the client's signature named. Pure: the time is given.

The canonical request is the one botocore builds for a service other than S3: the path as sent (normalized: the
recorder forwards none with `.` or `..` segments), percent-encoded once more; the query's pairs sorted as sent; the
signed headers' names lower-cased and sorted with their values trimmed; the body's SHA-256."""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from urllib.parse import quote, urlsplit

ALGORITHM = "AWS4-HMAC-SHA256"
# The client's own signature's scope: which region and service to sign for.
SCOPE = re.compile(r"AWS4-HMAC-SHA256 Credential=[^/\s,]+/\d{8}/([\w-]+)/([\w-]+)/aws4_request")
# What a signed request carries of its signature, dropped before it is signed again.
SIGNATURE_HEADERS = ("authorization", "x-amz-date", "x-amz-security-token", "x-amz-content-sha256")
SIGNED = ("content-type", "host", "x-amz-date", "x-amz-security-token")  # the headers a new signature covers


def credentials(environ: Mapping[str, str] = os.environ) -> tuple[str, str, str] | None:
    """The operator's access key id, secret key and session token (or ""), from the environment; None without."""
    key, secret = environ.get("AWS_ACCESS_KEY_ID", ""), environ.get("AWS_SECRET_ACCESS_KEY", "")
    return (key, secret, environ.get("AWS_SESSION_TOKEN", "")) if key and secret else None


def scope_of(authorization: str) -> tuple[str, str] | None:
    """The region and service a SigV4 `Authorization` header signed for; None for any other header."""
    found = SCOPE.match(authorization.strip())
    return (found[1], found[2]) if found else None


def sign(
    method: str,
    url: str,
    headers: Iterable[tuple[str, str]],
    body: bytes,
    credentials: tuple[str, str, str],
    region: str,
    service: str,
    now: datetime,
) -> list[tuple[str, str]]:
    """`headers` without the signature they carried, with a new one for `url` (`now` in UTC)."""
    key, secret, token = credentials
    parts = urlsplit(url)
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    kept = [(k, v) for k, v in headers if k.lower() not in (*SIGNATURE_HEADERS, "host")]
    kept += [("host", parts.netloc), ("x-amz-date", stamp)] + ([("x-amz-security-token", token)] if token else [])
    covered = sorted((k.lower(), " ".join(v.split())) for k, v in kept if k.lower() in SIGNED)
    names = ";".join(name for name, _ in covered)
    # The pairs as sent (already percent-encoded), sorted as they are: botocore's order, and so AWS's.
    query = "&".join(f"{k}={v}" for k, _, v in sorted(p.partition("=") for p in parts.query.split("&") if p))
    canonical = "\n".join(
        [
            method.upper(),
            quote(parts.path or "/", safe="/~"),
            query,
            "".join(f"{name}:{value}\n" for name, value in covered),
            names,
            hashlib.sha256(body).hexdigest(),
        ]
    )
    scope = f"{day}/{region}/{service}/aws4_request"
    to_sign = "\n".join([ALGORITHM, stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    signing = f"AWS4{secret}".encode()
    for part in (day, region, service, "aws4_request"):
        signing = hmac.new(signing, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(signing, to_sign.encode(), hashlib.sha256).hexdigest()
    authorization = f"{ALGORITHM} Credential={key}/{scope}, SignedHeaders={names}, Signature={signature}"
    return [(k, v) for k, v in kept if k != "host"] + [("authorization", authorization)]
