"""What the default model writes: an answer shaped like the question, naming its subject, in Markdown.

The shape follows the question's kind (`question.Kind`): a greeting back, a short paragraph, a list, numbered
steps, a fenced code block in the language named, or a few paragraphs of prose. The subject, the clause and
the structure come from the question; the filler between them is the server's faker sentences. Every choice
is a face of the dice the caller rolled from the conversation key, so the same question gets the same answer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from emulator.default_model.question import Question

Slots = dict[str, str]
SHORTENED = 240  # characters of a tool's result quoted in the answer that sums it up


class Filler(Protocol):
    """Where filler comes from (`generate.Writer`): the server's `sentences` and `words`, one for each face of a
    die (modulo their number), read by index: a method call per sentence was a fifth of an answer's cost."""

    @property
    def sentences(self) -> Sequence[str]: ...

    @property
    def words(self) -> Sequence[str]: ...


def _said(filler: Filler, dice: Dice) -> str:
    sentences = filler.sentences
    return sentences[next(dice) % len(sentences)]


def _word(filler: Filler, dice: Dice) -> str:
    words = filler.words
    return words[next(dice) % len(words)]


Dice = Iterator[int]  # the faces of one answer's dice, rolled in turn with `next` (a cycle: it never runs out)


def _pick(dice: Dice, options: Sequence[str]) -> str:
    return options[next(dice) % len(options)]


# --- what each shape says, {t} the topic, {u} a second one, {c} the clause, {C} it capitalized ------------

OPENERS = (
    "**{T}** comes down to a few things.",
    "Good question: **{t}** is worth a closer look.",
    "In short, **{t}** depends on the context.",
    "Here is the short version on **{t}**.",
    "**{T}** is simpler than it looks.",
    "There are a few things worth knowing about **{t}**.",
)
SECONDS = ("{U} matters here too.", "This is where {u} comes in.", "In practice, {u} is what you notice first.")
CLOSINGS = (
    "If you share more about {t}, I can be more specific.",
    "Let me know if you want an example of {t}.",
    "Hope this helps with {t}!",
    "Happy to go deeper into {t} if you need it.",
)
GREETINGS = ("Hello! How can I help you today?", "Hi there! What can I do for you?", "Hey! What's on your mind?")
LIST_INTROS = ("Here are {c}:", "Sure, here are {c}:", "{C} include:")
LIST_CLOSINGS = ("Which of these matters most depends on {t}.", "Let me know if you want more detail on any of these.")
STEP_INTROS = ("To {c}, follow these steps:", "Here's how to {c}:", "You can {c} in a few steps:")
STEP_VERBS = ("Check", "Open", "Install", "Configure", "Update", "Add", "Review", "Test", "Verify", "Set up")
STEP_CLOSINGS = ("That's it: you can now {c}.", "That's it: try it once to confirm it works.")
CODE_INTROS = ("Here's a {lang} {noun} {c}:", "Here is a {lang} {noun} {c}:", "Sure! A {lang} {noun} {c}:")
CODE_CLOSINGS = ("You can call `{name}` with your own input.", "Adapt `{name}` to your data as needed.")
THINKING = {
    "greeting": "The user is greeting me.",
    "short": "The user is asking about {t}.",
    "prose": "The user wants to understand {t}.",
    "list": "The user asks for {c}.",
    "steps": "The user wants to know how to {c}.",
    "code": "The user wants a {lang} {noun} {c}.",
    "results": "The tool results are in, so I can answer about {t}.",
}
THOUGHTS = ("I should mention {u}.", "Let me think about {t} first.", "I will keep the answer focused on {t}.")
RESULT_INTROS = (
    "Here's what `{name}` returned: {quote}",
    "According to `{name}`: {quote}",
    "`{name}` reports: {quote}",
)
RESULT_CLOSINGS = ("That should answer your question about {t}.", "Let me know if you need anything else about {t}.")


def answer(q: Question, slots: Slots, dice: Dice, filler: Filler) -> str:
    """The answer to `q` (its `slots` filled in), in the shape its kind asks for."""
    if q.kind == "greeting":
        return _pick(dice, GREETINGS)
    if q.kind == "list" and q.clause:
        return _list(q, dice, filler, slots)
    if q.kind == "steps" and q.clause:
        return _steps(q, dice, filler, slots)
    if q.kind == "code":
        return _code(q, dice, filler, slots)
    if not q.topics:  # nothing salient to name: plain filler, as a model rambles
        return _filler(dice, filler, 3 + next(dice) % 3)
    # As long as the word salad before it (3 to 6 sentences): a longer answer costs every stream its length.
    sentences = filler.sentences
    pool = len(sentences)
    said = [OPENERS[next(dice) % len(OPENERS)].format_map(slots), sentences[next(dice) % pool]]
    if next(dice) & 1:
        said.append(sentences[next(dice) % pool])
    if slots["u"] != slots["t"]:
        said.append(SECONDS[next(dice) % len(SECONDS)].format_map(slots))
    if q.kind != "prose":
        return " ".join(said)
    closing = CLOSINGS[next(dice) % len(CLOSINGS)].format_map(slots)
    return f"{' '.join(said)}\n\n{sentences[next(dice) % pool]} {closing}"


def thinking(q: Question, slots: Slots, dice: Dice, filler: Filler, count: int, after_tools: bool = False) -> str:
    """`count` sentences of reasoning about `q`: what it asks (or, `after_tools`, that the tools answered), then
    thoughts and filler."""
    sentences = filler.sentences
    if after_tools:
        first = THINKING["results"].format_map(slots)
    elif q.kind == "greeting" or q.clause or q.kind == "code":
        first = THINKING[q.kind].format_map(slots)
    elif q.topics:
        first = THINKING["prose" if q.kind == "prose" else "short"].format_map(slots)
    else:
        first = sentences[next(dice) % len(sentences)]
    said = [first]
    if count > 2 and q.topics:
        thoughts = THOUGHTS if slots["u"] != slots["t"] else THOUGHTS[1:]
        said.append(thoughts[next(dice) % len(thoughts)].format_map(slots))
    while len(said) < count:
        said.append(sentences[next(dice) % len(sentences)])
    return " ".join(said)


def summary(results: Sequence[tuple[str, str]], q: Question, slots: Slots, dice: Dice, filler: Filler) -> str:
    """An answer that sums up what the tools returned: each `(tool name, result)` quoted, shortened."""
    if len(results) == 1:
        name, result = results[0]
        said = _pick(dice, RESULT_INTROS).format(name=name, quote=_quote(result))
    else:
        lines = (f"- `{name}`: {_quote(result)}" for name, result in results)
        said = "Here's what the tools returned:\n\n" + "\n".join(lines)
    closing = _pick(dice, RESULT_CLOSINGS).format_map(slots) if q.topics else _said(filler, dice)
    return f"{said}\n\n{closing}"


def _quote(result: str) -> str:
    """A tool's result as an answer quotes it: on one line, shortened at a word, ending as a sentence does."""
    text = " ".join(result.split())
    if not text:
        return "nothing (an empty result)."
    if len(text) > SHORTENED:
        text = text[: text.rfind(" ", 0, SHORTENED) if " " in text[:SHORTENED] else SHORTENED] + " …"
    return text if text[-1] in ".!?…" else text + "."


def slots(q: Question) -> Slots:
    """What the templates name, from `q`: {t} its topic and {u} another, {c} its clause, {lang} and {noun} the
    code asked for; capitalized as {T}, {U}, {C}."""
    topic = q.topic or (q.words[0] if q.words else "this")
    second = ""
    for other in q.topics:
        if other != topic and other.lower() not in _NOT_NAMES:
            second = other
            break
    else:  # one topic: its tail is the other thing to name ("Go map iteration order": "iteration order")
        second = " ".join(topic.split()[-2:]) if topic.count(" ") > 1 else topic
    clause = q.clause or (f"for {topic}" if q.kind == "code" else topic)
    return {
        "t": topic,
        "T": topic[:1].upper() + topic[1:],
        "u": second,
        "U": second[:1].upper() + second[1:],
        "c": clause,
        "C": clause[:1].upper() + clause[1:],
        "lang": q.language[1],
        "noun": q.code_noun or "function",
    }


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _filler(dice: Dice, filler: Filler, count: int) -> str:
    sentences = filler.sentences
    pool = len(sentences)
    return " ".join([sentences[next(dice) % pool] for _ in range(count)])


def _list(q: Question, dice: Dice, filler: Filler, slots: Slots) -> str:
    count = min(q.count, 10) or 3 + next(dice) % 3
    items = "\n".join(
        f"- **{_capital(_word(filler, dice))} {_word(filler, dice)}**: {_said(filler, dice)}" for _ in range(count)
    )
    return f"{_pick(dice, LIST_INTROS).format_map(slots)}\n\n{items}\n\n{_pick(dice, LIST_CLOSINGS).format_map(slots)}"


def _steps(q: Question, dice: Dice, filler: Filler, slots: Slots) -> str:
    verb = q.clause.split(" ", 1)[0].lower()  # what a how-to clause opens with is its verb: "reverse a list"
    nouns = [w for w in q.words if w.lower() not in _NOT_NAMES and w.lower() != verb] or [_word(filler, dice)]
    steps = "\n".join(
        f"{n}. **{_pick(dice, STEP_VERBS)} the {nouns[n % len(nouns)]}**: {_said(filler, dice)}"
        for n in range(1, 4 + next(dice) % 3)
    )
    return f"{_pick(dice, STEP_INTROS).format_map(slots)}\n\n{steps}\n\n{_pick(dice, STEP_CLOSINGS).format_map(slots)}"


def _code(q: Question, dice: Dice, filler: Filler, slots: Slots) -> str:
    fence, _ = q.language
    spelling, template = CODE[fence]
    parts = [w.lower() for w in q.words if w.lower() not in _NOT_NAMES and w.isalnum()][:3] or ["solve"]
    name = _identifier(parts, spelling)
    doc = _capital(q.clause.split(" ", 1)[1] if " " in q.clause else slots["t"]).rstrip(".") + "."
    code = template.replace("NAME", name).replace("DOC", doc)
    intro = _pick(dice, CODE_INTROS).format_map(slots)
    closing = _pick(dice, CODE_CLOSINGS).format(name=name)
    return f"{intro}\n\n```{fence}\n{code}\n```\n\n{_said(filler, dice)} {closing}"


def _identifier(parts: list[str], spelling: str) -> str:
    if spelling == "snake":
        return "_".join(parts)
    camel = parts[0] + "".join(p.capitalize() for p in parts[1:])
    return _capital(camel) if spelling == "pascal" else camel


_NOT_NAMES = frozenset(("python", "javascript", "typescript", "go", "golang", "rust", "java", "c", "ruby", "php"))
_NOT_NAMES |= {"bash", "shell", "sql", "kotlin", "swift", "function", "script", "class", "program", "snippet"}
_NOT_NAMES |= {"method", "query", "module", "code", "js", "ts", "cpp", "csharp", "node"}

# A small, valid program per language: NAME (spelled as the language spells names) and DOC are filled in.
CODE: dict[str, tuple[str, str]] = {
    "python": (
        "snake",
        """def NAME(items):
    \"\"\"DOC\"\"\"
    result = []
    for item in items:
        if item:
            result.append(item)
    return result


print(NAME(["a", "", "b"]))""",
    ),
    "javascript": (
        "camel",
        """// DOC
function NAME(items) {
  return items.filter((item) => Boolean(item));
}

console.log(NAME(["a", "", "b"]));""",
    ),
    "typescript": (
        "camel",
        """// DOC
export function NAME(items: string[]): string[] {
  return items.filter((item) => item.length > 0);
}

console.log(NAME(["a", "", "b"]));""",
    ),
    "go": (
        "camel",
        """package main

import "fmt"

// NAME: DOC
func NAME(items []string) []string {
\tresult := []string{}
\tfor _, item := range items {
\t\tif item != "" {
\t\t\tresult = append(result, item)
\t\t}
\t}
\treturn result
}

func main() {
\tfmt.Println(NAME([]string{"a", "", "b"}))
}""",
    ),
    "rust": (
        "snake",
        """/// DOC
fn NAME(items: &[&str]) -> Vec<String> {
    items.iter().filter(|item| !item.is_empty()).map(|item| item.to_string()).collect()
}

fn main() {
    println!("{:?}", NAME(&["a", "", "b"]));
}""",
    ),
    "java": (
        "camel",
        """import java.util.List;
import java.util.stream.Collectors;

public class Main {
    /** DOC */
    static List<String> NAME(List<String> items) {
        return items.stream().filter(item -> !item.isEmpty()).collect(Collectors.toList());
    }

    public static void main(String[] args) {
        System.out.println(NAME(List.of("a", "", "b")));
    }
}""",
    ),
    "c": (
        "snake",
        """#include <stdio.h>
#include <string.h>

/* DOC */
int NAME(const char *items[], int count) {
    int kept = 0;
    for (int i = 0; i < count; i++) {
        if (strlen(items[i]) > 0) {
            kept++;
        }
    }
    return kept;
}

int main(void) {
    const char *items[] = {"a", "", "b"};
    printf("%d\\n", NAME(items, 3));
    return 0;
}""",
    ),
    "cpp": (
        "snake",
        """#include <iostream>
#include <string>
#include <vector>

// DOC
std::vector<std::string> NAME(const std::vector<std::string>& items) {
    std::vector<std::string> result;
    for (const auto& item : items) {
        if (!item.empty()) {
            result.push_back(item);
        }
    }
    return result;
}

int main() {
    for (const auto& item : NAME({"a", "", "b"})) {
        std::cout << item << "\\n";
    }
}""",
    ),
    "csharp": (
        "pascal",
        """using System;
using System.Collections.Generic;
using System.Linq;

public static class Program
{
    // DOC
    public static List<string> NAME(IEnumerable<string> items) =>
        items.Where(item => !string.IsNullOrEmpty(item)).ToList();

    public static void Main() =>
        Console.WriteLine(string.Join(", ", NAME(new[] { "a", "", "b" })));
}""",
    ),
    "ruby": (
        "snake",
        """# DOC
def NAME(items)
  items.reject(&:empty?)
end

puts NAME(["a", "", "b"]).inspect""",
    ),
    "php": (
        "camel",
        """<?php

// DOC
function NAME(array $items): array
{
    return array_values(array_filter($items, fn ($item) => $item !== ''));
}

print_r(NAME(['a', '', 'b']));""",
    ),
    "bash": (
        "snake",
        """#!/usr/bin/env bash
set -euo pipefail

# DOC
NAME() {
  for item in "$@"; do
    if [[ -n "$item" ]]; then
      echo "$item"
    fi
  done
}

NAME a "" b""",
    ),
    "sql": (
        "snake",
        """-- DOC
SELECT id, name, created_at
FROM NAME
WHERE name IS NOT NULL
ORDER BY created_at DESC
LIMIT 10;""",
    ),
    "kotlin": (
        "camel",
        """// DOC
fun NAME(items: List<String>): List<String> = items.filter { it.isNotEmpty() }

fun main() {
    println(NAME(listOf("a", "", "b")))
}""",
    ),
    "swift": (
        "camel",
        """// DOC
func NAME(_ items: [String]) -> [String] {
    items.filter { !$0.isEmpty }
}

print(NAME(["a", "", "b"]))""",
    ),
}
