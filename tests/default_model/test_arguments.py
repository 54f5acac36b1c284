"""Tool arguments from what the conversation names (`mentions`, `arguments`), and agent loops that end (`loop`),
through the default model's reply and through each dialect's parsed request."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from emulator.core import identity
from emulator.core.conversation import Message, Prompt, Tool, ToolCall, ToolChoice
from emulator.default_model import arguments, mentions
from emulator.default_model.generate import Writer, default_reply
from emulator.dialects import anthropic_messages, openai_chat, openai_responses

WRITER = Writer(7)


def tool(name: str, description: str, required: tuple[str, ...] = (), **properties: dict[str, Any]) -> Tool:
    schema = {"type": "object", "properties": properties, "required": list(required or properties)}
    return Tool(name, description=description, parameters=schema)


def prompt(*messages: Message, tools: tuple[Tool, ...] = (), **fields: Any) -> Prompt:
    made = Prompt(dialect="t", model="m", messages=messages, tools=tools, **fields)
    return replace(made, conversation=identity.conversation(made))


def called(reply_prompt: Prompt) -> list[tuple[str, dict[str, Any]]]:
    reply = default_reply(reply_prompt, WRITER)
    return [(c.name, json.loads(c.arguments)) for c in reply.tool_calls]


STRING = {"type": "string"}


# --- what the conversation names ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "today", "dates", "times"),
    [
        ("Remind me the day after tomorrow at 7:45 pm", "2026-01-05", ("2026-01-07",), ("19:45",)),
        ("Is the lab free next Wednesday at 10am?", "2026-01-05", ("2026-01-07",), ("10:00",)),
        ("Move it to this Monday at noon", "2026-01-05", ("2026-01-05",), ("12:00",)),
        ("Set it for 3rd of August at 16:20", "2026-09-01", ("2027-08-03",), ("16:20",)),
        ("Deliver on 2027-02-11, or in two weeks", "2026-01-05", ("2027-02-11", "2026-01-19"), ()),
        ("What happened last Sunday?", "2026-01-07", ("2026-01-04",), ()),
    ],
)
def test_dates_and_times_count_from_the_reference_day(
    text: str, today: str, dates: tuple[str, ...], times: Any
) -> None:
    from datetime import date

    found = mentions.read([text], today=date.fromisoformat(today))
    assert (found.dates, found.times) == (dates, times)


def test_the_reference_day_is_the_one_the_system_prompt_gives_else_a_fixed_one() -> None:
    asked = Message("user", "Book me a desk tomorrow")
    assert mentions.conversation(prompt(asked)).dates == ((mentions.REFERENCE.replace(day=6)).isoformat(),)
    dated = prompt(Message("system", "Today's date: 2027-03-31"), asked)
    assert mentions.conversation(dated).dates == ("2027-04-01",)


@pytest.mark.parametrize(
    ("text", "kind", "values"),
    [
        ("Forward it to ops-team+alerts@corp.example.net today", "emails", ("ops-team+alerts@corp.example.net",)),
        ("What's in docs/guide/setup.rst?", "paths", ("docs/guide/setup.rst",)),
        ("open ~/.config/tool/settings.toml please", "paths", ("~/.config/tool/settings.toml",)),
        ("Ping https://status.example.org/v2/summary.", "urls", ("https://status.example.org/v2/summary",)),
        ("Look for 'retry budget exceeded' in the logs", "quoted", ("retry budget exceeded",)),
        ("Where is invoice INV-20931 and case 5521?", "ids", ("INV-20931", "5521")),
        ("Grep src/**/*.rs for unsafe", "patterns", ("src/**/*.rs",)),
        ("Send the file to Priya Raman and Tomasz", "people", ("Priya Raman", "Tomasz")),
        ("Fly from Osaka to Buenos Aires", "cities", ("Osaka", "Buenos Aires")),
        ("Any holidays in Kenya or New Zealand?", "countries", ("Kenya", "New Zealand")),
        ("Swap 3,200 rupees for rand", "currencies", ("INR", "ZAR")),
    ],
)
def test_each_kind_of_value_is_read_as_written(text: str, kind: str, values: tuple[str, ...]) -> None:
    assert getattr(mentions.read([text]), kind) == values


def test_quantities_keep_their_units_and_leave_times_dates_and_ids_alone() -> None:
    found = mentions.read(["Is 42.5 miles more than 61 km? Ask at 5pm on March 9, ticket #88."])
    assert found.quantities == ((42.5, "mi"), (61.0, "km"))
    assert mentions.read(["£18 or 22 GBP or 9 kroner"]).quantities == ((18.0, "GBP"), (22.0, "GBP"), (9.0, ""))


# --- matched to parameters ----------------------------------------------------------------------------------


def test_a_pair_of_currencies_goes_to_from_and_to_in_the_order_written() -> None:
    money = {"type": "string", "description": "An ISO 4217 currency code"}
    convert = tool("convert", "Convert money.", amount={"type": "number"}, source=money, target=money)
    conversation = prompt(Message("user", "Please turn 640 Thai baht into Singapore dollars"), tools=(convert,))
    ((name, given),) = called(conversation)
    assert given["amount"] == 640 and (given["source"], given["target"]) == ("THB", "SGD")


@pytest.mark.parametrize(
    ("text", "properties", "expected"),
    [
        (
            "Schedule the retro next Thursday at 2:30 pm with kim.lee@example.com",
            {
                "start": {"type": "string", "format": "date-time"},
                "attendee": {"type": "string", "description": "Email of the attendee"},
            },
            {"start": "2026-01-08T14:30:00", "attendee": "kim.lee@example.com"},
        ),
        (
            "How long is the drive to Edinburgh from Seville?",
            {"origin": STRING, "destination": STRING},
            {"origin": "Seville", "destination": "Edinburgh"},
        ),
        (
            'Find tickets mentioning "disk quota" for order 77310',
            {"query": STRING, "order_id": STRING},
            {"query": "disk quota", "order_id": "77310"},
        ),
        (
            "What's 68 fahrenheit in celsius?",
            {"value": {"type": "number"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit", "kelvin"]}},
            {"value": 68, "unit": "fahrenheit"},
        ),
        (
            "Weather for Porto on 14 May",
            {"location": STRING, "day": {"type": "string", "format": "date"}},
            {"location": "Porto", "day": "2026-05-14"},
        ),
        (
            "Is the Alte Pinakothek gallery open on Sunday?",
            {"gallery": STRING},
            {"gallery": "Alte Pinakothek"},
        ),
        (
            "Book a table for 4 at the restaurant Chez Margaux",
            {"restaurant_name": STRING, "guests": {"type": "integer"}},
            {"restaurant_name": "Chez Margaux", "guests": 4},
        ),
    ],
    ids=["datetime-email", "origin-destination", "quoted-id", "quantity-enum", "city-date", "gallery", "restaurant"],
)
def test_the_conversations_values_reach_the_parameters_that_take_them(
    text: str, properties: dict[str, Any], expected: dict[str, Any]
) -> None:
    lookup = tool("lookup_thing", "Looks the thing up.", **properties)
    ((_, given),) = called(prompt(Message("user", text), tools=(lookup,), tool_choice=ToolChoice("required")))
    assert given == expected


def test_a_value_the_schema_refuses_is_not_forced_in() -> None:
    schema = {"type": "string", "enum": ["EUR", "USD"]}
    kept = arguments.fill({"properties": {"currency": schema}}, {"currency": "EUR"}, mentions.read(["in yen"]))
    assert kept == ({"currency": "EUR"}, frozenset())
    narrow = {"type": "string", "maxLength": 3}
    kept = arguments.fill({"properties": {"city": narrow}}, {"city": "Rio"}, mentions.read(["Kuala Lumpur"]))
    assert kept == ({"city": "Rio"}, frozenset())


def test_what_the_conversation_does_not_name_is_kept_when_the_call_is_repeated() -> None:
    """A follow-up asks the same tool again: the arguments nothing named (a generated note) stay as they were,
    those the follow-up names change."""
    book = tool("book_room", "Book a meeting room.", ("city", "note"), city=STRING, note=STRING)
    first = prompt(Message("user", "Book a room in Vienna"), tools=(book,), tool_choice=ToolChoice("required"))
    ((_, one),) = called(first)
    then = (
        Message("user", "Book a room in Vienna"),
        Message("assistant", tool_calls=(ToolCall("k1", "book_room", json.dumps(one)),)),
        Message("tool", "booked R-12", tool_call_id="k1"),
        Message("assistant", "Booked room R-12 in Vienna."),
        Message("user", "And one in Dublin too"),
    )
    ((_, two),) = called(prompt(*then, tools=(book,), tool_choice=ToolChoice("required")))
    assert one["city"] == "Vienna" and two["city"] == "Dublin" and two["note"] == one["note"]


# --- loops that end -----------------------------------------------------------------------------------------

RATE = tool("fx_rate", "Exchange rate between two currencies.", base=STRING, quote=STRING)
FINISH = tool("finish", "Finish the task.", answer=STRING)
GIVES = tool("wrap_up", "Gives the final answer to the user.", text=STRING)


@pytest.mark.parametrize("finisher", [FINISH, GIVES], ids=["named", "described"])
def test_after_a_result_the_finishing_tool_gets_the_answer_built_from_it(finisher: Tool) -> None:
    asked = Message("user", "How many kroner for one euro? Use DKK.")
    call = ToolCall("r1", "fx_rate", '{"base": "EUR", "quote": "DKK"}')
    done = prompt(
        asked,
        Message("assistant", tool_calls=(call,)),
        Message("tool", "EUR/DKK 7.4611", tool_call_id="r1"),
        tools=(RATE, finisher),
        tool_choice=ToolChoice("required"),
    )
    ((name, given),) = called(done)
    assert name == finisher.name and "EUR/DKK 7.4611" in next(iter(given.values()))


def test_an_observation_in_a_user_message_counts_as_a_result() -> None:
    """smolagents' way: the call written as text in the assistant message, the result as "Observation:"."""
    messages = (
        Message("user", "New task:\nRate of Hungarian forint to Czech koruna?"),
        Message(
            "assistant",
            "Calling tools:\n[{'id': 'c9', 'type': 'function', 'function': "
            "{'name': 'fx_rate', 'arguments': {'base': 'HUF', 'quote': 'CZK'}}}]",
        ),
        Message("user", "Observation:\n0.0641"),
    )
    forced = prompt(*messages, tools=(RATE, FINISH), tool_choice=ToolChoice("required"))
    ((name, given),) = called(forced)
    assert name == "finish" and "0.0641" in given["answer"]
    free = default_reply(prompt(*messages, tools=(RATE,)), WRITER)  # auto: an answer, no call
    assert free.tool_calls == () and "0.0641" in free.text


def test_the_same_call_is_never_made_twice() -> None:
    """Required, no finishing tool, the only call the question leads to already made: another tool, then none."""
    other = tool("fx_history", "Past exchange rates.", base=STRING, quote=STRING)
    asked = Message("user", "Rate of Hungarian forint to Czech koruna?")
    first = prompt(asked, tools=(RATE, other), tool_choice=ToolChoice("required"))
    ((name, given),) = called(first)
    made = Message("assistant", tool_calls=(ToolCall("a", name, json.dumps(given)),))
    second = prompt(
        asked, made, Message("tool", "0.06", tool_call_id="a"), tools=(RATE, other), tool_choice=ToolChoice("required")
    )
    ((again, _),) = called(second)
    assert again != name


# --- read-only local tools, network tools, structured output ---------------------------------------------

READ = tool(
    "read",
    "Read a file from the local filesystem.",
    ("filePath",),
    filePath={"type": "string", "description": "The absolute path to the file to read"},
    offset={"type": "number"},
    limit={"type": "number"},
)
LIST = tool("list", "List files in a directory.", ("path",), path=STRING)
FETCH = tool("webfetch", "Fetch a URL from the web.", ("url",), url={"type": "string", "format": "uri"})
WRITE = tool("write", "Write a file.", ("filePath", "content"), filePath=STRING, content=STRING)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Open config/app.yaml and tell me what it sets", ("read", {"filePath": "/srv/work/config/app.yaml"})),
        ("What's in /etc/hosts?", ("read", {"filePath": "/etc/hosts"})),
        ("list what is in assets/icons/", ("list", {"path": "assets/icons/"})),
        ("Fetch http://localhost:5173/api/health", ("webfetch", {"url": "http://localhost:5173/api/health"})),
    ],
)
def test_reading_tools_are_called_with_the_path_the_user_gave(text: str, expected: tuple[str, Any]) -> None:
    system = Message("system", "You are a coding agent.\nWorking directory: /srv/work\n")
    assert called(prompt(system, Message("user", text), tools=(WRITE, READ, LIST, FETCH))) == [expected]


def test_the_working_directory_is_found_past_a_long_system_prompt() -> None:
    """Claude Code's system prompt for a Claude model runs past 25,000 characters before its working directory."""
    rules = "Keep answers short and check your work before you report it. " * 500
    system = Message("system", f"{rules}\nPrimary working directory: /home/ana/kiln\n")
    asked = Message("user", "Read firmware/notes.md and tell me what it says")
    assert called(prompt(system, asked, tools=(WRITE, READ))) == [
        ("read", {"filePath": "/home/ana/kiln/firmware/notes.md"})
    ]


def test_a_turn_wrapped_whole_in_double_quotes_is_read_as_its_words() -> None:
    """`opencode run "…"` sends a one-argument prompt wrapped in double quotes."""
    system = Message("system", "You are a coding agent.\nWorking directory: /srv/work\n")
    asked = Message("user", '"Show me what logs/boot.log holds"')
    assert called(prompt(system, asked, tools=(WRITE, READ, LIST))) == [
        ("read", {"filePath": "/srv/work/logs/boot.log"})
    ]
    assert mentions.own_words('"Show me what logs/boot.log holds"') == "Show me what logs/boot.log holds"
    assert mentions.own_words('Call it "Hearth" or "Ember"') == 'Call it "Hearth" or "Ember"'  # quotes inside stay


@pytest.mark.parametrize(
    "text",
    ["Fetch https://example.org/feed.xml", "Write notes.txt with hello", "How do I read a file in Rust?"],
)
def test_network_writing_and_unasked_reads_stay_uncalled(text: str) -> None:
    assert called(prompt(Message("user", text), tools=(WRITE, READ, LIST, FETCH))) == []


def test_a_structured_output_tool_is_called_when_the_prompt_asks_to_extract() -> None:
    person = tool(
        "Pet", "Correctly extracted `Pet` with all the required parameters.", species=STRING, age={"type": "integer"}
    )
    asked = prompt(Message("user", "Our parrot Kiwi turned 12 this spring."), tools=(person,))
    ((name, given),) = called(asked)
    assert name == "Pet" and given["age"] == 12
    plain = tool("get_pet", "Looks a pet up.", species=STRING)
    assert called(prompt(Message("user", "Tell me a joke"), tools=(plain,))) == []


# --- the same in every dialect ------------------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {"from_city": STRING, "to_city": STRING, "date": {"type": "string", "format": "date"}},
    "required": ["from_city", "to_city", "date"],
}
QUESTION = "Find me a train from Lyon to Geneva next Saturday"


def _in_each_dialect() -> list[tuple[str, Prompt]]:
    chat = openai_chat.parse_request(
        {
            "model": "m",
            "messages": [{"role": "user", "content": QUESTION}],
            "tools": [
                {
                    "type": "function",
                    "function": {"name": "trains", "description": "Train times.", "parameters": SCHEMA},
                }
            ],
        },
        {},
    )
    responses = openai_responses.parse_request(
        {
            "model": "m",
            "input": QUESTION,
            "tools": [{"type": "function", "name": "trains", "description": "Train times.", "parameters": SCHEMA}],
        },
        {},
    )
    messages = anthropic_messages.parse_request(
        {
            "model": "m",
            "max_tokens": 200,
            "messages": [{"role": "user", "content": QUESTION}],
            "tools": [{"name": "trains", "description": "Train times.", "input_schema": SCHEMA}],
        },
        {},
    )
    return [("chat", chat), ("responses", responses), ("messages", messages)]


@pytest.mark.parametrize("stream", [False, True])
def test_every_dialect_gets_the_same_arguments(stream: bool) -> None:
    seen = []
    for _, parsed in _in_each_dialect():
        parsed = replace(parsed, stream=stream)
        seen.append(called(replace(parsed, conversation=identity.conversation(parsed))))
    assert (
        seen[0] == seen[1] == seen[2] == [("trains", {"from_city": "Lyon", "to_city": "Geneva", "date": "2026-01-10"})]
    )
