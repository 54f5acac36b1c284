"""A string a simple JSON Schema `pattern` matches (ECMA regex, searched, not anchored): literals, escapes,
classes and quantifiers; no groups or alternation. Used by `instances` for a string property with a pattern.
"""

from __future__ import annotations

import random
import re

_CLASSES = {"d": "0123456789", "w": "abcdefghijklmnopqrstuvwxyz0123456789", "s": " "}
_ANY = "abcdefghijklmnopqrstuvwxyz"
_QUANTIFIER = re.compile(r"\{(\d{1,3})(?:(,)(\d{1,3})?)?\}|[?*+]")
_LONGEST = 256  # the most characters a simple pattern is generated with


def matching(pattern: str, rng: random.Random) -> str | None:
    r"""A string `pattern` matches (JSON Schema's ECMA regex, searched, not anchored), when the pattern is simple:
    anchors, literals, `\d \w \s .`, `[…]` classes with ranges, quantifiers. None for anything else."""
    body = pattern[1:] if pattern.startswith("^") else pattern
    body = body[:-1] if body.endswith("$") and not body.endswith("\\$") else body
    out: list[str] = []
    i = 0
    while i < len(body):
        choices, i = _atom(body, i)
        if choices is None:
            return None
        least, most = 1, 1
        quantifier = _QUANTIFIER.match(body, i)
        if quantifier:
            token, i = quantifier.group(), quantifier.end()
            if token[0] == "{":
                least = int(quantifier.group(1))
                most = least if not quantifier.group(2) else int(quantifier.group(3) or least + 3)
            else:
                least, most = {"?": (0, 1), "*": (0, 3), "+": (1, 3)}[token]
            if most < least:
                return None
        out += (rng.choice(choices) for _ in range(rng.randint(least, min(most, least + 3))))
        if len(out) > _LONGEST:
            return None
    return "".join(out)


def _atom(body: str, i: int) -> tuple[str | None, int]:
    """The characters the atom at `i` may be, and where it ends; None for what a simple pattern does not hold."""
    c = body[i]
    if c == "\\" and i + 1 < len(body):
        e = body[i + 1]
        return _CLASSES.get(e, None if e.isalnum() else e), i + 2
    if c == "[":
        end = body.find("]", i + 2)
        if end < 0 or body[i + 1] == "^":
            return None, i
        chars, j = [], i + 1
        while j < end:
            if body[j] == "\\" and j + 1 < end:
                chars.append(_CLASSES.get(body[j + 1], body[j + 1]))
                j += 2
            elif j + 2 < end and body[j + 1] == "-":
                first, last = ord(body[j]), ord(body[j + 2])
                if last < first:
                    return None, i
                chars.append("".join(map(chr, range(first, min(last, first + 255) + 1))))
                j += 3
            else:
                chars.append(body[j])
                j += 1
        return "".join(chars) or None, end + 1
    if c in "()|{}^$?*+]":
        return None, i
    return (_ANY if c == "." else c), i + 1
