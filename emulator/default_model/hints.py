"""What generated JSON values are drawn from: `Hints` (faker's pools, and what the question names), what a
property's name says it holds (`STRING_HINTS`, `NUMBER_HINTS`), and the values of the string formats a schema
may ask for (`FORMATS`). Used by `instances`, the schema instance generator.
"""

from __future__ import annotations

import random
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any


@dataclass(frozen=True, slots=True)
class Hints:
    """What realistic values are drawn from: faker's `pools` by kind (`city`, `email`, `word`, …, built once per
    server), and what the question itself names (`names`, its proper nouns; `numbers`; its `topic`)."""

    pools: Mapping[str, Sequence[str]] = field(default_factory=dict)
    names: tuple[str, ...] = ()
    numbers: tuple[int, ...] = ()
    topic: str = ""


NO_HINTS = Hints()


def _kinds(kind: str, *names: str) -> dict[str, str]:
    return dict.fromkeys(names, kind)


# What a string property holds, by its name (lower case, without `_` and `-`): a pool of `Hints`, or a format.
STRING_HINTS = {
    **_kinds("city", "city", "town", "location", "place", "destination", "origin", "hometown"),
    **_kinds("name", "name", "fullname", "displayname", "personname", "customername", "author", "owner"),
    **_kinds("first_name", "firstname", "givenname"),
    **_kinds("last_name", "lastname", "surname", "familyname"),
    **_kinds("email", "email", "emailaddress", "mail"),
    **_kinds("phone", "phone", "phonenumber", "mobile", "telephone", "tel"),
    **_kinds("address", "address", "streetaddress", "street"),
    **_kinds("company", "company", "companyname", "organization", "organisation", "employer", "org"),
    **_kinds("job", "job", "jobtitle", "occupation", "profession"),
    **_kinds("user_name", "username", "login", "handle", "user"),
    **_kinds("url", "url", "website", "homepage", "link", "uri"),
    **_kinds("domain", "domain", "hostname", "host"),
    **_kinds("state", "state", "province", "region"),
    **_kinds("postcode", "zip", "zipcode", "postcode", "postalcode"),
    **_kinds("country", "country", "nation"),
    **_kinds("color", "color", "colour"),
    **_kinds("currency", "currency", "currencycode"),
    **_kinds("file_name", "filename", "file"),
    **_kinds("title", "title", "headline", "subject", "label"),
    **_kinds("sentence", "description", "summary", "text", "content", "body", "message", "comment", "note", "notes"),
    **_kinds("sentence", "bio", "reason", "explanation", "answer", "details"),
    **_kinds("topic", "query", "q", "search", "searchterm", "keyword", "keywords", "topic", "question"),
    **_kinds("date", "date", "birthday", "birthdate", "dob", "startdate", "enddate", "duedate", "deadline", "day"),
    **_kinds("date-time", "datetime", "timestamp", "createdat", "updatedat", "at", "when"),
    **_kinds("time", "time"),
    **_kinds("uuid", "id", "uuid", "guid"),
    **_kinds("ipv4", "ip", "ipaddress"),
}
NAMED = ("name", "first_name", "last_name", "city", "country")  # what a proper noun of the question can be
# What a number property holds, by its name: the range a person would expect.
NUMBER_HINTS = {
    "age": (18, 80),
    "year": (1990, 2025),
    "month": (1, 12),
    "day": (1, 28),
    "hour": (0, 23),
    **dict.fromkeys(("minute", "second"), (0, 59)),
    **dict.fromkeys(("count", "quantity", "qty", "num", "n", "days", "nights", "guests", "people", "times"), (1, 10)),
    **dict.fromkeys(("retries", "attempts", "page", "level", "priority"), (1, 10)),
    **dict.fromkeys(("limit", "maxresults", "topk", "k", "pagesize", "perpage", "size"), (5, 50)),
    **dict.fromkeys(("rating", "stars"), (1, 5)),
    **dict.fromkeys(("score", "percent", "percentage", "progress"), (0, 100)),
    **dict.fromkeys(("probability", "confidence", "ratio"), (0, 1)),
    **dict.fromkeys(("price", "cost", "amount", "total", "salary", "budget", "balance"), (5, 500)),
    **dict.fromkeys(("latitude", "lat"), (-90, 90)),
    **dict.fromkeys(("longitude", "lon", "lng"), (-180, 180)),
    **dict.fromkeys(("temperature", "temp"), (-10, 35)),
    **dict.fromkeys(("duration", "timeout", "seconds", "minutes"), (1, 60)),
    "port": (1024, 65535),
    "id": (1, 9999),
    "weight": (1, 100),
    "height": (100, 200),
}
_SEGMENT = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")  # the words of `homeCity`, `home_city`, `HTTPPort`


def hint(name: str, table: Mapping[str, Any]) -> Any:
    """What `table` says a property named `name` holds: by its whole name, else by its last word (`home_city`
    is a city); a last word `name` after others (`product_name`) is a title, not a person's."""
    key = name.lower().replace("_", "").replace("-", "")
    if key in table:
        return table[key]
    words = _SEGMENT.findall(name)
    if len(words) < 2:
        return None
    last = words[-1].lower()
    return "title" if last == "name" and table is STRING_HINTS else table.get(last)


def name_of(path: str) -> str:
    """The property a value is for, from its schema path: `properties.city`, `$defs.P.properties.age`,
    `properties.emails.items` all name theirs."""
    for part in reversed(path.split(".")):
        if part != "items" and "[" not in part and part not in ("properties", "anyOf", "oneOf", "allOf"):
            return part
    return ""


def _date(rng: random.Random) -> str:
    return (_EPOCH + timedelta(days=rng.randrange(3653))).isoformat()


def _pooled(kind: str, fallback: str) -> Callable[[random.Random, Mapping[str, Sequence[str]]], str]:
    return lambda rng, pools: rng.choice(pools[kind]) if pools.get(kind) else fallback


_EPOCH = date(2016, 1, 1)  # generated dates fall in the ten years from here
FORMATS: dict[str, Callable[[random.Random, Mapping[str, Sequence[str]]], str]] = {
    "date": lambda rng, pools: _date(rng),
    "date-time": lambda rng, pools: f"{_date(rng)}T{rng.randrange(24):02}:{rng.randrange(60):02}:00Z",
    "time": lambda rng, pools: f"{rng.randrange(24):02}:{rng.randrange(0, 60, 15):02}:00Z",
    "uuid": lambda rng, pools: str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    "ipv4": lambda rng, pools: f"192.0.2.{rng.randrange(1, 255)}",  # TEST-NET-1 (RFC 5737): never a real host
    "ipv6": lambda rng, pools: f"2001:db8::{rng.randrange(1, 0xFFFF):x}",  # the documentation prefix (RFC 3849)
    "email": _pooled("email", "user@example.com"),
    "uri": _pooled("url", "https://example.com/"),
    "url": _pooled("url", "https://example.com/"),
    "hostname": _pooled("domain", "example.com"),
}
