"""Issue 26's fifth round of weak classes, each tried with prompts of our own and read for the kind of answer: a
request for tips, advice or recommendations, however it is worded, gets a list of tips for the task it names
(or for what a group of people does, or someone does); a feeling said in the first person gets a word of
sympathy and suggestions that fit it; repair steps fit what is repaired (no power, water or gas for a chair);
and a pursuit with a craft of its own (blogging, investing, hiking, cooking, parenting, studying…) gets that
craft's steps, not a habit's or a budget's.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from emulator.default_model import forms, prose
from emulator.default_model.howtos import steps_of
from emulator.default_model.lexicon import LEXICON
from emulator.default_model.question import read
from tests.test_default_tasks import _grammar, _no_repeats
from tests.test_writing import answer, nlp

__all__ = ["nlp"]  # the parser fixture, shared with test_writing

_TIP = re.compile(r"^- \*\*[^*]+\*\*: .+", re.M)
_STEP = re.compile(r"^\d+\. \*\*[^*]+\*\*: .+", re.M)
_VAGUE = ("offline", "reference", "encyclopedia", "depends on the context", "matter of record")
# The labels of the steps that fit any habit or any money task: a pursuit with a craft of its own gets neither.
_HABIT = ("Pick one specific change", "Make the right choice easy", "Track each day", "Plan for slips")
_BUDGET = ("Know your numbers", "Compare your options", "Make it automatic", "Keep a record")
_SYMPATHY = ("sorry", "feel this way", "common", "frustrating", "wear you down")


def _kind(question: str) -> tuple[str, str]:
    """The task `question` is read as, and the kind of steps it gets (a section of lexicon/howto.txt)."""
    q = read(question)
    asked = forms.read(q)
    assert asked.form == "steps", asked
    kind, _ = steps_of(prose.domain(q), asked.task)
    return asked.task, kind


def _tips(nlp: Any, question: str) -> str:
    text, reasoning = answer(question)
    assert len(_TIP.findall(text)) >= 4, text
    assert not any(v in text.lower() for v in _VAGUE), text
    assert "tips" in reasoning or "steps" in reasoning, reasoning
    _no_repeats(text)
    assert not _grammar(nlp, text, question, "steps")
    return text


# --- tips, advice and recommendations, however they are asked for ------------------------------------------------


@pytest.mark.parametrize(
    ("question", "task", "kind"),
    [
        ("What tips do you have for beginner photographers?", "take better photos", "photography"),
        ("Do you have any advice for a first-time car buyer?", "buy your first car", "choose"),
        ("Any pointers for someone who is learning to cook?", "learn to cook", "cooking"),
        ("What advice do you have for someone who is new to running?", "start running", "fitness"),
        ("Recommendations for a weekend trip to Lisbon", "plan a weekend trip to Lisbon", ""),  # travel's own
        ("Could you give me some advice on negotiating a salary?", "negotiate a salary", "talk"),
        ("Got any tips for a job interview next week?", "prepare for a job interview next week", "exam"),
        ("Any advice for a new mum?", "look after a new baby", "baby"),
        ("Tips and tricks for new gardeners", "start gardening", "grow"),
        ("What advice would you give someone who wants to start a podcast?", "start a podcast", "any"),
        ("What's your advice for someone moving abroad?", "move abroad", "any"),  # someone, without "who"
        ("What would you recommend for a beginner runner?", "start running", "fitness"),
        ("What tips would you give to a beginner guitarist?", "learn to play the guitar", "learn"),
        ("Tips for better sleep", "sleep better", "sleep"),  # a goal said as a noun
        ("Any advice on weight loss?", "lose weight", "fitness"),
        ("Any tips for a long flight?", "get through a long flight", "flight"),
        ("I need some tips for my garden", "look after your garden", "grow"),
        ("Tips for new hikers in the mountains", "start hiking in the mountains", "hike"),  # a group, and where
        ("Advice for new investors in their twenties", "invest your money wisely in your twenties", "invest"),
        ("Tips for beginner bloggers who want more readers", "start blogging", "blog"),
        ("Hints for a beginner chess player", "learn to play chess", "learn"),  # what a player plays
        ("Please give me some advice for my first marathon", "train for your first marathon", "fitness"),
        ("Any advice for someone starting a new job?", "start a new job", "newjob"),
    ],
)
def test_a_request_for_tips_in_any_wording_gets_tips_for_its_task(
    nlp: Any, question: str, task: str, kind: str
) -> None:
    assert _kind(question) == (task, kind)
    asked = forms.read(read(question))
    assert asked.other == "tips" and not asked.source, asked  # tips, and no sympathy: nothing went wrong
    text = _tips(nlp, question)
    assert task in text, text


@pytest.mark.parametrize(
    ("question", "task", "kind"),
    [
        ("I'm a new teacher, any advice?", "teach a class well", "teach"),  # who one is, with a plea
        ("Give me tips on how to save money", "save money", ""),  # money's own steps
    ],
)
def test_tips_asked_of_who_one_is_or_on_how_to_name_their_task(question: str, task: str, kind: str) -> None:
    assert _kind(question) == (task, kind)
    assert not forms.read(read(question)).source  # no sympathy: nothing went wrong
    assert forms.read(read("I am a student.")).form != "steps"  # who one is, with no plea, asks nothing


def test_suggestions_for_a_thing_are_still_ideas_and_advice_to_no_one_is_no_task() -> None:
    assert forms.read(read("Any suggestions for a birthday party theme?")).form == "ideas"
    assert forms.read(read("Give some advice to someone")).form != "steps"


# --- a feeling, with or without a plea, gets sympathy and suggestions that fit it --------------------------------


@pytest.mark.parametrize(
    ("question", "task", "said"),
    [
        ("I'm feeling so bored today", "beat boredom", ("walk|friend|run", "make|cook|learn|clear")),
        ("I'm bored out of my mind, any ideas?", "beat boredom", ("walk|friend|run", "make|cook|learn|clear")),
        ("I'm bored, what can I do tonight?", "beat boredom", ()),
        ("I've been feeling really low", "lift your mood", ("walk|friend|music", "doctor|counselor|helpline")),
        ("I feel so unhappy lately", "lift your mood", ("walk|friend|music",)),
        ("I'm so stressed about my finals", "manage stress about your finals", ()),
        ("I'm anxious about starting a new job", "manage anxiety about starting a new job", ()),
        ("I'm really lonely since I moved", "make new friends", ("club|invitation|friends",)),
        ("I'm homesick, any advice?", "cope with homesickness", ()),
    ],
)
def test_a_feeling_gets_sympathy_and_suggestions_that_fit_it(
    nlp: Any, question: str, task: str, said: tuple[str, ...]
) -> None:
    asked = forms.read(read(question))
    assert (asked.form, asked.task, asked.other) == ("steps", task, "tips")
    text = _tips(nlp, question)
    opening = text.split("\n", 1)[0].lower()
    assert any(w in opening for w in _SYMPATHY) and task in opening, text
    assert all(re.search(w, text.lower()) for w in said), text


@pytest.mark.parametrize(
    ("question", "task", "kind"),
    [
        ("What should I do this weekend?", "find something to do this weekend", "boredom"),  # free time to fill
        ("What can I do tonight?", "find something to do tonight", "boredom"),
        ("What should I do about my debt?", "deal with your debt", "debt"),  # a problem to deal with
    ],
)
def test_what_to_do_with_free_time_or_about_a_problem_gets_tips(nlp: Any, question: str, task: str, kind: str) -> None:
    assert _kind(question) == (task, kind)
    text = _tips(nlp, question)
    assert task in text and "whether" not in text, text


def test_what_one_can_do_otherwise_is_no_advice() -> None:
    assert forms.read(read("What can I do to help?")).form != "advice"


@pytest.mark.parametrize("question", ["I'm down to my last ten dollars", "I'm low on petrol"])
def test_a_word_for_a_mood_said_of_something_else_is_no_feeling(question: str) -> None:
    assert forms.read(read(question)).task != "lift your mood"


def test_tired_of_something_is_fed_up_not_sleepy() -> None:
    assert forms.read(read("I'm so tired of this")).task == "cope with feeling fed up"
    assert forms.read(read("I'm so tired lately")).task == "have more energy"


# --- repair steps fit what is repaired -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "kind", "said", "unsaid"),
    [
        ("How do I fix a creaky bed frame?", "repair-furniture", ("screw",), ("water", "gas")),
        ("How do I repair a loose cabinet door?", "repair-furniture", ("hinge",), ("water", "gas")),
        ("How do I fix a running toilet?", "repair-plumbing", ("valve",), ("unplug",)),
        ("How can I fix a dripping shower head?", "repair-plumbing", ("washer",), ("unplug",)),
        ("How do I repair a broken lamp?", "repair-appliance", ("unplug",), ("water",)),
        ("How do I fix a slipping bike chain?", "repair-bike", ("chain",), ("water", "gas")),
        ("How do I patch a hole in my sweater?", "repair-clothing", ("stitch",), ("power", "water", "gas")),
        ("How do I fix a crack in the ceiling?", "repair-wall", ("filler",), ("gas",)),
        ("How do I fix a stuck zip on my coat?", "repair-zip", ("slider",), ("power", "water", "gas")),
        ("My office chair keeps sinking", "repair-furniture", ("screw",), ("restart", "water", "gas")),
        ("How do I sew a button back on?", "button", ("needle",), ("power", "water", "gas")),
    ],
)
def test_repair_steps_fit_what_is_repaired(
    nlp: Any, question: str, kind: str, said: tuple[str, ...], unsaid: tuple[str, ...]
) -> None:
    assert _kind(question)[1] == kind
    text, _ = answer(question)
    assert len(_STEP.findall(text)) + len(_TIP.findall(text)) >= 5, text
    low = text.lower()
    assert all(w in low for w in said) and not any(re.search(rf"\b{w}\b", low) for w in unsaid), text
    _no_repeats(text)
    assert not _grammar(nlp, text, question, "steps")


def test_a_thing_of_no_known_kind_gets_repair_steps_that_fit_anything() -> None:
    assert _kind("How do I fix a broken umbrella?")[1] == "repair"
    text, _ = answer("How do I fix a broken umbrella?")
    assert not re.search(r"\b(?:water|gas)\b", text), text


def test_every_kind_of_repair_names_what_it_repairs_and_has_steps() -> None:
    kinds = {kind for kind, _ in LEXICON.objects.values()}
    assert {"repair-furniture", "repair-appliance", "repair-plumbing", "repair-clothing", "repair-wall"} <= kinds
    for kind in kinds:
        assert len(LEXICON.howto[kind][1]) >= 6 and kind in LEXICON.closes, kind


# --- a pursuit with a craft of its own gets that craft's steps ----------------------------------------------------


@pytest.mark.parametrize(
    ("question", "kind", "said"),
    [
        ("Tips for aspiring bloggers", "blog", ("post",)),
        ("Any advice for first-time investors?", "invest", ("fund",)),
        ("Any advice for new trekkers?", "hike", ("trail",)),
        ("Advice for home cooks", "cooking", ("heat|salt|knife",)),
        ("Tips for young parents", "parent", ("child",)),
        ("Tips for university students", "study", ("review|test yourself|exam",)),
        ("Any advice for beginner photographers?", "photography", ("light|frame",)),
        ("How do I start investing?", "invest", ("fund",)),
        ("How do I start a blog?", "blog", ("post",)),
        ("Tips for first-time travelers", "", ("passport|book|budget",)),  # travel's own
        ("Advice for beginner knitters", "learn", ("practice|feedback",)),  # a craft without steps of its own
        ("Tips for new teachers", "teach", ("lesson|students",)),
    ],
)
def test_a_pursuit_gets_the_steps_of_its_own_craft(nlp: Any, question: str, kind: str, said: tuple[str, ...]) -> None:
    assert _kind(question)[1] == kind
    text, _ = answer(question)
    assert not any(f"**{label}**" in text for label in _HABIT + _BUDGET), text
    assert all(re.search(w, text.lower()) for w in said), text
    _no_repeats(text)
    assert not _grammar(nlp, text, question, "steps")


def test_a_named_phrase_wins_over_a_wildcard_of_the_same_length() -> None:
    assert LEXICON.kind_of("start gardening") == "grow" and LEXICON.kind_of("start skating") == "habit"
