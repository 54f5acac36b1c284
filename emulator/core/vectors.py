"""Embedding vectors whose geometry means something: texts that share words, stems or pieces of words lie closer
than texts that share none, so that a query finds the passage about its topic.

A text is read as weighted features: its words (function words weigh little), their stems (a few English suffixes
taken off), their character trigrams (so "embedding" is near "embeddings" and a typo near its word) and the pairs
of adjacent content words. Each feature is hashed, with the model as salt, to a few signed positions in every band
of the vector; a text's vector is the sum of its features' (a repeated feature counts by the square root of its
weight), of unit length. Features no text shares are nearly orthogonal, so unrelated texts score about 0.

The bands double in size (4, 4, 8, 16, … up to the model's size), each carrying a share of the vector in proportion
to its size: the first `d` numbers of a vector, made unit length again, are the vector a request for `d` dimensions
gets, as OpenAI's shortened text-embedding-3 vectors are.

Deterministic: blake2b of the feature, never Python's `hash`, so every worker and process agrees. Pure: no I/O.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
from collections.abc import Sequence
from functools import lru_cache

HITS = 2  # signed positions per feature in each band
FIRST_BAND = 4
_WORD = re.compile(r"[^\W_]+")
# English function words: they say little about a text's topic, so they weigh little.
_FUNCTION_WORDS = (
    "a about above after again against all am an and any are as at be because been before being below between both"
    " but by can could did do does doing down during each few for from further had has have having he her here hers"
    " him his how i if in into is it its itself just me more most my no nor not now of off on once only or other our"
    " ours out over own same she should so some such than that the their them then there these they this those"
    " through to too under until up very was we were what when where which while who whom why will with would you"
    " your yours"
)
STOP = frozenset(_FUNCTION_WORDS.split())
# Suffixes a stem drops, longest first; a stem keeps at least three letters.
SUFFIXES = (
    ("ational", "ate"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("ements", ""),
    ("ement", ""),
    ("ments", ""),
    ("ment", ""),
    ("nesses", ""),
    ("ness", ""),
    ("ities", ""),
    ("ity", ""),
    ("ingly", ""),
    ("ings", ""),
    ("ing", ""),
    ("edly", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ers", ""),
    ("er", ""),
    ("ed", ""),
    ("ly", ""),
    ("es", ""),
    ("s", ""),
)
WEIGHTS = {"word": 1.0, "stem": 1.0, "pair": 0.6, "piece": 0.9, "stop": 0.08}


def stem(word: str) -> str:
    """`word` without the first of `SUFFIXES` it ends in (and a final `e`), where three letters or more are left:
    "caching", "cached" and "caches" are all "cach"."""
    if len(word) > 3 and not word.endswith("ss"):
        for suffix, instead in SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) + len(instead) >= 3:
                word = word[: len(word) - len(suffix)] + instead
                break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":  # "running" → "runn" → "run"
        word = word[:-1]
    return word


def features(text: str) -> dict[str, float]:
    """The weighted features of `text` (see the module's docstring)."""
    found: dict[str, float] = {}
    previous = ""
    for word in _WORD.findall(text.lower()):
        if word in STOP:
            _add(found, "w\0" + word, WEIGHTS["stop"])
            previous = ""
            continue
        _add(found, "w\0" + word, WEIGHTS["word"])
        root = stem(word)
        _add(found, "s\0" + root, WEIGHTS["stem"])
        padded = f"<{word}>"
        pieces = len(padded) - 2
        share = WEIGHTS["piece"] / math.sqrt(pieces)
        for at in range(pieces):
            _add(found, "c\0" + padded[at : at + 3], share)
        if previous:
            _add(found, f"p\0{previous} {root}", WEIGHTS["pair"])
        previous = root
    if not found:  # punctuation or symbols only: the text itself, so that it still has a direction of its own
        found["r\0" + text] = 1.0
    return found


def token_features(ids: list[int]) -> dict[str, float]:
    """The weighted features of a text given as token ids: each id, and each adjacent pair."""
    found: dict[str, float] = {}
    for at, token in enumerate(ids):
        _add(found, f"t\0{token}", 1.0)
        if at:
            _add(found, f"u\0{ids[at - 1]} {token}", WEIGHTS["pair"])
    return found


def _add(found: dict[str, float], feature: str, weight: float) -> None:
    found[feature] = found.get(feature, 0.0) + weight


@lru_cache(maxsize=8)
def bands(size: int) -> tuple[tuple[int, int], ...]:
    """The bands of a vector of `size` numbers: (start, length), doubling from `FIRST_BAND`."""
    found = []
    start, length = 0, FIRST_BAND
    while start < size:
        found.append((start, min(length, size - start)))
        start += found[-1][1]
        length = FIRST_BAND if start < 2 * FIRST_BAND else start
    return tuple(found)


@lru_cache(maxsize=65536)
def _spots(salt: str, feature: str, size: int) -> tuple[tuple[int, float], ...]:
    """Where `feature` adds to a vector of `size`: `HITS` signed positions in each band, each weighing the square
    root of its band's share."""
    spread = bands(size)
    raw = hashlib.blake2b(f"{salt}\0{feature}".encode(), digest_size=64).digest()
    while len(raw) < 4 * HITS * len(spread):
        raw += hashlib.blake2b(raw, digest_size=64).digest()
    found = []
    for n, (start, length) in enumerate(spread):
        weight = math.sqrt(length / HITS)
        for hit in range(HITS):
            (draw,) = struct.unpack_from("<I", raw, 4 * (n * HITS + hit))
            found.append((start + (draw >> 1) % length, weight if draw & 1 else -weight))
    return tuple(found)


def vector(weighted: dict[str, float], salt: str, size: int, dimensions: int | None = None) -> list[float]:
    """The unit vector of `weighted` features in a model's space (`salt`, `size` numbers), cut to its first
    `dimensions` and made unit length again."""
    keep = size if dimensions is None else min(dimensions, size)
    summed = [0.0] * size
    for feature, weight in weighted.items():
        scale = math.sqrt(weight)
        for at, sign in _spots(salt, feature, size):
            summed[at] += sign * scale
    kept = summed[:keep]
    norm = math.sqrt(sum(x * x for x in kept)) or 1.0
    return [x / norm for x in kept]


def embed(text: str | list[int], salt: str, size: int, dimensions: int | None = None) -> list[float]:
    """The unit vector of a text (or of its token ids) in a model's space: `salt` names the model, `size` is its
    vector's length, `dimensions` what was asked for (None: all)."""
    weighted = features(text) if isinstance(text, str) else token_features(text)
    return vector(weighted, salt, size, dimensions)


def as_float32(values: list[float]) -> list[float]:
    """Each number as the float32 it is sent as, printed to the nine digits that give that float32 back."""
    packed = struct.pack(f"<{len(values)}f", *values)
    return [float(f"{x:.9g}") for x in struct.unpack(f"<{len(values)}f", packed)]


def as_base64(values: list[float]) -> str:
    """The numbers as base64 of little-endian float32s: OpenAI's `encoding_format: base64`."""
    return base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode()


def cosine(a: list[float], b: list[float]) -> float:
    """The cosine of two vectors (unit vectors: their dot product)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def scripted(text: str) -> list[list[float]] | None:
    """The vectors a scenario's text gives as JSON, one (`[0.6, 0.8]`) or one per input (`[[…], […]]`); None
    for any other text, which is words to embed."""
    if not text.lstrip().startswith("["):
        return None
    try:
        given = json.loads(text)
    except ValueError:
        return None
    if given and all(isinstance(x, int | float) and not isinstance(x, bool) for x in given):
        return [[float(x) for x in given]]
    if given and all(isinstance(v, list) and v and all(isinstance(x, int | float) for x in v) for v in given):
        return [[float(x) for x in v] for v in given]
    return None


def answer(
    text: str, inputs: Sequence[str | list[int]], salt: str, size: int, dimensions: int | None
) -> list[list[float]]:
    """Each input's vector, as sent: a scenario's own (`scripted`: the one, or one per input in turn, as given),
    else the embedding of the scenario's words (`text`), else of the input, as float32s."""
    fixed = scripted(text) if text else None
    if fixed is not None:
        return [fixed[index % len(fixed)] for index in range(len(inputs))]
    return [as_float32(embed(text or given, salt, size, dimensions)) for given in inputs]
