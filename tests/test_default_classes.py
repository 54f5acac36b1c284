"""The classes of weakness issue 26's third round left in the default's answers, each tried with prompts of our own
in several domains and read for its form: a why-answer gives a cause, a mechanism and a consequence naming its
subject; a word with two senses takes the one the question's other words mean; "code" that is not a program's
(a QR code, a dress code) gets an explanation, not a code block; the request's punctuation never reaches the
code written for it; advice questions get advice, their clause said as a verb phrase.
"""

from __future__ import annotations

import ast
import itertools
import re
from typing import Any

import pytest

from emulator.default_model import code, forms, prose
from emulator.default_model.lexicon import LEXICON
from emulator.default_model.question import read
from tests.test_writing import answer, names_its_subject, nlp, problems, sentences, words

__all__ = ["nlp"]  # the parser fixture, shared with test_writing

_HEADERS = ("**The cause**", "**How it works**", "**What follows**")
_CAUSAL = re.compile(r"\b(?:because|since|so that|which is why|as a result|comes down to|drive[s]? it)\b")
# The frames that fit any event and so say nothing (what a why-answer of an everyday event said before).
_VAGUE = ("something starts it, something carries it along", "It starts with a trigger", "a chain of steps")


def _body(text: str) -> list[str]:
    return [s for s in sentences(text, "why") if len(s.split()) > 4 and not s.startswith(_HEADERS)]


def _grammar(nlp: Any, text: str, question: str, kind: str) -> list[str]:
    return [f"{s!r}: {p}" for s in sentences(text, kind) for p in problems(nlp, s, question)]


# --- why: cause, mechanism, consequence, naming the subject --------------------------------------------------


@pytest.mark.parametrize(
    ("question", "actor"),
    [
        ("Why do people sneeze?", "people"),  # the body
        ("Why do we get goosebumps?", "you"),
        ("Why does my knee ache when it rains?", "knee"),
        ("Why do dogs howl at night?", "dogs"),  # an animal
        ("Why do horses sleep standing up?", "horses"),
        ("Why do sunflowers follow the sun?", "sunflowers"),  # a plant
        ("Why does milk go sour?", "milk"),  # a material
        ("Why do bananas turn brown?", "bananas"),
        ("Why do toddlers throw tantrums?", "toddlers"),  # a mind
        ("Why do fans paint their faces at football games?", "fans"),
    ],
)
def test_a_why_answer_about_an_everyday_event_gives_cause_mechanism_and_consequence(
    nlp: Any, question: str, actor: str
) -> None:
    text, reasoning = answer(question)
    assert all(h in text for h in _HEADERS), text
    assert not any(v in text for v in _VAGUE), text
    body = _body(text)
    named = [s for s in body if actor in s.lower()]
    assert len(named) >= 2 * len(body) // 3, f"{question}: {body}"
    assert len(_CAUSAL.findall(text)) >= 2, text
    assert 150 <= len(words(text)) <= 400
    assert len(_grammar(nlp, text, question, "why")) <= 1  # the parser mis-tags a rare good one


def test_why_answers_of_one_kind_share_frames_but_differ_in_what_they_name() -> None:
    first, second = answer("Why do cats purr?")[0], answer("Why do bees dance?")[0]
    assert "cats purr" in first and "bees dance" in second
    assert not set(_body(first)) & set(_body(second))


# --- word sense ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "unwanted"),
    [
        ("Why do football fans sing?", ("blades", "motor", "air conditioner")),
        ("Why do fans cheer for a losing team?", ("blades", "motor")),
        ("What is a python library?", ("lends books", "catalog")),
        ("Why does a stock for soup need bones?", ("company", "dividend")),
        ("What does a server in a restaurant do?", ("processor", "network connections")),
    ],
)
def test_a_word_with_two_senses_does_not_take_the_one_the_question_rules_out(
    question: str, unwanted: tuple[str, ...]
) -> None:
    text = answer(question)[0].lower()
    assert not [u for u in unwanted if u in text], text


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("What is a ceiling fan?", "blades"),
        ("What is a library?", "books"),
        ("What is a bank?", "loans"),
        ("What does a server do?", "network"),
    ],
)
def test_the_lexicons_own_sense_still_answers_when_nothing_rules_it_out(question: str, wanted: str) -> None:
    assert wanted in answer(question)[0].lower()


@pytest.mark.parametrize(
    ("question", "not_in"),
    [
        ("What is a river bank?", "money"),
        ("How do I get a library card?", "software"),
        ("Why do cats knock things off tables?", "data"),
        ("How do I make chocolate chip cookies?", "web"),
        ("Why does rust form on an iron gate?", "software"),
        ("What is the fastest way of learning Japanese?", "data"),
        ("Is learning the violin at forty too late?", "data"),
        ("How should kids start learning chess?", "data"),
    ],
)
def test_a_word_said_in_its_other_sense_does_not_pick_the_domain(question: str, not_in: str) -> None:
    assert prose.domain(read(question)).name != not_in


@pytest.mark.parametrize("question", ["How does reinforcement learning train a model?", "Explain machine learning."])
def test_learning_by_machines_is_data_work(question: str) -> None:
    assert prose.domain(read(question)).name == "data"


def test_each_sense_entry_names_a_word_and_words_that_are_not_itself() -> None:
    assert LEXICON.senses["fan"] and all(word not in cues for word, cues in LEXICON.senses.items())


# --- "code" that is not a program's ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "What is a QR code?",
        "What does the zip code 10001 cover?",
        "Explain the dress code for a wedding",
        "What is Morse code?",
        "What does error code 404 mean?",
        "Can you explain the building code for decks?",
        "Give me the area code for Boston",
        "Write a code of conduct for my team",
    ],
)
def test_code_in_another_sense_gets_an_explanation_not_a_code_block(question: str) -> None:
    text, reasoning = answer(question)
    assert "```" not in text and "def " not in text, text
    assert names_its_subject(text, question), text
    assert "code for" not in reasoning.lower() or "wants code" not in reasoning.lower()
    assert code.write(question, itertools.cycle([0])) is None
    assert forms.read(read(question)).form != "code"


@pytest.mark.parametrize(
    ("question", "fence"),
    [
        ("write code to reverse a list", "python"),
        ("Python code that counts words in a file", "python"),
        ("Write JavaScript code to shuffle an array", "javascript"),
        ("Code a function that checks if a number is prime", "python"),
        ("Write Python code to validate a zip code", "python"),
        ("I need bash code that backs up my photos folder", "bash"),
    ],
)
def test_a_request_for_program_code_still_gets_code(question: str, fence: str) -> None:
    text = answer(question)[0]
    block = re.search(rf"```{fence}\n(.*?)\n```", text, re.S)
    assert block, text
    if fence == "python":
        ast.parse(block.group(1))


# --- the request's punctuation never reaches the code -----------------------------------------------------------

_ODD = re.compile(r"[«»“”‘’\"`$*\\<>{}\[\]|]|-{2,}")


@pytest.mark.parametrize(
    "request_",
    [
        "write function «",
        "write function: «hello»",
        "write a function that “cleans” the data",
        "Write a JS function that strips */ from comments",
        'write a function that returns """ triple quotes',
        "write an html page that says hi --> there",
        "write a go function that prints a backslash \\ twice",
        "write a function that handles $PATH {fast}",
        "Write a TypeScript function that <escapes> [html] | pipes",
        "write a bash script that greets `whoami`",
    ],
)
def test_the_requests_odd_punctuation_never_reaches_the_code(request_: str) -> None:
    """The code written for a request is the code written for it without its odd punctuation, and its name is
    an identifier."""
    written = code.write(request_, itertools.cycle([0, 1]))
    plain = code.write(_ODD.sub(" ", request_), itertools.cycle([0, 1]))
    assert written is not None and plain is not None
    assert written.source == plain.source, written.source
    name = written.name.replace("-", "_")
    assert name.isidentifier() and name.isascii(), name
    if written.language == "python":
        ast.parse(written.source)


@pytest.mark.parametrize(
    ("request_", "name"),
    [
        ('Write a Python function called "parse-date" that parses a date', "parse_date"),
        ("write a function named 'my func' that adds two numbers", "my_func"),
        ("write a python function called «total_price»", "total_price"),
        ("Write a JS function that checks if a string is a palindrome!!! (pls)", "isPalindrome"),
        ("write a function that -- uh -- sorts a list", "sort_list"),
        ("write a function to fetch https://example.com/a?b=1 as text", "fetch_as_text"),
    ],
)
def test_a_name_is_a_clean_identifier_from_the_questions_words(request_: str, name: str) -> None:
    written = code.write(request_, itertools.cycle([0]))
    assert written is not None and written.name == name


# --- advice ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "clause"),
    [
        ("Should I learn to drive at 40?", "learn to drive at 40"),
        ("Should I buy or lease a car?", "buy or lease a car"),
        ("Is it safe to swim after eating?", "swim after eating"),
        ("How often should I water a cactus?", "water a cactus"),
        ("How much should I tip a taxi driver?", "tip a taxi driver"),
        ("Can you suggest a board game for four players?", "choose a board game for four players"),
        ("Is it worth it to repair an old laptop?", "repair an old laptop"),
        ("What should I wear to a job interview?", "wear to a job interview"),
    ],
)
def test_an_advice_question_gets_points_that_decide_it_its_clause_said_as_a_verb_phrase(
    nlp: Any, question: str, clause: str
) -> None:
    text, reasoning = answer(question)
    assert forms.read(read(question)).form == "advice"
    assert clause in text and clause in reasoning, text
    assert len(re.findall(r"^- \*\*[^*]+\*\*: ", text, re.M)) == 3, text
    assert f"{clause[:1].upper()}{clause[1:]} is " not in text  # the clause is never made a noun
    assert 50 <= len(words(text)) <= 200
    assert not _grammar(nlp, text, question, "advice")


def test_a_choice_between_two_things_stays_a_comparison() -> None:
    assert forms.read(read("Should I use Python or Go for a web server?")).form == "compare"


# --- recipes: a dish of the table, a dish of a known kind, and what is no dish ---------------------------------

_ANY_STEPS = ("Find out what it takes", "Gather what you need", "Try a small test first", "Work in order")


def _numbered(text: str) -> list[str]:
    return re.findall(r"^\d+\.\s+(.+)$", text, re.M)


@pytest.mark.parametrize(
    ("question", "dish"),
    [
        ("Could you share a recipe for French toast?", "french toast"),
        ("How do I make brownies?", "brownies"),
        ("I'd like a recipe for banana bread.", "banana bread"),
        ("How do I cook scrambled eggs?", "scrambled eggs"),
        ("How to make hummus", "hummus"),
        ("What's your favourite recipe for egg fried rice?", "fried rice"),
    ],
)
def test_a_recipe_of_the_table_has_ingredients_with_amounts_numbered_steps_and_a_tip(
    nlp: Any, question: str, dish: str
) -> None:
    text, reasoning = answer(question)
    assert forms.read(read(question)).form == "recipe"
    assert dish in text.lower() and "recipe" in reasoning, text
    head, _, rest = text.partition("**Ingredients**")
    ingredients, _, method = rest.partition("**Method**")
    items = re.findall(r"^- (.+)$", ingredients, re.M)
    assert len(items) >= 3 and sum(bool(re.match(r"\d", i)) for i in items) >= len(items) // 3, items
    assert len(_numbered(method)) >= 4 and "**Tip:**" in method, text
    assert 60 <= len(words(text)) <= 400
    assert len(_grammar(nlp, text, question, "recipe")) <= 2  # the parser takes some imperatives for nouns


@pytest.mark.parametrize(
    ("question", "dish", "kind"),
    [
        ("How do I make a vegetable soup?", "vegetable soup", "soup"),
        ("Give me a recipe for beef tacos.", "beef tacos", "sandwich"),
        ("How do I bake oatmeal cookies?", "oatmeal cookies", "cake"),
        ("How do I make a lamb tagine?", "lamb tagine", "stew"),
        ("Recipe for a Greek yogurt dip, please", "Greek yogurt dip", "sauce"),
        ("Can you give me a recipe for jollof rice?", "jollof rice", "grain"),
        ("I need a recipe for bibimbap.", "bibimbap", "dish"),
    ],
)
def test_a_dish_not_in_the_table_gets_its_kinds_method_naming_it_and_no_amounts(
    nlp: Any, question: str, dish: str, kind: str
) -> None:
    from emulator.default_model import recipes

    text = answer(question)[0]
    found = recipes.find(forms.read(read(question)).subject)
    assert found.dish is None and (found.kind.name if found.kind else "dish") == kind
    need = text.partition("**What you will need**")[2].partition("**Method**")[0]
    assert re.findall(r"^- ", need, re.M) and not re.search(r"\d", need), need  # no amounts it cannot know
    assert "exact amounts" in text
    assert sum(dish.lower() in s.lower() for s in _numbered(text)) >= 1 and text.count(dish) >= 3, text
    assert len(_grammar(nlp, text, question, "recipe")) <= 2  # the parser takes some imperatives for nouns


def test_a_recipe_for_a_diet_says_how_to_adapt_it_rather_than_giving_the_tables_eggs() -> None:
    text = answer("Can I get a recipe for vegan brownies?")[0]
    assert "3 eggs" not in text and "vegan" in text.partition("**Tip:**")[2], text


@pytest.mark.parametrize(
    "question",
    [
        "How do I make a paper boat?",
        "How do I make a good first impression?",
        "What is the recipe for a happy life?",
        "How do I make my website faster?",
        "How do I make a budget spreadsheet?",
    ],
)
def test_what_is_no_dish_gets_no_recipe(question: str) -> None:
    assert forms.read(read(question)).form != "recipe"
    assert "**Ingredients**" not in answer(question)[0]


# --- how-to steps by the kind of task --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "thing", "marks"),
    [
        ("How do I fix a wobbly table?", "table", ("screw", "glue|check|felt")),  # repairs, by what is repaired
        ("How can I mend a hole in my jeans?", "hole", ("stitch", "patch")),
        ("How do I unjam a stapler?", "stapler", ("cause", "test|check")),
        ("How do I get good at bowling?", "bowling", ("practice", "feedback")),  # a skill
        ("How can I improve at golf?", "golf", ("practice", "feedback")),
        ("How can I become a better listener?", "listener", ("practice", "feedback")),
        ("How do I quit vaping?", "vaping", ("small", "slips")),  # a habit
        ("How do I cope with loneliness?", "loneliness", ("talk", "patient")),  # hard feelings
        ("How do I tell my roommate to clean up?", "roommate", ("moment", "listen")),  # a hard conversation
        ("How do I hang shelves on a wall?", "shelves", ("measure", "level")),  # making things by hand
    ],
)
def test_a_how_to_gets_the_steps_of_its_kind_of_task_naming_it(
    nlp: Any, question: str, thing: str, marks: tuple[str, ...]
) -> None:
    text = answer(question)[0]
    steps = _numbered(text)
    assert len(steps) >= 5 and not any(s.startswith(f"**{a}") for s in steps for a in _ANY_STEPS), text
    assert sum(thing in s.lower() for s in steps) >= 2, steps
    assert all(re.search(m, text.lower()) for m in marks), text
    assert not _grammar(nlp, text, question, "steps")


def test_a_technical_fix_keeps_its_domains_steps() -> None:
    text = answer("How do I fix a memory leak in Python?")[0]
    assert "Make it safe" not in text and "**Read the error in full**" in text, text


@pytest.mark.parametrize(
    ("question", "task", "count"),
    [
        ("Give me three tips for learning to swim.", "learn to swim", 3),
        ("What are five ways to waste less food?", "waste less food", 5),
        ("Any tips on keeping houseplants alive?", "keep houseplants alive", 5),
        ("Do you have any advice for overcoming stage fright?", "overcome stage fright", 5),
    ],
)
def test_tips_for_a_task_are_as_many_as_asked_and_name_it(nlp: Any, question: str, task: str, count: int) -> None:
    text, reasoning = answer(question)
    items = re.findall(r"^- \*\*[^*]+\*\*: (.+)$", text, re.M)
    assert len(items) == count and task in text and task in reasoning, text
    assert "can improve" not in text and "None of these is guaranteed" not in text  # no benefit frames
    assert not _grammar(nlp, text, question, "list")


def test_the_best_way_to_do_something_is_answered_with_steps() -> None:
    text = answer("What's the easiest way to learn to juggle?")[0]
    assert len(_numbered(text)) >= 5 and "learn to juggle" in text, text


# --- small talk and agreement ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Thanks a lot!", r"welcome|glad"),
        ("Cheers, that fixed it.", r"welcome|glad"),
        ("Perfect, thank you very much.", r"welcome|glad"),
        ("Goodbye!", r"care|good day|come back"),
        ("Hello, how are you today?", r"\bwell\b|\bgood\b"),
    ],
)
def test_small_talk_gets_a_short_reply_in_kind(question: str, said: str) -> None:
    text, reasoning = answer(question)
    assert re.search(said, text, re.I) and len(words(text)) <= 20, text
    assert not re.search(r"offline|look(?:ing)? (?:it |facts )?up|matter of record", text), text
    assert "user" in reasoning


@pytest.mark.parametrize(
    "question", ["Give me a summary of the options for a pension.", "List the benefits of yoga.", "Give me a recipe."]
)
def test_a_singular_phrase_never_meets_a_plural_frame(question: str) -> None:
    assert not re.search(r"\bhere are an? ", answer(question)[0], re.I)


def test_a_phrase_is_plural_by_the_noun_before_its_preposition() -> None:
    from emulator.default_model import grammar

    assert not grammar.is_plural("a recipe for pancakes") and not grammar.is_plural("a summary of the options")
    assert grammar.is_plural("tips for new runners") and grammar.is_plural("the benefits of yoga")


# --- letters for an occasion ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Write a thank-you note to my neighbor for watering my plants.", r"thank you for watering my plants"),
        ("Write an apology email to a client for the missed meeting.", r"apologize for the missed meeting"),
        ("Write a birthday card for my best friend.", r"happy birthday"),
        ("Write a congratulations message for my cousin's graduation.", r"congratulations on your graduation"),
        ("Write a sympathy card to a friend who lost her dog.", r"sympathy"),
        ("Write a get well card for my dad.", r"recovery|feel better"),
        ("Draft an invitation to our summer barbecue.", r"join me for our summer barbecue"),
    ],
)
def test_a_letter_for_an_occasion_says_what_the_occasion_calls_for(nlp: Any, question: str, said: str) -> None:
    text, reasoning = answer(question)
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines[0].startswith("Subject: ") and re.match(r"(?:Dear|Hi) ", lines[1]), text
    assert re.search(r"(?:regards|wishes),$", lines[-2]), text
    assert re.search(said, text, re.I), text
    assert not re.search(r"I am writing to you about|share a few thoughts", text), text  # the letter of no occasion
    assert not re.search(r"\bthank-they\b|\bthey-", reasoning), reasoning
    assert not _grammar(nlp, text, question, "email")


# --- what to cook, and a plan asked for in the imperative ----------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "food"),
    [
        ("What should I cook for dinner tonight?", ""),
        ("What can I make with eggs and bread?", "egg"),
        ("What should we have for breakfast?", ""),
        ("What can I cook with lentils?", "lentil"),
    ],
)
def test_asked_what_to_cook_it_suggests_dishes_it_can_give_recipes_for(nlp: Any, question: str, food: str) -> None:
    from emulator.default_model import recipes

    text, reasoning = answer(question)
    named = re.findall(r"^- \*\*([^*]+)\*\* \(about [^)]+\): .+\.$", text, re.M)
    assert len(named) == 4 and len(set(named)) == 4, text
    assert all(n.lower() in recipes.DISHES for n in named)  # each one a dish it can give the recipe of
    assert not food or food in text.lower().partition("\n- ")[2].partition("\n- ")[0].lower(), text  # uses it first
    assert "Regret" not in text and "cook" in reasoning
    assert not _grammar(nlp, text, question, "recipe")  # its list: dishes named and said in a phrase


def test_a_plan_asked_for_in_the_imperative_gets_steps() -> None:
    text = answer("Plan a weekend trip to the mountains.")[0]
    assert len(_numbered(text)) >= 5 and "plan a weekend trip to the mountains" in text, text


def test_a_dish_asked_for_without_something_gets_no_table_recipe_and_says_what_to_replace() -> None:
    text = answer("How do I bake bread without yeast?")[0]
    assert "7 g fast-action dried yeast" not in text and "without yeast puts in its place" in text, text
    need = text.partition("**What you will need**")[2].partition("**Method**")[0]
    assert "yeast" not in need.lower(), need
