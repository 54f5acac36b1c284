"""What the default model writes: an answer in the form the question asks for, naming its subject, in Markdown.

`forms` reads which form (a definition, steps, a comparison, verse, a story, a letter, code…) and what it is
about; `writer` writes it from the frames and word lists in `lexicon/`, in the domain the question's words
pick. Every choice is a face of the dice the caller rolled from the conversation key, so the same question gets
the same answer. Code is answered here (`code_answer`), in the language the question names.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

from emulator.default_model import code, forms, reasons, tales, writer
from emulator.default_model.ask import Ask
from emulator.default_model.code_request import plain
from emulator.default_model.lexicon import LEXICON, Domain
from emulator.default_model.question import Question, stem

Slots = dict[str, str]
SHORTENED = 240  # characters of a tool's result quoted in the answer that sums it up
Dice = Iterator[int]  # the faces of one answer's dice, rolled in turn with `next` (a cycle: it never runs out)


class Filler(Protocol):
    """Where names come from (`generate.Writer`): faker's pools of names and places, by kind, made once per
    server. Only a story's characters and a letter's sender are drawn from them; never a sentence."""

    @property
    def pools(self) -> Mapping[str, Sequence[str]]: ...


def _pick(dice: Dice, options: Sequence[str]) -> str:
    return options[next(dice) % len(options)]


@functools.lru_cache(maxsize=1024)
def domain(q: Question) -> Domain:
    """The domain the question's words pick (lexicon/domains.txt)."""
    said = q.language[0]
    if said and not LEXICON.senses.get(said, frozenset()).intersection(w.lower() for w in q.words):
        return LEXICON.domains[0]  # a programming language named: "Why is my Go map iteration order random?"
    return LEXICON.domain(stem(w) for w in q.words)


def _read(q: Question) -> tuple[Ask, Domain]:
    """`forms.read(q)` and `domain(q)`, kept for the last question read: the reasoning and the answer of a request
    read the same `Question`, and each lookup in those caches hashed its eleven fields (and compared them on a hit),
    each time."""
    last = _LAST[0]
    if last is not None and last[0] is q:
        return last[1], last[2]
    ask, where = forms.read(q), domain(q)
    _LAST[0] = (q, ask, where)
    return ask, where


_LAST: list[tuple[Question, Ask, Domain] | None] = [None]


def answer(q: Question, slots: Slots, dice: Dice, filler: Filler) -> str:
    """The answer to `q` in the form it asks for (see `forms`)."""
    ask, where = _read(q)
    request = q.text if len(q.text) <= code.READ else q.text[: code.READ]  # the same string: its hash is kept
    coded = ask.form == "code" or ask.form in CODE_FORMS and _asks_code(request) is not None
    if coded and (written := code.write(q.text, dice)) is not None:
        return fenced(written, dice)
    if ask.form == "code":  # a language or a task the templates do not know: a skeleton
        return code_answer(q, slots, dice, where)
    pools = filler.pools
    people = pools.get(
        "name" if ask.form == "email" else tales.names(ask.subject) if ask.form in ("story", "ideas") else "first_name"
    )
    people = people or pools.get("first_name", ())
    return writer.write(ask, where, dice, people, pools.get("city", ()))


def thinking(q: Question, slots: Slots, dice: Dice, count: int, after_tools: str = "") -> str:
    """`count` sentences of reasoning about `q` (at most four): what it asks, what the answer covers and in
    what order; or, when tools answered, what they show (`after_tools` names them)."""
    ask, where = _read(q)
    request = q.text if len(q.text) <= code.READ else q.text[: code.READ]  # the same string: its hash is kept
    if ask.form in CODE_FORMS and ask.form != "code" and (written := _asks_code(request)) is not None:
        return reasons.reasoning(ask, where, dice, count, after_tools, "code", f"`{written.name}`")  # as written
    if ask.form == "code" and q.clause.startswith(("that ", "to ", "which ")) and q.code_noun:  # "a function that…"
        noun = "program" if q.code_noun == "code" else q.code_noun  # "code that parses a CSV file": a program
        return reasons.reasoning(ask, where, dice, count, after_tools, "code", f"a {noun} {q.clause}")
    return reasons.reasoning(ask, where, dice, count, after_tools)


def passage(q: Question, dice: Dice, kind: str, count: int | None) -> str:
    """Plain prose about `q`'s subject (see `writer.passage`)."""
    return writer.passage(forms.read(q), domain(q), dice, kind, count)


RESULT_INTROS = (
    "Here's what `{name}` returned: {quote}",
    "According to `{name}`: {quote}",
    "`{name}` reports: {quote}",
)
RESULT_CLOSINGS = ("That should answer your question about {t}.", "Let me know if you need anything else about {t}.")
PLAIN_CLOSINGS = ("Let me know if you want me to look into any of it further.", "Tell me if you need more detail.")


def summary(results: Sequence[tuple[str, str]], q: Question, slots: Slots, dice: Dice) -> str:
    """An answer that sums up what the tools returned: each `(tool name, result)` quoted, shortened."""
    if len(results) == 1:
        name, result = results[0]
        said = _pick(dice, RESULT_INTROS).format(name=name, quote=_quote(result))
    else:
        lines = (f"- `{name}`: {_quote(result)}" for name, result in results)
        said = "Here's what the tools returned:\n\n" + "\n".join(lines)
    closing = _pick(dice, RESULT_CLOSINGS).format_map(slots) if q.topics else _pick(dice, PLAIN_CLOSINGS)
    return f"{said}\n\n{closing}"


def shown(results: Sequence[tuple[str, str]]) -> str:
    """What the tool results show, for the reasoning after them: "`get_weather` returned 18 C, sunny"."""
    return "; ".join(f"`{name}` returned {_quote(result).rstrip('.')}" for name, result in results[:3])


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
    code asked for; capitalized as {T}, {U}, {C}. Those of the last question, for the same `Question`
    (`generate._read` keeps a question asked again): the same dict, which its callers only read."""
    last = _SLOTS[0]
    if last is None or last[0] is not q:
        last = _SLOTS[0] = (q, _slots(q))
    return last[1]


_SLOTS: list[tuple[Question, Slots] | None] = [None]


def _slots(q: Question) -> Slots:
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


# The forms a request for code can be read as ("How do I sort a list in Python?" asks for steps, "Create a React
# component…" for an explanation): `code.write` says whether code is asked for, at no cost to the dice when not.
CODE_FORMS = frozenset(("code", "explain", "steps", "short", "definition", "list"))
_STILL = itertools.repeat(0)  # dice for asking `code.write` only whether code is asked for, and what it names


@functools.lru_cache(maxsize=256)
def _asks_code(request: str) -> code.Code | None:
    """`code.write` with `_STILL` dice: whether `request` asks for code the templates write, and what it names.
    The reasoning and the answer of one request both ask (a dear call, most of all when it does not); the
    dice only pick a variant, past that point, so the answer's own call is made only where this says yes."""
    return code.write(request, _STILL)


WRITTEN_INTROS = ("Here's one way to do it in {lang}:", "Here is a {lang} version:", "Sure! Here it is in {lang}:")


def fenced(written: code.Code, dice: Dice) -> str:
    """Code from the templates (`code.write`), fenced, between a sentence naming its language and its summary."""
    intro = _pick(dice, WRITTEN_INTROS).format(lang=code.SPOKEN[written.language])
    return f"{intro}\n\n```{written.language}\n{written.source}```\n\n{written.summary}"


CODE_INTROS = ("Here's a {lang} {noun} {c}:", "Here is a {lang} {noun} {c}:", "Sure! A {lang} {noun} {c}:")
CODE_CLOSINGS = (
    "You can call `{name}` with your own input, and the last line shows it on a small example.",
    "Adapt `{name}` to your data as needed; the example at the end shows what it returns.",
)


def code_answer(q: Question, slots: Slots, dice: Dice, where: Domain) -> str:
    """A request for code, answered with a fenced block in the language named, between a sentence that says what
    it is and one that says how to use it. The one place code is written: the code-template library answers
    here when it knows the task."""
    fence, _ = q.language
    spelling, template = CODE[fence]
    parts = [w.lower() for w in q.words if w.lower() not in _NOT_NAMES and w.isalnum()][:3] or ["solve"]
    name = _identifier(parts, spelling)
    doc = _capital(plain(q.clause.split(" ", 1)[1] if " " in q.clause else slots["t"])).rstrip(".") + "."
    code = template.replace("NAME", name).replace("DOC", doc)
    intro = _pick(dice, CODE_INTROS).format_map(slots)
    closing = _pick(dice, CODE_CLOSINGS).format(name=name)
    return f"{intro}\n\n```{fence}\n{code}\n```\n\n{closing}"


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
