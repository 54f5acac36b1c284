"""The default model's grammar and lexicon as data: sentence frames, word lists by domain, verse, stories, letters.

The files in `lexicon/` are plain text a contributor can read and extend (each says its own format): sections
in brackets, one entry a line. They are read once, at import; a question's domain is the one whose cue words
it uses most, everyday life when none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources

from emulator.conversation import frozen

Sections = Mapping[str, tuple[str, ...]]
Steps = tuple[tuple[str, str], ...]  # a how-to's steps as (label, sentence)


def sections(name: str) -> Sections:
    """The file `lexicon/<name>.txt` by section: `[section]` lines open one, `#` lines are comments."""
    text = resources.files("emulator.default_model").joinpath("lexicon", f"{name}.txt").read_text("utf-8")
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = found.setdefault(line[1:-1], [])
        elif current is not None:
            current.append(line)
    return {name: tuple(lines) for name, lines in found.items()}


@frozen
class Domain:
    """One domain's word lists (see lexicon/domains.txt): `lists` by key, `steps` as (label, sentence)."""

    name: str
    cues: frozenset[str]
    lists: Mapping[str, tuple[str, ...]]
    steps: Steps


def _domain(name: str, lines: Iterable[str]) -> Domain:
    lists: dict[str, list[str]] = {}
    for line in lines:
        key, _, value = line.partition(":")
        if key == "step":
            lists.setdefault(key, []).append(value.strip())
        else:
            lists.setdefault(key, []).extend(v.strip() for v in value.split("|") if v.strip())
    steps = tuple(tuple(s.split(": ", 1)) for s in lists.pop("step", ()))
    return Domain(name, frozenset(lists.pop("cues", ())), {k: tuple(v) for k, v in lists.items()}, steps)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Lexicon:
    frames: Sections
    domains: tuple[Domain, ...]
    verse: Sections
    letters: Sections
    cued: Mapping[str, tuple[int, ...]]  # a cue word → the domains it cues, by index
    verbs: frozenset[str]  # verbs in their base form (lexicon/verbs.txt)
    howto: Mapping[str, tuple[frozenset[str], Steps]]  # steps by the kind of task: its verbs, its steps

    def steps_for(self, verb: str) -> tuple[str, Steps] | None:
        """The kind of task `verb` names (lexicon/howto.txt) and its steps, if a section lists it."""
        return next(((kind, steps) for kind, (verbs, steps) in self.howto.items() if verb in verbs), None)

    def domain(self, words: Iterable[str]) -> Domain:
        """The domain whose cues `words` (lower case, singular) use most (the first listed of equals); the last
        (everyday life) if none."""
        hits = [0] * len(self.domains)
        for word in words:
            for i in self.cued.get(word, ()):
                hits[i] += 1
        most = max(hits)
        return self.domains[hits.index(most)] if most else self.domains[-1]


def load() -> Lexicon:
    domains = tuple(_domain(name, lines) for name, lines in sections("domains").items())
    cued: dict[str, list[int]] = {}
    for i, domain in enumerate(domains):
        for cue in domain.cues:
            cued.setdefault(cue, []).append(i)
    cues = {cue: tuple(indexes) for cue, indexes in cued.items()}
    verbs = frozenset(word for line in sections("verbs")["verbs"] for word in line.split())
    howto = {}
    for kind, lines in sections("howto").items():
        task = _domain(kind, lines)
        howto[kind] = (frozenset(task.lists.get("verbs", ())), task.steps)
    return Lexicon(sections("frames"), domains, sections("verse"), sections("letters"), cues, verbs, howto)


LEXICON = load()
