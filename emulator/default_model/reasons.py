"""The default model's reasoning: one to four sentences of thinking about the request (what is asked, what the
answer covers and in what order), or after tool results what they show; the user always in the third person.
"""

from __future__ import annotations

import re
import string

from emulator.default_model import grammar, members, page
from emulator.default_model.ask import Ask
from emulator.default_model.grammar import Slots, fill
from emulator.default_model.lexicon import Domain
from emulator.default_model.page import Dice


def reasoning(
    ask: Ask, domain: Domain, dice: Dice, count: int, after_tools: str = "", form: str = "", subject: str = ""
) -> str:
    """`count` sentences (one to four) of thinking about `ask`: what is asked, what the answer covers and in
    what order; or, `after_tools`, what the tools returned and what that means for the answer. A `form` and a
    `subject` given say what is written where `ask` says otherwise (code asked for as a definition: a copy of
    the `Ask` with them was dear for what it did)."""
    fixed = page.fixed(ask)
    form, subject, wanted = form or ask.form, subject or fixed["subject"], max(1, min(count, 4))
    if after_tools:
        said = [f"The tool results are in: {after_tools}.", f"Now I can answer the question about {subject}."]
    elif form == "greeting":
        said = list(_SMALL_TALK.get(ask.other, _GREETED))
    elif form == "followup":
        said = list(_FOLLOWED)
    else:
        task = fixed["task"]
        recipient = f"their {ask.recipient}" if ask.recipient else "the reader"
        asked = _ASKED[form]
        what = (
            asked.replace("{subject}", subject)
            if form in _OF_SUBJECT
            else asked.format(
                subject=subject,
                other=ask.other,
                task=task,
                language=ask.language,
                recipient=recipient,
                kind=_KINDS.get(ask.other) or f"a {ask.other}",
                about=f" about {subject}" * bool(ask.subject),
                be="are" if form == "definition" and grammar.is_plural(subject) else "is",  # "what carbs are"
                quoted=_quoted(ask.source) if form in _THEIR_TEXT else "",
            )
        )
        what = what.replace(" to the reader", "").replace("why work on ", "why ")
        if form == "steps" and task.startswith("know "):  # "… how to know what to do if": what to do if
            what = f"The user wants to {task}."
        if form == "compare" and ask.task:  # a choice said around its options: "learn piano or guitar first"
            what = f"The user wants to know whether to {task}, and so how {subject} and {ask.other} compare."
        said = [
            what if form in _THEIR_TEXT else _theirs(what),
            _TIPS_PLAN if ask.other == "tips" else _PLANS[form],
        ]
        if form == "list" and (category := members.asked(ask)):  # "Name three fruits": the members
            said = [f"The user asks me to name {members.which(category, ask)}.", members.plan(ask)]
        if form == "recipe" and ask.other == "suggest":
            said = [f"The user wants ideas for what to cook: {subject}.", _SUGGEST_PLAN]
        if form not in _CREATIVE and len(said) < wanted:  # the only sentence the dice choose words for
            said.append(fill(_FIELD, Slots(fixed, domain.lists, dice)))
        if ask.subject and form not in _THEIR_TEXT and len(said) < wanted:
            said.append(_theirs(f"Before answering, I will check that every part stays about {subject}."))
        elif form in _THEIR_TEXT and len(said) < wanted:
            said.append("Nothing will be added that their text does not say.")
    return " ".join(said[:wanted])


_THEIR_TEXT = frozenset(("summarize", "rewrite", "formal"))  # forms that work on the user's own text
_FIELD = "It is a question from {field}, so plain words and one idea at a time serve best."
_KINDS = {"fact": "a fun fact"}  # a joke's kind, said with its article


_GREETED = (
    "The user is greeting me.",
    "A short, friendly reply fits.",
    "I will greet them back and ask what they need.",
)
_SMALL_TALK = {
    "how": (
        "The user is greeting me and asking how I am.",
        "A short, friendly answer fits.",
        "I will say I am well and ask what they need.",
    ),
    "thanks": (
        "The user is thanking me.",
        "A short, warm reply fits.",
        "I will say they are welcome and offer more help.",
    ),
    "bye": (
        "The user is saying goodbye.",
        "A short, friendly farewell fits.",
        "I will wish them well and say they can come back.",
    ),
}
_FOLLOWED = ("The user wants more without naming a subject.", "I should ask which part to expand on.")
_CREATIVE = frozenset(
    ("haiku", "limerick", "poem", "story", "email", "summarize", "rewrite", "formal", "translate", "joke")
)
_YOUR = re.compile(r"\b(?:(\w+) )?(?<![-\w])(your|yours|yourself|you're|you've|you'd|you'll|you)\b(?!-)")
_THEIR = {"your": "their", "yours": "theirs", "yourself": "themselves", "you're": "they're", "you've": "they've"}
_THEIR |= {"you'd": "they'd", "you'll": "they'll"}
# Before "you" as the subject of a clause ("when you squat"); after any other word "you" is an object ("for you").
_SUBJECT = frozenset(
    [
        "when", "if", "as", "because", "that", "and", "or", "so", "while", "before", "after", "until", "once",
        "since", "where", "whether", "how", "what", "why", "which", "who", "do", "can", "should", "could", "would",
        "will", "must", "might", "unless", "than", "though"
    ]
)  # fmt: skip


def _quoted(text: str) -> str:
    """The opening words of the user's own text, quoted after a colon (": \"The meeting ran long…\""), or ""."""
    words = text.split()
    if not words:
        return ""
    said = " ".join(words[:6]).rstrip(".,;:!?")
    return f': "{said}…"' if len(words) > 6 else f': "{said}"'


def _theirs(text: str) -> str:
    """The reasoning speaks of the user in the third person, every pronoun of them: "improve your sleep" →
    "improve their sleep", "when you squat" → "when they squat", "suits you" → "suits them"."""

    if "you" not in text:  # most reasoning says no "you" or "your": no search (one is dear)
        return text

    def third(m: re.Match[str]) -> str:
        before, word = m.group(1), m.group(2)
        said = _THEIR.get(word) or ("they" if not before or before.lower() in _SUBJECT else "them")
        return f"{before} {said}" if before else said

    return _YOUR.sub(third, text)


_ASKED = {
    "short": "The user asks a short factual question about {subject}.",
    "definition": "The user asks what {subject} {be}.",
    "explain": "The user wants an explanation of {subject}.",
    "why": "The user asks why {task}.",
    "compare": "The user wants {subject} and {other} compared.",
    "proscons": "The user wants the pros and cons of {subject}.",
    "steps": "The user wants to know how to {task}.",
    "list": "The user asks for a list about {subject}.",
    "ideas": "The user wants ideas for {subject}.",
    "haiku": "The user wants a haiku about {subject}.",
    "limerick": "The user wants a limerick about {subject}.",
    "poem": "The user wants a short poem about {subject}.",
    "story": "The user wants a short story about {subject}.",
    "email": "The user wants a letter to {recipient} about {subject}.",
    "summarize": "The user wants their text summarized{quoted}.",
    "rewrite": "The user wants their text rewritten more clearly{quoted}.",
    "formal": "The user wants their message made formal{quoted}.",
    "translate": 'The user wants "{subject}" in {language}.',
    "code": "The user wants code for {subject}.",
    "advice": "The user asks for advice on whether or how to {task}.",
    "joke": "The user wants {kind}{about}.",
    "recipe": "The user wants a recipe for {subject}.",
}
# The forms whose sentence names the subject alone: filled without `format` and its eight arguments.
_OF_SUBJECT = frozenset(
    form for form, said in _ASKED.items() if {f for _, f, _, _ in string.Formatter().parse(said) if f} == {"subject"}
)
_SUGGEST_PLAN = "I will suggest a few dishes I can give full recipes for, each with a line on what it is."
_TIPS_PLAN = "I will give a few practical tips, each with a short explanation."
_PLANS = {
    "short": "I will keep the answer to one or two sentences.",
    "definition": "I will define it first, then say how it works, and close with an example.",
    "explain": "I will go from what it is to how it works, then give an example and a caution.",
    "why": "I should give the cause, then the mechanism, then what follows from it.",
    "compare": "I will compare them point by point and end with a recommendation.",
    "proscons": "I will list the pros first, then the cons, then give a short verdict.",
    "steps": "I will give a few ordered steps, each with one clear action.",
    "list": "I will give a few distinct points, each with a short explanation.",
    "ideas": "I will offer a handful of distinct ideas built from the request.",
    "haiku": "The form is three lines of five, seven and five syllables.",
    "limerick": "The form is five lines that rhyme AABBA.",
    "poem": "I will write three short stanzas that build to a close.",
    "story": "I will set up a character and a place, give them a problem and resolve it.",
    "email": "It needs a greeting, a clear body and a sign-off in the register asked.",
    "summarize": "I will keep the sentences that carry the facts and drop the rest.",
    "rewrite": "I will fix the grammar and keep the meaning.",
    "formal": "I will expand the contractions, drop the slang and fix the casing.",
    "translate": "I cannot translate offline, so I will say so plainly instead of guessing.",
    "code": "I will write a small, runnable piece of code and say how to use it.",
    "advice": "I will name the few points that usually decide it, then suggest a next step.",
    "joke": "A short, clean one fits best, with the point saved for the end.",
    "recipe": "I will open with one line, list the ingredients, give the method as numbered steps and end with a tip.",
}
