"""The value a prompt asks for by name, read from what it says: "the city and country of the Eiffel Tower", "name,
age and city of this person: Maria Lopez is 34 and lives in Madrid", "the capital of Japan".

A key is read for what it holds (a person's name, an age, a city, a country, an email…) and its value found in
the conversation's own words (`mentions`), the landmarks of `gazetteer/landmarks.tsv`, or the fact table
(`directives.fact`, asked with the key's words and the question's). Where none of them holds it, the value is
None: JSON's null is an honest answer, a made-up value is not.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from emulator.default_model import directives
from emulator.default_model.mentions import Mentions, country_of_city, gazetteer

Landmark = tuple[str, str, str]  # its name, its city, its country


@functools.cache
def _countries() -> dict[str, str]:
    return {row[0]: row[1] for row in gazetteer("countries")}


@functools.cache
def _landmarks() -> tuple[tuple[re.Pattern[str], Landmark], ...]:
    found = []
    for name, city, code, *others in gazetteer("landmarks"):
        said = "|".join(re.escape(n) for n in sorted({name.lower(), *others}, key=len, reverse=True))
        found.append((re.compile(rf"\b(?:{said})\b"), (name, city, _countries().get(code, code))))
    return tuple(found)


def landmark(text: str) -> Landmark | None:
    """The landmark `text` names, the first written."""
    low = text.lower()
    placed = [(m.start(), each) for pattern, each in _landmarks() if (m := pattern.search(low)) is not None]
    return min(placed)[1] if placed else None


_AGE = re.compile(
    r"\b(\d{1,3})[- ]?(?:years?[- ]old|yrs?\b|y/?o\b)|\b(?:aged?|is|am|turned)\s+(\d{1,3})\b(?![.,]\d)"
    r"|\b[A-Z][a-z]+,\s*(\d{1,3}),"  # "Priya, 29, from Toronto"
)
_PHONE = re.compile(r"(?<![\w+])\+?\d[\d ().-]{6,}\d\b")
_COMPANY = re.compile(
    r"\b(?:at|from|for|with|joined)\s+((?:[A-Z][\w&.-]*\s?){1,3}(?:Inc|Ltd|LLC|Corp|GmbH|Co|Group|Labs|AG|SA|plc)?\.?)"
)
_MADE = re.compile(r"\b(?:Inc|Ltd|LLC|Corp|GmbH|Group|Labs|AG|plc)\b\.?$")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_PRICE = re.compile(
    r"[$€£¥]\s?(\d[\d,]*(?:\.\d+)?)|(?<![\w.])(\d[\d,]*(?:\.\d\d)?)\s?(?:dollars|euros|pounds|usd|eur|gbp)\b"
)
_TITLE = re.compile(r"\b(?:[A-Z][\w'’-]*)(?:\s+(?:(?:of|and|the|a|in|on|to)\s+)*[A-Z][\w'’-]*)*")

KINDS = {
    "name": "name",
    "full_name": "name",
    "person": "name",
    "person_name": "name",
    "customer": "name",
    "customer_name": "name",
    "contact": "name",
    "first_name": "first",
    "last_name": "last",
    "surname": "last",
    "age": "age",
    "city": "city",
    "town": "city",
    "location": "city",
    "home": "city",
    "home_town": "city",
    "hometown": "city",
    "residence": "city",
    "based_in": "city",
    "country": "country",
    "nation": "country",
    "email": "email",
    "email_address": "email",
    "phone": "phone",
    "phone_number": "phone",
    "telephone": "phone",
    "url": "url",
    "website": "url",
    "link": "url",
    "date": "date",
    "time": "time",
    "company": "company",
    "employer": "company",
    "organization": "company",
    "organisation": "company",
    "title": "title",
    "sentiment": "sentiment",
    "landmark": "landmark",
    "landmarks": "landmarks",
    "year": "year",
    "release_year": "year",
    "year_released": "year",
    "published": "year",
    "price": "price",
    "cost": "price",
    "amount": "price",
    "total": "price",
    "sights": "landmarks",
    "attractions": "landmarks",
}


def value(key: str, text: str, found: Mentions) -> Any:
    """What `key` holds, as the conversation (`found`, and the question `text`) gives it; None where it gives
    nothing."""
    kind = KINDS.get(_normal(key))
    if kind is not None and (said := _BY_KIND[kind](text, found)) is not None:
        return said
    named = _DONE_BY.get(_normal(key), key.replace("_", " "))
    known = directives.fact(f"{named} {text}")
    if known is None or not directives.stems(named) <= known[0]:  # a fact of what the key names, not a neighbour
        return None
    if named in _DONE_BY.values() and (who := _WHO.match(known[1])) is not None and known[2].lower() in who[0].lower():
        return who[0]  # "Jane Austen", where the one-word form is "Austen"
    return _typed(known[2])


# Keys that name who did something, and the verb the fact table says it with.
_DONE_BY = {"author": "wrote", "writer": "wrote", "painter": "painted", "artist": "painted", "inventor": "invented"}
_WHO = re.compile(r"(?:[A-Z][\w.'-]*|de|da|van|von)(?:\s+(?:[A-Z][\w.'-]*|de|da|van|von))*(?=\s+(?:wrote|painted|was))")


def _normal(key: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])|[\s-]+", "_", key.strip()).lower()


def _typed(short: str) -> Any:
    """A fact's one-word form as JSON takes it: a number where it is one."""
    plain = short.rstrip(".").replace(",", "")
    if re.fullmatch(r"-?\d+", plain):
        return int(plain)
    if re.fullmatch(r"-?\d+\.\d+", plain):
        return float(plain)
    return short.rstrip(".")


def _name(text: str, found: Mentions) -> str | None:
    place = landmark(text)
    people = [p for p in found.people if not _MADE.search(p) and not (place and p.lower() in place[0].lower())]
    return people[0] if people else None


def _part(index: int) -> Any:
    def said(text: str, found: Mentions) -> str | None:
        whole = _name(text, found)
        return whole.split()[index] if whole and len(whole.split()) > 1 else None

    return said


def _age(text: str, found: Mentions) -> int | None:
    m = _AGE.search(text)
    return int(m[1] or m[2] or m[3]) if m else None


def _city(text: str, found: Mentions) -> str | None:
    if found.cities:
        return found.cities[0]
    place = landmark(text)
    return place[1] if place else None


def _country(text: str, found: Mentions) -> str | None:
    if found.countries:
        return found.countries[0]
    if found.cities and (country := country_of_city().get(found.cities[0])):
        return country
    place = landmark(text)
    return place[2] if place else None


def _company(text: str, found: Mentions) -> str | None:
    made = [p for p in found.people if _MADE.search(p)]
    if made:
        return made[0]
    m = _COMPANY.search(text)
    return m[1].strip() if m else None


def _title(text: str, found: Mentions) -> str | None:
    """A work's title: quoted, or written in capitals after what it is ("the film Metropolis") or before who made
    it ("Metropolis by Fritz Lang"), or after "of" or "about"."""
    if found.quoted and len(found.quoted[0].split()) <= 6:
        return found.quoted[0]
    for m in _TITLE.finditer(text):
        before, after = text[: m.start()].lower(), text[m.end() :]
        if re.search(rf"\b(?:{_WORKS})\s+$|\b(?:of|about)\s+$|[\"“]$", before) or re.match(r"\s+by\b|,", after):
            return m.group()
    return None


_WORKS = "film|movie|book|novel|song|album|show|series|play|game|poem|painting|paper|article|opera|musical"


def _first(field: str) -> Any:
    def said(text: str, found: Mentions) -> Any:
        values = getattr(found, field)
        return values[0] if values else None

    return said


_BY_KIND: dict[str, Any] = {
    "name": _name,
    "first": _part(0),
    "last": _part(-1),
    "age": _age,
    "city": _city,
    "country": _country,
    "email": _first("emails"),
    "phone": lambda text, found: m.group().strip() if (m := _PHONE.search(text)) else None,
    "url": _first("urls"),
    "date": _first("dates"),
    "time": _first("times"),
    "company": _company,
    "title": _title,
    "sentiment": lambda text, found: directives.sentiment(text),
    "landmark": lambda text, found: place[0] if (place := landmark(text)) else None,
    "year": lambda text, found: int(m[1]) if (m := _YEAR.search(text)) else None,
    "price": lambda text, found: _typed((m[1] or m[2]).replace(",", "")) if (m := _PRICE.search(text)) else None,
    "landmarks": lambda text, found: _landmarks_in(_city(text, found), _country(text, found)),
}


def _landmarks_in(city: str | None, country: str | None) -> list[str] | None:
    """The table's landmarks of the city named, else of the country; None where it names neither."""
    if city is None and country is None:
        return None
    table = [each for _, each in _landmarks()]
    return [name for name, at, _ in table if at == city] or [name for name, _, of in table if of == country]
