"""The default model's grammar and lexicon as data: sentence frames, word lists by domain, verse, stories, letters.

The files in `lexicon/` are plain text a contributor can read and extend (each says its own format): sections
in brackets, one entry a line. They are read once, at import; a question's domain is the one whose cue words
it uses most, everyday life when none.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import resources

from emulator.core.conversation import frozen
from emulator.default_model import grammar

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
        if key in ("step", "step!"):  # "step!": a step no answer leaves out (a safety step, the fix itself)
            lists.setdefault("step", []).append(value.strip())
            if key == "step!":
                lists.setdefault("kept", []).append(value.strip().split(": ", 1)[0])
        else:
            lists.setdefault(key, []).extend(v.strip() for v in value.split("|") if v.strip())
    steps = tuple(tuple(s.split(": ", 1)) for s in lists.pop("step", ()))
    return Domain(name, frozenset(lists.pop("cues", ())), {k: tuple(v) for k, v in lists.items()}, steps)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Thing:
    """A common thing the writer can say specific things about (lexicon/things.txt): `named` is its name with
    its article ("a refrigerator", "bread", "the immune system"), the rest as the file describes."""

    named: str
    kind: str
    parts: str
    does: str
    how: str
    care: str
    contrast: str


def _named(name: str) -> str:
    """A thing's name with its article: "a kettle", "an API"; "~bread" → "bread"; "the immune system" as it is."""
    if name.startswith("~"):
        return name[1:]
    return name if name.startswith("the ") else grammar.article(name)


def _things(line: str) -> Iterator[tuple[str, Thing]]:
    """Each name of one line of lexicon/things.txt, lower case, with the thing said by that name."""
    names, kind, parts, does, how, care, contrast = (field.strip() for field in line.split(" | "))
    for name in names.split("/"):
        yield name.lstrip("~").removeprefix("the ").lower(), Thing(_named(name), kind, parts, does, how, care, contrast)


@dataclass(frozen=True, slots=True)
class Lexicon:
    frames: Sections
    domains: tuple[Domain, ...]
    verse: Sections
    letters: Sections
    cued: Mapping[str, tuple[int, ...]]  # a cue word → the domains it cues, by index
    verbs: frozenset[str]  # verbs in their base form (lexicon/verbs.txt)
    howto: Mapping[str, tuple[frozenset[str], Steps]]  # steps by the kind of task: its verbs, its steps
    phrases: Mapping[str, tuple[tuple[tuple[str, ...], str], ...]]  # a first word → (phrase, kind), longest first
    closes: Mapping[str, tuple[str, ...]]  # a how-to's closing sentences by its kind of task, where it has its own
    things: Mapping[str, Thing]  # common things by each of their names, lower case (lexicon/things.txt)
    senses: Mapping[str, frozenset[str]]  # a word → the words that give it another sense (things.txt [senses])
    heads: frozenset[str]  # the last word of each name in `things`: a subject ending on another names none
    objects: Mapping[str, tuple[str, bool]]  # a thing to repair ("chair") → the kind of repair whose steps fit it,
    # and whether the word names a fault that decides the kind wherever it is said ("blocked"; howto.txt)
    by_verb: Mapping[str, str]  # a how-to's verb → the kind of task whose `verbs` list it first (howto.txt)
    goals: Mapping[str, str]  # a goal said as a noun ("better sleep") → the task it names ("sleep better")
    # a word that names a fault of one kind of thing only when one is named ("slow" of a drain) → that kind
    faults: Mapping[str, str]
    kept: frozenset[str]  # the labels of steps no answer leaves out ("Stop the water first"; howto.txt's `step!`)

    def steps_for(self, verb: str) -> tuple[str, Steps] | None:
        """The kind of task `verb` names (lexicon/howto.txt) and its steps, if a section lists it."""
        kind = self.by_verb.get(verb)
        return (kind, self.howto[kind][1]) if kind else None

    def kind_of(self, task: str) -> str:
        """The kind of task (a section of lexicon/howto.txt) whose phrase opens `task` ("get better at chess":
        learn), the longest phrase first; "" when none does."""
        words = task.lower().split()
        for phrase, kind in self.phrases.get(words[0] if words else "", ()):
            if len(words) >= len(phrase) and all(
                w == p or p == "*" or p == "*ing" and w.endswith("ing") for w, p in zip(words, phrase, strict=False)
            ):
                return kind
        return ""

    def repaired(self, task: str) -> str:
        """The kind of repair whose steps fit what `task` is done to, by the first word of it that a `repair-…`
        section of lexicon/howto.txt lists ("fix a squeaky chair": repair-furniture), unless a later word, or two,
        names a fault ("my shower drain is blocked", "the sink is backed up": repair-drain), or names a fault of a
        kind of thing also named ("my sink drains slowly": a drain, and slow; "my laptop is slow" is no drain's
        fault); "" when none does."""
        first, before, seen, hinted = "", "", set(), ""
        for word in task.lower().split():
            word = word.strip(_PUNCTUATION).removesuffix("'s")
            kind, fault = self.objects.get(word, _NO_OBJECT)
            paired, said = self.objects.get(f"{before} {word}", _NO_OBJECT)  # a fault in two words: "backed up"
            if fault or said:
                return paired if said else kind
            first, before = first or kind, word
            seen.add(kind)
            hinted = hinted or self.faults.get(word, "")
        return hinted if hinted and hinted in seen else first  # "my shower drain is slow": a drain, and slow

    def thing(self, subject: str, context: frozenset[str] = frozenset()) -> Thing | None:
        """The common thing `subject` names (lexicon/things.txt), if it is one: "a refrigerator", "solar panels",
        "your fridge", "an old kettle"; not "a supply chain" for a chain, nor "Python" for anything, nor "fans"
        for electric fans when the question's words (`context`, lower case) say "football"."""
        said = subject.split()
        if not said or grammar.singular(said[-1].strip(_PUNCTUATION)).lower() not in self.heads:
            return None  # most subjects: their last word ends no thing's name, and this is the cheap test
        words = [w.strip(_PUNCTUATION) for w in said]
        while words and words[0].lower() in _LEADING:
            words = words[1:]
        if not words:
            return None
        words = [w.lower() for w in [*words[:-1], grammar.singular(words[-1])]]
        found = self.things.get(" ".join(words))
        while found is None and len(words) > 1 and words[0] in _PLAIN_ADJECTIVES:
            words = words[1:]
            found = self.things.get(" ".join(words))
        if found is not None and self.senses.get(words[-1], _NONE) & context.difference(words):
            return None  # the question's other words mean another sense of the word (its name's own do not)
        return found

    def domain(self, words: Iterable[str]) -> Domain:
        """The domain whose cues `words` (lower case, singular) use most (the first listed of equals); the last
        (everyday life) if none."""
        hits = [0] * len(self.domains)
        words = tuple(words)
        present = frozenset(words)
        for word in words:
            if self.senses.get(word, _NONE) & present:
                continue  # "bank" said with "river": not money's
            for i in self.cued.get(word, ()):
                hits[i] += 1
        most = max(hits)
        return self.domains[hits.index(most)] if most else self.domains[-1]


_NONE: frozenset[str] = frozenset()
_NO_OBJECT = ("", False)
_PUNCTUATION = "?.,!'\""
_LEADING = frozenset(
    ["a", "an", "the", "your", "my", "our", "their", "his", "her", "this", "that", "these", "those", "what", "how"]
)
# Words before a thing's name that do not change what it is ("an old kettle" is a kettle; "a supply chain" is not).
_PLAIN_ADJECTIVES = frozenset(
    [
        "old",
        "new",
        "small",
        "big",
        "large",
        "little",
        "modern",
        "smart",
        "digital",
        "simple",
        "basic",
        "good",
        "cheap",
        "typical",
        "standard",
        "ordinary",
        "used",
        "home",
        "household",
        "kitchen",
        "wireless",
        "portable",
        "broken",
        "noisy",
    ]
)


def goal(noun: str) -> str:
    """A goal said as a noun, as `Lexicon.goals` keys it: lower case, without a leading article or "your"."""
    words = noun.lower().split()
    return " ".join(words[1:] if words and words[0] in _GOAL_ARTICLES else words)


_GOAL_ARTICLES = frozenset(("a", "an", "the", "your", "my", "some"))


def _longest(phrase: tuple[tuple[str, ...], str]) -> tuple[int, int]:
    """The order phrases are tried in: the longest first, and of two as long, words before a wildcard ("start
    gardening" before "start *ing", "*ing" before "*", which stands for any one word)."""
    return -len(phrase[0]), 2 if "*" in phrase[0] else int("*ing" in phrase[0])


def load() -> Lexicon:
    domains = tuple(_domain(name, lines) for name, lines in sections("domains").items())
    cued: dict[str, list[int]] = {}
    for i, domain in enumerate(domains):
        for cue in domain.cues:
            cued.setdefault(cue, []).append(i)
    cues = {cue: tuple(indexes) for cue, indexes in cued.items()}
    verbs = frozenset(word for line in sections("verbs")["verbs"] for word in line.split())
    howto = {}
    phrases: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    closes: dict[str, tuple[str, ...]] = {}
    objects: dict[str, tuple[str, bool]] = {}
    faults: dict[str, str] = {}
    by_verb: dict[str, str] = {}
    goals: dict[str, str] = {}
    tasks = [_domain(kind, lines) for kind, lines in sections("howto").items()]
    for task in tasks:
        kind = task.name
        howto[kind] = (frozenset(task.lists.get("verbs", ())), task.steps)
        if "close" in task.lists:
            closes[kind] = task.lists["close"]
        named = [word for word in task.lists.get("objects", ()) if word[0] != "~"]
        objects |= {word.lstrip("!"): (kind, word[0] == "!") for word in named}
        faults |= {word[1:]: kind for word in task.lists.get("objects", ()) if word[0] == "~"}
        by_verb |= {verb: kind for verb in task.lists.get("verbs", ()) if verb not in by_verb}
        goals |= {goal(noun): aim.strip() for noun, _, aim in (g.partition(" = ") for g in task.lists.get("goals", ()))}
        for phrase in task.lists.get("phrases", ()):
            words = tuple(phrase.lower().split())
            phrases.setdefault(words[0], []).append((words, kind))
    opening = {first: tuple(sorted(found, key=_longest)) for first, found in phrases.items()}
    read = sections("things")
    things = dict(pair for line in read["things"] for pair in _things(line))
    senses = {word: frozenset(cues.split()) for word, _, cues in (line.partition(": ") for line in read["senses"])}
    frames, verse, letters = sections("frames"), sections("verse"), sections("letters")
    heads = frozenset(name.rpartition(" ")[2] for name in things)
    return Lexicon(
        frames,
        domains,
        verse,
        letters,
        cues,
        verbs,
        howto,
        opening,
        closes,
        things,
        senses,
        heads,
        objects,
        by_verb,
        goals,
        faults,
        frozenset(label for d in (*domains, *tasks) for label in d.lists.get("kept", ())),
    )


LEXICON = load()
