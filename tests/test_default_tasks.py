"""Issue 26's fourth round of weak classes, each tried with prompts of our own across domains and read for its
form: a complaint or a wish said as a problem gets the tips of the task it implies; tips for a group of people
get tips for what the group does; the domain of a question and the steps of a health task fit the task (a
wobbly table is furniture, a phone no web page, stretching no sleep routine); a "what is" question about a
common subject of science, money, health, history or everyday life gets a specific one-paragraph definition.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from emulator.default_model import forms, troubles
from emulator.default_model.howtos import steps_of
from emulator.default_model.lexicon import LEXICON
from emulator.default_model.question import read
from tests.test_writing import answer, nlp, problems, sentences, words

__all__ = ["nlp"]  # the parser fixture, shared with test_writing

_TIP = re.compile(r"^- \*\*[^*]+\*\*: .+", re.M)
_VAGUE = ("offline", "reference", "encyclopedia", "depends on the context", "benefit")


def _grammar(nlp: Any, text: str, question: str, kind: str) -> list[str]:
    return [f"{s!r}: {p}" for s in sentences(text, kind) for p in problems(nlp, s, question)]


def _no_repeats(text: str) -> None:
    said = [s for s in re.split(r"(?<=[.!?:])\s+", text) if len(s.split()) > 3]
    assert len(said) == len(set(said)), text


# --- a complaint read as the task it implies ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "task", "said"),
    [
        ("I can't sleep at night, any tips?", "sleep better at night", ("bed", "sleep")),  # health
        ("I have trouble falling asleep.", "fall asleep", ("bed", "sleep")),
        ("My shoulders ache after gardening, what should I do?", "ease the pain in your shoulders", ("stretch",)),
        ("My neck is stiff. Help!", "ease the pain in your neck", ("heat", "cold")),
        ("I keep forgetting my passwords", "remember your passwords", ("write", "picture")),  # everyday
        ("I keep losing my glasses, any advice?", "keep track of your glasses", ("place",)),
        ("I'm always stressed, any advice?", "manage stress", ("talk", "basics")),  # mind
        ("I feel lonely these days", "make new friends", ("club", "invitation")),
        ("I can never stick to a budget", "stick to a budget", ("day",)),  # money
        ("I have trouble concentrating at work", "concentrate better at work", ()),  # work
        ("I want to get fit, any tips?", "get fit", ("week",)),
        ("My laptop won't turn on", "troubleshoot your laptop when it won't turn on", ("repair",)),  # a device
        ("My washing machine leaks, any advice?", "troubleshoot your washing machine when it leaks", ("repair",)),
        ("My dog keeps barking at night", "stop your dog from barking at night", ("reward",)),  # a pet
    ],
)
def test_a_complaint_gets_the_tips_of_the_task_it_implies(
    nlp: Any, question: str, task: str, said: tuple[str, ...]
) -> None:
    asked = forms.read(read(question))
    assert (asked.form, asked.task, asked.other) == ("steps", task, "tips")
    text, reasoning = answer(question)
    tips = _TIP.findall(text)
    assert len(tips) >= 4, text
    assert task in text and not any(v in text for v in _VAGUE[:3]), text
    assert all(w in text.lower() for w in said), text
    assert f"how to {task}" in reasoning.replace("their", "your"), reasoning
    _no_repeats(text)
    assert not _grammar(nlp, text, question, "steps")


@pytest.mark.parametrize(
    "question",
    [
        "I live in Paris, what is the population?",  # a fact, said after "I"
        "I can't find the capital of Peru on the map, where is it?",  # a question of fact, not a plea
        "My code crashes on startup",  # no complaint this reads: left to the others
        "I love pizza",
    ],
)
def test_a_first_person_sentence_that_is_no_complaint_is_left_alone(question: str) -> None:
    assert troubles.task(question) == ("", False)


def test_a_wish_gets_tips_without_sympathy_and_a_complaint_with() -> None:
    wish, _ = answer("I want to get fit, any tips?")
    complaint, _ = answer("I feel tired all the time")
    assert not any(w in wish for w in ("frustrating", "Sorry", "wear you down")), wish
    assert any(w in complaint for w in ("frustrating", "Sorry", "wear you down")), complaint


# --- tips for a group of people: tips for what the group does --------------------------------------------------


@pytest.mark.parametrize(
    ("question", "task"),
    [
        ("Tips for new swimmers", "learn to swim"),  # sport
        ("Any advice for beginner bakers?", "start baking"),  # food
        ("Tips for first-time managers", "manage a team"),  # work
        ("Advice for new teachers", "teach a class well"),  # school
        ("Any tips for first-time investors?", "invest your money wisely"),  # money
        ("Tips for writers", "write better"),  # writing
        ("Advice for aspiring singers", "learn to sing"),  # a hobby, after an -ing word
        ("Tips for new drivers", "drive safely and confidently"),  # travel
    ],
)
def test_tips_for_a_group_are_tips_for_what_the_group_does(nlp: Any, question: str, task: str) -> None:
    asked = forms.read(read(question))
    assert (asked.form, asked.task, asked.other) == ("steps", task, "tips")
    text, _ = answer(question)
    assert len(_TIP.findall(text)) >= 4 and task in text, text
    assert not any(v in text.lower() for v in _VAGUE), text  # tips, not a benefits list nor a vague lookup
    _no_repeats(text)
    assert not _grammar(nlp, text, question, "steps")


def test_a_group_whose_doing_is_unknown_names_no_task() -> None:
    assert troubles.group(["new", "neighbors"]) == troubles.group(["the", "weekend"]) == ""


# --- the domain and the steps fit the task --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "not_domain"),
    [
        ("How do I fix a wobbly table?", ("software", "data")),
        ("How do I glue a table leg back on?", ("software", "data")),
        ("My phone battery drains fast, how do I fix it?", ("web",)),
        ("How do I clean my phone screen?", ("web",)),
    ],
)
def test_the_domain_follows_the_sense_of_the_word(question: str, not_domain: tuple[str, ...]) -> None:
    q = read(question)
    assert LEXICON.domain(w.lower() for w in q.words).name not in not_domain


_SLEEP = ("bed", "bedroom", "caffeine", "asleep")


@pytest.mark.parametrize(
    ("question", "kind", "said"),
    [
        ("How do I stretch my hamstrings?", "stretch", ("warm", "hold")),
        ("How can I become more flexible?", "stretch", ("seconds",)),
        ("How do I lower my blood pressure?", "heart", ("salt", "doctor")),
        ("How can I lower my cholesterol?", "heart", ("doctor",)),
        ("How can I eat more vegetables?", "eat", ("plate", "shop")),
        ("How do I start running?", "fitness", ("week", "rest")),
        ("How can I stop forgetting things?", "remember", ()),
        ("How do I get over a cold quickly?", "cope", ()),
    ],
)
def test_a_health_task_gets_steps_of_its_own_kind(question: str, kind: str, said: tuple[str, ...]) -> None:
    q = read(question)
    domain = LEXICON.domain(w.lower() for w in q.words)
    found, _ = steps_of(domain, forms.read(q).task)
    assert found == kind
    text, _ = answer(question)
    if kind != "cope":
        assert not any(w in text.lower() for w in _SLEEP), text  # no sleep routine for other health tasks
    assert all(w in text.lower() for w in said), text
    _no_repeats(text)


def test_a_health_task_without_its_own_kind_gets_steps_that_fit_any_health_task() -> None:
    health = next(d for d in LEXICON.domains if d.name == "health")
    _, steps = steps_of(health, "drink less alcohol")
    said = " ".join(s for _, s in steps).lower()
    assert not any(w in said for w in _SLEEP)


# --- a common subject defined specifically -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "named", "said"),
    [
        ("What is a black hole?", "a black hole", ("gravity", "light")),  # science
        ("What is photosynthesis?", "photosynthesis", ("sunlight", "oxygen")),
        ("What is DNA?", "dna", ("genes", "protein")),
        ("What is an atom?", "an atom", ("electrons", "nucleus")),
        ("What is a recession?", "a recession", ("jobs", "spend")),  # money
        ("What is compound interest?", "compound interest", ("balance",)),
        ("What is cryptocurrency?", "cryptocurrency", ("ledger",)),
        ("What is GDP?", "gdp", ("goods and services",)),
        ("What is cholesterol?", "cholesterol", ("blood", "liver")),  # health
        ("What is diabetes?", "diabetes", ("insulin", "sugar")),
        ("What is a migraine?", "a migraine", ("headache",)),
        ("What was the Renaissance?", "the renaissance", ("italy", "art")),  # history
        ("What was the Cold War?", "the cold war", ("soviet union", "nuclear")),
        ("What is democracy?", "democracy", ("elections",)),
        ("What is jet lag?", "jet lag", ("time zones", "body clock")),  # everyday life
        ("What is daylight saving time?", "daylight saving time", ("clocks",)),
        ("What is recycling?", "recycling", ("glass",)),
        ("What is the internet?", "the internet", ("routers", "packets")),
    ],
)
def test_a_common_subject_gets_a_specific_definition(
    nlp: Any, question: str, named: str, said: tuple[str, ...]
) -> None:
    assert forms.read(read(question)).form == "definition"
    text, reasoning = answer(question)
    first = text.split(". ")[0].lower()
    assert f"{named} is " in first, text  # it opens by saying what the subject is
    assert all(w in text.lower() for w in said), text
    assert 40 <= len(words(text)) <= 120, text
    assert "\n" not in text and not any(v in text for v in _VAGUE[:3]), text
    _no_repeats(text)
    assert not _grammar(nlp, text, question, "definition")


def test_every_thing_has_seven_fields_and_a_name_each_reader_resolves() -> None:
    for name, thing in LEXICON.things.items():
        assert thing.named and thing.kind and thing.does and thing.how and thing.care.endswith("."), name
        assert LEXICON.thing(thing.named) is not None, thing.named


def test_the_reasoning_of_a_plural_definition_agrees() -> None:
    _, reasoning = answer("What are black holes?")
    assert "what black holes are" in reasoning, reasoning
    _, reasoning = answer("What is a black hole?")
    assert "what a black hole is" in reasoning, reasoning


# --- help with code one has, and with git ---------------------------------------------------------------------

_STEP = re.compile(r"^\d+\. \*\*[^*]+\*\*: .+", re.M)


@pytest.mark.parametrize(
    ("question", "kind", "said"),
    [
        ("How do I fix a bug in my Python code?", "software", ("change",)),
        ("How can I debug our Rust code?", "software", ("change",)),
        ("How can I make my Go code run faster?", "speed", ("measure",)),
        ("How do I speed up my Postgres query?", "speed", ("measure",)),
        ("How do I write more readable code?", "quality", ("clean code", "function")),
        ("How should I refactor my Java code?", "quality", ("clean code", "function")),
        ("How do I resolve merge conflicts?", "git", ("git", "merge")),
        ("How do I deal with a merge conflict in my branch?", "git", ("git", "merge")),
        ("How do I undo the last commit?", "git", ("git", "reflog")),
        ("How can I squash my commits before a pull request?", "git", ("git", "reflog")),
    ],
)
def test_help_with_code_one_has_or_with_git_is_steps_of_that_work_not_a_stub(
    question: str, kind: str, said: tuple[str, ...]
) -> None:
    """'How do I fix a bug in my Python code?' was read as a request for code: a stub named `how_do_fix_bug`.
    "How do I fix a merge conflict?" got a chair's repair steps (a screwdriver, glue, a patch kit)."""
    text, reasoning = answer(question)
    assert "```" not in text and "def " not in text, text
    assert len(_STEP.findall(text)) >= 4, text
    assert "software development" in reasoning or "data work" in reasoning or kind == "git", reasoning
    assert all(word in text.lower() for word in said), (said, text)  # words of the kind's every other step
    assert not any(word in text.lower() for word in ("screwdriver", "glue", "patch kit", "repair shop")), text


@pytest.mark.parametrize(
    "question",
    [
        "How do I write a function that merges two sorted lists?",
        "Write a Python script that renames my photos by date.",
        "Can you write clean Python code that parses a CSV file?",
        "Write a SQL query to find our top ten customers.",
    ],
)
def test_a_request_for_new_code_is_still_answered_with_code(question: str) -> None:
    assert "```" in answer(question)[0]


@pytest.mark.parametrize(
    ("question", "said", "reasoned"),
    [
        ("Should I tell my landlord I'm moving out?", "you're moving out", "they're moving out"),
        ("How do I tell my coach I’ve hurt my knee?", "you've hurt your knee", "they've hurt their knee"),
        ("How do I tell my sister we'll miss her party?", "you'll miss her party", "they'll miss her party"),
        ("How do I say no when I'd rather not go?", "you'd rather not go", "they'd rather not go"),
    ],
)
def test_a_contraction_of_the_users_own_is_said_back_in_the_answers_person(
    question: str, said: str, reasoned: str
) -> None:
    """'I'm leaving' came back as 'you'm leaving' in the answer and 'them'm leaving' in the reasoning."""
    text, reasoning = answer(question)
    assert said in text and reasoned in reasoning, (text, reasoning)
    assert not re.search(r"\b(?:you|them|they)'m\b|\bthem'(?:ve|d|ll)\b", text + reasoning), (text, reasoning)


@pytest.mark.parametrize(
    ("question", "task"),
    [
        ("What should I say to my flatmate about the dishes?", "talk to your flatmate about the dishes"),
        ("What should I say to a coworker who keeps interrupting?", "talk to a coworker who keeps interrupting"),
        ("What should I say in a salary negotiation?", "prepare for a salary negotiation"),
    ],
)
def test_what_to_say_to_someone_or_in_something_gets_tips_for_that_talk(question: str, task: str) -> None:
    """'What should I say to my boss?' was advice on 'whether or how to say to your boss'."""
    text, reasoning = answer(question)
    assert len(_TIP.findall(text)) >= 4 and task in text, text
    assert "whether or how" not in reasoning and "say to your" not in text, text


@pytest.mark.parametrize(
    "question",
    ["How do I tell my parents I failed a class?", "Is it okay to skip a yoga class when I'm tired?"],
)
def test_a_class_one_takes_is_not_a_request_for_code(question: str) -> None:
    text, reasoning = answer(question)
    assert "```" not in text and "wants code" not in reasoning, (text, reasoning)


@pytest.mark.parametrize("question", ["Name ideas for our new collie", "Names for a dachshund", "Name my husky"])
def test_a_pet_named_by_its_breed_gets_a_pets_names(question: str) -> None:
    """'What's a good name for a golden retriever?' got a shop's names ('The Honest Compass')."""
    text = answer(question)[0]
    assert "pets" in text or "vet" in text or '"sit"' in text or "call out" in text, text
    assert not re.search(r"\*\*The [A-Z]\w+ [A-Z]\w+\*\*", text), text


# --- an enumeration names the members themselves ------------------------------------------------------------

_ITEM = re.compile(r"^(?:- |\d+\. )(.+)$", re.M)


@pytest.mark.parametrize(
    ("question", "count", "ordered"),
    [
        ("Name four vegetables", 4, False),
        ("What are some good board games?", 5, False),
        ("List six spices.", 6, False),
        ("Name three cat breeds.", 3, False),
        ("List the days of the week", 7, True),
        ("Name two oceans", 2, True),
        ("What are the states of matter?", 4, True),
        ("What are the layers of the Earth?", 4, True),
    ],
)
def test_an_enumeration_names_members_of_its_category_not_benefits_of_it(
    question: str, count: int, ordered: bool
) -> None:
    """'Name three fruits' got 'Fruits can lower the chance of dough that will not rise'; 'List five countries in
    Europe', 'Countries in Europe can take work off your hands'. An enumeration of a known category names its
    members: all of a small ordered set in its order, or as many of a large one as asked (five if not said)."""
    from emulator.default_model.members import members

    text, reasoning = answer(question)
    items = _ITEM.findall(text)
    category = members(question.rstrip("?.").split(" ", 2)[-1].removeprefix("list ").removeprefix("the "))
    assert category is not None, question
    known = [m.lower() for m in category[1]]
    assert len(items) == count and all(item.lower() in known for item in items), (items, text)
    assert len(set(items)) == len(items), items
    if ordered:
        assert [known.index(i.lower()) for i in items] == list(range(count)), items
    assert "can improve" not in text and "take work off" not in text and "name" in reasoning, (text, reasoning)


@pytest.mark.parametrize(
    "question", ["What are vegetables?", "What are the benefits of team sports?", "Name my new kitten"]
)
def test_a_question_about_a_category_itself_is_not_an_enumeration(question: str) -> None:
    text = answer(question)[0]
    members = r"(?:vegetables|sports|team sports|kittens|cats)\b"  # the category's members, listed
    assert not re.search(rf"^(?:Here|There) are \w+ {members}", text, re.M | re.I), text


@pytest.mark.parametrize("question", ["Could you list four herbs?", "Can you please name the seasons?"])
def test_a_polite_request_for_a_list_is_one(question: str) -> None:
    text, reasoning = answer(question)
    assert len(_ITEM.findall(text)) == 4 and "name" in reasoning, text


@pytest.mark.parametrize(
    ("question", "category"),
    [("Name a country in Asia", "country in Asia"), ("Give me an example of a citrus fruit", "citrus fruit")]
    + [("Name one spice", "spice"), ("Name a musical instrument", "musical instrument")],
)
def test_one_member_asked_for_is_named_in_a_sentence(question: str, category: str) -> None:
    """'Name a country in Africa' got a list of a country's benefits."""
    text, reasoning = answer(question)
    assert re.fullmatch(rf"[A-Z][\w ()'-]+ is an? {category}\. .+", text), text
    assert f"name one {category}" in reasoning, reasoning


@pytest.mark.parametrize(
    ("question", "count"),
    [("How many seasons are there?", 4), ("How many Great Lakes are there?", 5), ("How many vowels are there?", 5)],
)
def test_how_many_of_a_small_set_says_the_number_and_names_them(question: str, count: int) -> None:
    text = answer(question)[0]
    assert text.startswith(f"There are {('four', 'five')[count - 4]} ") and len(_ITEM.findall(text)) == count, text


@pytest.mark.parametrize("question", ["Could you recommend four cooking herbs?", "Suggest some indoor plants"])
def test_a_recommendation_from_a_known_category_names_members(question: str) -> None:
    text, reasoning = answer(question)
    assert len(_ITEM.findall(text)) in (4, 5) and "name" in reasoning and "whether" not in reasoning, text
