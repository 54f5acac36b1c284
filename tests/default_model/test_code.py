"""The default model's code (`emulator.default_model.code`): a panel of requests across languages and tasks, each
block checked by its language's own tool, and every Python block run on a sample input of the test's own.

Python blocks are executed and the function or class they define is called, so a block must do what its name
says; bash passes `bash -n`, SQL runs in sqlite3 with the `CREATE TABLE` it shows, JavaScript passes `node
--check`, TypeScript and JSX/TSX `tsc --noEmit` (npm's typescript, cached under `~/.cache/emulator-tests`),
Go `gofmt -e`, HTML `tidy -e`; CSS is parsed by a small brace-and-declaration check of the test's own. A checker
that is not installed skips with the reason (`.ci/deps` installs the Debian ones).
"""

from __future__ import annotations

import fcntl
import http.server
import itertools
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import types
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.default_model import code
from emulator.default_model.code import Code

TYPESCRIPT = "5.9.3"  # npm's typescript, pinned: the checker's verdict must not move under a clean clone
REACT_TYPES = "19.3.2"  # @types/react, so a component's JSX is type-checked against React's own declarations
NODE_TYPES = "22.20.7"  # @types/node, for the blocks that read files (`node:fs`)
INSTALL_TIMEOUT = 300


def dice(seed: int) -> Iterator[int]:
    """Endless faces as the server rolls them (16-bit), from a seed."""
    return itertools.cycle([(seed * 40503 + k * 9973) % 65536 for k in range(16)])


def variants(request: str) -> list[Code]:
    """Every distinct block the request gets over a few dice: each variant is checked, not only the first."""
    seen: dict[str, Code] = {}
    for seed in range(6):
        written = code.write(request, dice(seed))
        assert written is not None, request
        seen.setdefault(written.source, written)
    return list(seen.values())


# --- Python: run the block, call what it defines on the test's own sample ---------------------------------------

Namespace = dict[str, Any]


def _linked(ns: Namespace, values: list[int]) -> Any:
    head = None
    for value in reversed(values):
        head = ns["Node"](value, head)
    return head


def _values(head: Any) -> list[int]:
    out = []
    while head is not None:
        out.append(head.value)
        head = head.next
    return out


def check_http_server(ns: Namespace, f: Any, tmp: Path) -> None:
    server = f(port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        with urllib.request.urlopen(f"{base}/health", timeout=5) as response:
            assert json.load(response) == {"status": "ok"}
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(f"{base}/nowhere", timeout=5)
        assert missing.value.code == 404
        missing.value.close()
    finally:
        server.shutdown()
        server.server_close()


def check_count_files(ns: Namespace, f: Any, tmp: Path) -> None:
    (tmp / "sub").mkdir()
    for name in ("a.txt", "b.txt", "sub/c.txt"):
        (tmp / name).write_text("x")
    assert f(tmp) == 2 and f(tmp, recursive=True) == 3


def check_rename_files(ns: Namespace, f: Any, tmp: Path) -> None:
    for name in ("one.jpeg", "two.jpeg", "two.jpg", "three.png"):
        (tmp / name).write_text(name)
    renamed = f(tmp, "jpeg", ".jpg")
    assert [p.name for p in renamed] == ["one.jpg"]
    assert sorted(p.name for p in tmp.iterdir()) == ["one.jpg", "three.png", "two.jpeg", "two.jpg"]


def check_class_skeleton(ns: Namespace, cls: Any, tmp: Path) -> None:
    thing = cls("first", colour="red")
    assert "first" in repr(thing) and thing.attributes == {"colour": "red"}
    stubs = [m for m in vars(cls) if not m.startswith("_")]
    for method in stubs:
        with pytest.raises(NotImplementedError):
            getattr(thing, method)(1)


def check_linked_reverse(ns: Namespace, f: Any, tmp: Path) -> None:
    assert _values(f(_linked(ns, [1, 2, 3, 4]))) == [4, 3, 2, 1]
    assert f(None) is None


def check_linked_list(ns: Namespace, cls: Any, tmp: Path) -> None:
    items = cls()
    for value in (1, 2, 3):
        items.append(value)
    items.prepend(0)
    assert list(items) == [0, 1, 2, 3] and len(items) == 4
    assert items.remove(2) and not items.remove(9)
    items.reverse()
    assert list(items) == [3, 1, 0]


def check_lru(ns: Namespace, cls: Any, tmp: Path) -> None:
    cache = cls(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1
    cache.put("c", 3)  # "b" is now the least recently used
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3


def check_stack(ns: Namespace, cls: Any, tmp: Path) -> None:
    stack = cls()
    assert stack.is_empty()
    stack.push(1)
    stack.push(2)
    assert stack.peek() == 2 and stack.pop() == 2 and len(stack) == 1
    stack.pop()
    with pytest.raises(IndexError):
        stack.pop()


def check_queue(ns: Namespace, cls: Any, tmp: Path) -> None:
    queue = cls()
    for value in "abc":
        queue.enqueue(value)
    assert queue.peek() == "a" and queue.dequeue() == "a" and queue.dequeue() == "b" and len(queue) == 1
    queue.dequeue()
    with pytest.raises(IndexError):
        queue.dequeue()


def check_account(ns: Namespace, cls: Any, tmp: Path) -> None:
    account = cls("Grace", 50)
    assert account.deposit(25) == 75 and account.withdraw(30) == 45 and account.balance == 45
    with pytest.raises(ValueError):
        account.withdraw(1000)
    with pytest.raises(ValueError):
        account.deposit(-5)


def check_cart(ns: Namespace, cls: Any, tmp: Path) -> None:
    cart = cls()
    cart.add_item("pear", 0.4, 5)
    cart.add_item("milk", 1.25)
    cart.add_item("pear", 0.4)
    assert cart.total() == 3.65
    cart.remove_item("milk")
    assert cart.total() == 2.4


def check_rectangle(ns: Namespace, cls: Any, tmp: Path) -> None:
    shape = cls(3, 4)
    assert shape.area() == 12 and shape.perimeter() == 14


def check_circle(ns: Namespace, cls: Any, tmp: Path) -> None:
    shape = cls(2)
    assert abs(shape.area() - 12.566370614359172) < 1e-9 and abs(shape.circumference() - 12.566370614359172) < 1e-9


def check_debounce(ns: Namespace, f: Any, tmp: Path) -> None:
    calls: list[int] = []
    handler = f(0.5)(calls.append)  # half a second: five calls in a row fit in it on a loaded machine too
    for value in range(5):
        handler(value)
    deadline = time.monotonic() + 10
    while not calls and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.6)
    assert calls == [4]


def check_memoize(ns: Namespace, f: Any, tmp: Path) -> None:
    seen: list[int] = []

    def square(x: int) -> int:
        seen.append(x)
        return x * x

    cached = f(square)
    assert [cached(3), cached(3), cached(4)] == [9, 9, 16] and seen == [3, 4]


def check_retry(ns: Namespace, f: Any, tmp: Path) -> None:
    tries: list[int] = []

    def flaky() -> str:
        tries.append(1)
        if len(tries) < 3:
            raise ConnectionError("down")
        return "up"

    assert f(flaky, attempts=3, delay=0.001) == "up" and len(tries) == 3
    tries.clear()

    def down() -> str:
        tries.append(1)
        raise ConnectionError("still down")

    with pytest.raises(ConnectionError):
        f(down, attempts=2, delay=0.001)
    assert len(tries) == 2


def check_backup(ns: Namespace, f: Any, tmp: Path) -> None:
    tmp = Path(tempfile.mkdtemp(dir=tmp))
    source = tmp / "photos"
    (source / "2024").mkdir(parents=True)
    (source / "2024" / "beach.txt").write_text("sand")
    archive = Path(f(source, tmp / "backups"))
    assert archive.exists() and archive.parent == tmp / "backups"
    if zipfile.is_zipfile(archive):
        assert "photos/2024/beach.txt" in zipfile.ZipFile(archive).namelist()
    else:
        with tarfile.open(archive) as bundle:
            assert "photos/2024/beach.txt" in bundle.getnames()


class _Handler(http.server.BaseHTTPRequestHandler):
    failures = 0

    def do_GET(self) -> None:
        if self.path == "/flaky" and _Handler.failures < 2:
            _Handler.failures += 1
            self.send_error(503)
            return
        body = b"hello from loopback"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def _serving() -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def check_fetch(ns: Namespace, f: Any, tmp: Path) -> None:
    server, base = _serving()
    try:
        assert f(f"{base}/hello") == "hello from loopback"
    finally:
        server.shutdown()
        server.server_close()


def check_fetch_retry(ns: Namespace, f: Any, tmp: Path) -> None:
    _Handler.failures = 0
    server, base = _serving()
    try:
        assert f(f"{base}/flaky", attempts=3, delay=0.001) == "hello from loopback"
        assert _Handler.failures == 2
    finally:
        server.shutdown()
        server.server_close()


def check_csv(ns: Namespace, f: Any, tmp: Path) -> None:
    path = tmp / "people.csv"
    path.write_text('name,city\nAda,London\n"Lin, Jr.",Oslo\n')
    assert f(path) == [{"name": "Ada", "city": "London"}, {"name": "Lin, Jr.", "city": "Oslo"}]


def check_write(ns: Namespace, f: Any, tmp: Path) -> None:
    path = tmp / "out" / "notes.txt"
    f(path, "first\n")
    f(path, "second\n", append=True)
    assert path.read_text() == "first\nsecond\n"


def _file(tmp: Path, text: str) -> Path:
    path = tmp / "in.txt"
    path.write_text(text)
    return path


def _raises(error: type[BaseException], f: Any, *args: Any) -> bool:
    with pytest.raises(error):
        f(*args)
    return True


def _plain(check: Callable[[Any], bool]) -> Callable[[Namespace, Any, Path], None]:
    def run(ns: Namespace, f: Any, tmp: Path) -> None:
        assert check(f)

    return run


def _with_tmp(check: Callable[[Any, Path], bool]) -> Callable[[Namespace, Any, Path], None]:
    def run(ns: Namespace, f: Any, tmp: Path) -> None:
        assert check(f, tmp)

    return run


# What each kind of request must do, on the test's own inputs (not the templates' examples).
PYTHON: dict[str, Callable[[Namespace, Any, Path], None]] = {
    "skeleton": _plain(lambda f: _raises(NotImplementedError, f, [1])),
    "hello_world": _plain(lambda f: f() == "Hello, world!"),
    "http_server": check_http_server,
    "balanced_brackets": _plain(lambda f: f("a(b[c]{d})e") and not f("([)]") and not f("((") and f("")),
    "count_files": check_count_files,
    "rename_files": check_rename_files,
    "class_skeleton": check_class_skeleton,
    "linked_list_reverse": check_linked_reverse,
    "linked_list": check_linked_list,
    "lru_cache": check_lru,
    "stack": check_stack,
    "queue": check_queue,
    "bank_account": check_account,
    "shopping_cart": check_cart,
    "rectangle": check_rectangle,
    "circle": check_circle,
    "reverse_words": _plain(lambda f: f("  cats chase   mice ") == "mice chase cats"),
    "reverse_string": _plain(lambda f: f("stressed") == "desserts" and f("") == ""),
    "reverse_list": _plain(lambda f: f(["x", 2, None]) == [None, 2, "x"] and f([]) == []),
    "palindrome": _plain(lambda f: f("Was it a car or a cat I saw?") and not f("emulator") and f("")),
    "anagram": _plain(lambda f: f("Dormitory", "dirty room") and not f("night", "thingy")),
    "fibonacci_sequence": _plain(lambda f: f(8) == [0, 1, 1, 2, 3, 5, 8, 13] and f(0) == []),
    "fibonacci": _plain(lambda f: [f(n) for n in (0, 1, 2, 12)] == [0, 1, 1, 144]),
    "factorial": _plain(lambda f: f(0) == 1 and f(6) == 720 and _raises(ValueError, f, -1)),
    "primes": _plain(lambda f: f(30) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29] and f(1) == []),
    "prime": _plain(lambda f: [n for n in range(-3, 30) if f(n)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]),
    "fizzbuzz": _plain(lambda f: f(16)[2:6] == ["Fizz", "4", "Buzz", "Fizz"] and f(16)[14:] == ["FizzBuzz", "16"]),
    "gcd": _plain(lambda f: f(84, 36) == 12 and f(17, 5) == 1),
    "leap_year": _plain(lambda f: [y for y in (1800, 1996, 2000, 2023, 2100) if f(y)] == [1996, 2000]),
    "binary_search": _plain(lambda f: f([2, 4, 8, 16, 32], 16) == 3 and f([2, 4, 8], 5) == -1 and f([], 1) == -1),
    "two_sum": _plain(lambda f: tuple(f([3, 8, 1, 6], 7)) == (2, 3) and f([1, 2], 10) is None),
    "validate_email": _plain(
        lambda f: f("grace.hopper@navy.example.org") and not f("no at sign") and not f("a@b") and not f("a@@b.co")
    ),
    "temperature": _plain(lambda f: f(100) in (212, 37.77777777777778) and f(-40) == -40),
    "vowels": _plain(lambda f: f("Queueing, AEIOU!") == 10 and f("rhythm") == 0),
    "word_frequency": _plain(lambda f: f("The cat; the HAT.") == {"the": 2, "cat": 1, "hat": 1}),
    "word_count": _plain(lambda f: f(" one\ttwo  three\nfour ") == 4),
    "slugify": _plain(lambda f: f("  Crème Brûlée: 10 Tips! ") == "creme-brulee-10-tips"),
    "title_case": _plain(lambda f: f("the old man and the sea") == "The Old Man And The Sea"),
    "dedupe": _plain(lambda f: f(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]),
    "flatten": _plain(lambda f: f([1, [2, (3, [4])], [], "ab"]) == [1, 2, 3, 4, "ab"]),
    "chunk": _plain(lambda f: f(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5], [6]]),
    "merge_sort": _plain(lambda f: f([9, -1, 4, 4, 0]) == [-1, 0, 4, 4, 9]),
    "quicksort": _plain(lambda f: f([9, -1, 4, 4, 0]) == [-1, 0, 4, 4, 9]),
    "bubble_sort": _plain(lambda f: f([9, -1, 4, 4, 0]) == [-1, 0, 4, 4, 9]),
    "merge_sorted": _plain(lambda f: f([1, 5, 9], [2, 5, 6, 12]) == [1, 2, 5, 5, 6, 9, 12]),
    "merge_dicts": _plain(
        lambda f: (
            f({"db": {"host": "a", "port": 1}, "x": 1}, {"db": {"port": 2}, "y": 3})
            == {"db": {"host": "a", "port": 2}, "x": 1, "y": 3}
        )
    ),
    "group_by": _plain(lambda f: f(["ant", "bee", "ape"], lambda w: w[0]) == {"a": ["ant", "ape"], "b": ["bee"]}),
    "sort_by_key": _plain(
        lambda f: [r["n"] for r in f([{"n": "b", "age": 40}, {"n": "a", "age": 30}], "age")] == ["a", "b"]
    ),
    "sort_list": _plain(lambda f: f([3, -2, 7]) == [-2, 3, 7]),
    "largest": _plain(lambda f: f([-5, 12, 7]) == 12 and _raises(ValueError, f, [])),
    "second_largest": _plain(lambda f: f([5, 11, 2, 11, 8]) == 8 and f([3, 3]) is None),
    "smallest": _plain(lambda f: f([5, -12, 7]) == -12),
    "average": _plain(lambda f: f([1, 2, 3, 6]) == 3),
    "total": _plain(lambda f: f([1.5, 2.5, 4]) == 8),
    "count_occurrences": _plain(lambda f: f(list("abracadabra")) == {"a": 5, "b": 2, "r": 2, "c": 1, "d": 1}),
    "filter_even": _plain(lambda f: f([1, 2, 3, 4, 10, -6]) == [2, 4, 10, -6]),
    "filter_odd": _plain(lambda f: f([1, 2, 3, -5]) == [1, 3, -5]),
    "filter_positive": _plain(lambda f: f([-1, 0, 2, 3.5]) == [2, 3.5]),
    "filter_negative": _plain(lambda f: f([-1, 0, 2, -3.5]) == [-1, -3.5]),
    "filter_empty": _plain(lambda f: f(["x", "", None, 0, "y"]) == ["x", 0, "y"]),
    "filter": _plain(lambda f: f(range(10), lambda n: n % 3 == 0) == [0, 3, 6, 9]),
    "paginate": _plain(lambda f: f(list(range(23)), 3, 10) == (list(range(20, 23)), 3)),
    "debounce": check_debounce,
    "memoize": check_memoize,
    "retry": check_retry,
    "backup": check_backup,
    "fetch_url": check_fetch,
    "fetch_retry": check_fetch_retry,
    "read_csv": _with_tmp(lambda f, tmp: True) if False else check_csv,
    "parse_json": _plain(lambda f: f('{"a": [1, 2]}') == {"a": [1, 2]} and _raises(ValueError, f, "{oops")),
    "write_file": check_write,
    "read_lines": _with_tmp(lambda f, tmp: f(_file(tmp, "alpha\nbeta\n")) == ["alpha", "beta"]),
    "read_file": _with_tmp(lambda f, tmp: f(_file(tmp, "alpha\nbeta\n")) == "alpha\nbeta\n"),
    "file_words": _with_tmp(lambda f, tmp: f(_file(tmp, "one two\n\nthree  four five\n")) == 5),
    "file_lines": _with_tmp(lambda f, tmp: f(_file(tmp, "a\nb\nc")) == 3),
    "find": _plain(lambda f: f([{"id": 1}, {"id": 2}], lambda r: r["id"] == 2) == {"id": 2} and f([], bool) is None),
}


# --- the panel: written before the templates ---------------------------------------------------------------------
# (request, language, the name it must define, what it must do: a key of PYTHON for Python, else the task checked
# only by its language's tool and the name's presence in the block)

PANEL: list[tuple[str, str, str, str]] = [
    ("Write a Python function that reverses a linked list.", "python", "reverse_linked_list", "linked_list_reverse"),
    ("Write a function to reverse a string", "python", "reverse_string", "reverse_string"),
    (
        "Can you write a python function that checks if a string is a palindrome?",
        "python",
        "is_palindrome",
        "palindrome",
    ),
    (
        "Write a Python class for a bank account with deposit and withdraw methods",
        "python",
        "BankAccount",
        "bank_account",
    ),
    ("Implement binary search in Python", "python", "binary_search", "binary_search"),
    ("Write a function that takes a list of numbers and returns the average", "python", "average_numbers", "average"),
    ("Write a Python script that backs up my photos folder", "python", "backup_photos_folder", "backup"),
    ("Write a function that fetches a URL with retries and exponential backoff", "python", "fetch_url", "fetch_retry"),
    ("Write a Python function to count word frequency in a text", "python", "count_word_frequency", "word_frequency"),
    ("How do I sort a list of dictionaries by a key in Python?", "python", "sort_dictionaries_by_key", "sort_by_key"),
    ("Write a function that merges two sorted lists", "python", "merge_two_sorted_lists", "merge_sorted"),
    ("Write a function that checks whether a number is prime", "python", "is_prime", "prime"),
    ("Write a Stack class in Python", "python", "Stack", "stack"),
    (
        "Write a python function to remove duplicates from a list while keeping order",
        "python",
        "remove_duplicates",
        "dedupe",
    ),
    ("Write a function that flattens a nested list", "python", "flatten_nested_list", "flatten"),
    ("Write a Python function that returns the nth Fibonacci number", "python", "nth_fibonacci_number", "fibonacci"),
    ("write a function to read a CSV file into a list of dicts", "python", "read_csv_file", "read_csv"),
    ("Write a function that validates an email address", "python", "validate_email_address", "validate_email"),
    ("Write a Python function to paginate a list of results", "python", "paginate_results", "paginate"),
    ("Write a debounce decorator in Python", "python", "debounce", "debounce"),
    ("Write a function that filters even numbers from a list", "python", "filter_even_numbers", "filter_even"),
    ("Write a Python function that writes a list of lines to a file", "python", "write_lines_to_file", "write_file"),
    ("Write a Python function that finds the largest number in a list", "python", "find_largest_number", "largest"),
    ("Write a queue class", "python", "Queue", "queue"),
    ("Write a function that computes the factorial of a number", "python", "factorial", "factorial"),
    ("Write an LRU cache class in Python", "python", "LruCache", "lru_cache"),
    (
        "Write a function that counts how many times each item appears in a list",
        "python",
        "count_occurrences",
        "count_occurrences",
    ),
    ("Write a Python function that splits a list into chunks of size 4", "python", "split_list_into_chunks", "chunk"),
    ("Write a Python function to generate a slug from a title", "python", "generate_slug_from_title", "slugify"),
    ("Write a JavaScript function that debounces another function", "javascript", "debounce", "debounce"),
    ("Write a JS function to deep merge two objects", "javascript", "deepMergeTwoObjects", "merge_dicts"),
    (
        "Write a function in JavaScript that groups an array of objects by a property",
        "javascript",
        "groupObjectsByProperty",
        "group_by",
    ),
    ("Write a node script that reads a CSV file", "javascript", "readCsvFile", "read_csv"),
    ("Write a JavaScript function that fetches JSON from an API", "javascript", "fetchJsonFromApi", "fetch_url"),
    ("Write a javascript function that checks if two strings are anagrams", "javascript", "areAnagrams", "anagram"),
    ("Write a TypeScript function that retries an async operation", "typescript", "retryAsyncOperation", "retry"),
    ("Write a TypeScript class for a shopping cart", "typescript", "ShoppingCart", "shopping_cart"),
    ("Write a typescript function to paginate an array", "typescript", "paginateArray", "paginate"),
    ("Implement a stack in TypeScript", "typescript", "Stack", "stack"),
    (
        "Write a TypeScript function that reverses a linked list",
        "typescript",
        "reverseLinkedList",
        "linked_list_reverse",
    ),
    (
        "Write utils.ts with a function that removes duplicates from an array",
        "typescript",
        "removeDuplicates",
        "dedupe",
    ),
    ("Write a Go function that reverses a string", "go", "reverseString", "reverse_string"),
    ("Implement a generic stack in Go", "go", "GenericStack", "stack"),
    ("Write a golang function to fetch a URL with a timeout", "go", "fetchUrl", "fetch_url"),
    ("Write a Go program that counts word frequency in a string", "go", "countWordFrequency", "word_frequency"),
    ("Write a function in Go that retries an operation with exponential backoff", "go", "retryOperation", "retry"),
    ("Write a Go function that reads a file line by line", "go", "readFileLineByLine", "read_lines"),
    ("Write a bash script that backs up a folder to a tar.gz with a timestamp", "bash", "backup_folder", "backup"),
    (
        "Write a shell script to find the largest files in a directory",
        "bash",
        "find_largest_files_in_directory",
        "large_files",
    ),
    ("Write a bash function that retries a command until it succeeds", "bash", "retry_command", "retry"),
    ("Write a bash script that counts lines in each file", "bash", "count_lines", "file_lines"),
    ("Write a shell script to delete log files older than 7 days", "bash", "delete_log_files_older", "clean_old"),
    (
        "Write a bash script that prints the 10 most common words in a file",
        "bash",
        "print_most_common_words",
        "word_frequency",
    ),
    ("Write a SQL query to find the top 5 customers by total order amount", "sql", "customers", "sql_top"),
    ("Write a SQL query that joins users and posts and counts the posts per user", "sql", "users", "sql_join_group"),
    ("Write an SQL query to get the second highest salary", "sql", "employees", "sql_second"),
    ("SQL query to find duplicate emails in the users table", "sql", "users", "dedupe"),
    ("Write a query that lists orders from the last 7 days", "sql", "customers", "sql_recent"),
    ("Write a Postgres query for the average order value per customer", "sql", "customers", "sql_join_group"),
    ("Write SQL to create tables for authors and books", "sql", "authors", "sql_create"),
    ("Write an HTML contact form", "html", "contact-form", "contact_form"),
    ("Create a responsive navbar in HTML and CSS", "html", "responsive-navbar", "navbar"),
    ("Make a landing page for a coffee shop", "html", "coffee-shop", "landing"),
    ("Write an HTML login form with email and password", "html", "login-form", "login_form"),
    ("Write CSS to center a div", "css", "center-div", "center"),
    ("Write a CSS button style with a hover effect", "css", "button-style", "button"),
    ("CSS for a responsive grid layout", "css", "responsive-grid-layout", "grid"),
    ("Write a React component that displays a counter", "jsx", "Counter", "counter"),
    ("Create a React todo list component", "jsx", "TodoList", "todo"),
    ("Write a React component that fetches users from an API and shows them", "jsx", "UserList", "fetch_url"),
    ("Build a login form component in React", "jsx", "LoginForm", "login_form"),
    ("Write a React component with TypeScript for a modal dialog", "tsx", "ModalDialog", "modal"),
    ("Write a TSX component that filters a list as you type", "tsx", "List", "search_list"),
    ("Write a React TypeScript contact form component", "tsx", "ContactForm", "contact_form"),
    (
        "Write a Python class for a library book with checkout and return methods",
        "python",
        "LibraryBook",
        "class_skeleton",
    ),
    ("Write a Go struct for a car with methods to start, stop and refuel the engine", "go", "Car", "class_skeleton"),
    (
        "Write a TypeScript class for a thermostat with methods setTemperature and reading",
        "typescript",
        "Thermostat",
        "class_skeleton",
    ),
    ("Write a Go HTTP server with a health endpoint", "go", "httpServer", "http_server"),
    (
        "Write a Python function that checks whether a string has balanced parentheses",
        "python",
        "has_balanced_parentheses",
        "balanced_brackets",
    ),
    ("Write hello world in Go", "go", "helloWorld", "hello_world"),
    ("Write a bash one-liner to count files in a directory", "bash", "count_files_in_directory", "count_files"),
    (
        "Can you write me a quick script to rename all .jpeg files to .jpg?",
        "python",
        "rename_jpeg_files_to_jpg",
        "rename_files",
    ),
    ("Write a Python function to convert Fahrenheit to Celsius", "python", "fahrenheit_to_celsius", "temperature"),
    (
        "Write a JavaScript function that converts celsius to fahrenheit",
        "javascript",
        "celsiusToFahrenheit",
        "temperature",
    ),
    (
        "write me a python function that does something clever with tax brackets",
        "python",
        "do_something_clever",
        "skeleton",
    ),
]


# Held out: written after the templates, as a reader would ask, and not tuned to (the first run's misses, fixed
# by class, are in the commit that added them). The name is not given: it must be built from the request's words.
HELD_OUT: list[tuple[str, str, str]] = [
    ("Could you write a Python function that returns the second largest number in a list?", "python", "second_largest"),
    ("Write a function that converts a string to title case", "python", "title_case"),
    ("I need a Python function to check if a year is a leap year", "python", "leap_year"),
    ("Write a JavaScript function that capitalizes the first letter of each word", "javascript", "title_case"),
    ("Write a TypeScript function to chunk an array into groups of 3", "typescript", "chunk"),
    ("Write a Go function that checks whether a number is prime", "go", "prime"),
    ("Write a bash script that checks if a website is up and retries 3 times", "bash", "fetch_retry"),
    ("Write a SQL query showing total revenue per product category", "sql", "sql_join_group"),
    ("Write a Python function that groups a list of words by their first letter", "python", "group_by"),
    ("Write a python function that computes the gcd of two numbers", "python", "gcd"),
    ("Write a Python function to merge two dictionaries", "python", "merge_dicts"),
    ("Write a Python function that counts the vowels in a string", "python", "vowels"),
    ("Write a React component that shows a modal when a button is clicked", "jsx", "modal"),
    ("Write an HTML page with a table of products", "html", "html_table"),
    ("Write a Python function that finds the smallest element of an array", "python", "smallest"),
    ("Write a Python function to turn a blog post title into a URL slug", "python", "slugify"),
]


def _parts(identifier: str) -> list[str]:
    return [p.lower() for p in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", identifier)]


def _from_request(identifier: str, request_: str) -> bool:
    """Whether every word of `identifier` is a word of the request (or its stem: `reverse` from "reverses",
    `user` from "users"), or `is`/`are`/`list`, which name a predicate or a list of what it names, or
    `occurrences` for "how many times"."""
    said = request_.lower()
    return all(p in ("is", "are", "list", "occurrences") or p[:4] in said for p in _parts(identifier))


@pytest.mark.parametrize(("request_", "tag", "behaviour"), HELD_OUT)
def test_held_out_requests(request_: str, tag: str, behaviour: str, tmp_path: Path) -> None:
    assert code.task(request_, tag) == behaviour
    for written in variants(request_):
        assert written.language == tag, request_
        assert _from_request(written.name, request_), (written.name, request_)
        assert written.name in written.source and written.summary
        if tag == "python":
            namespace = _run_python(written.source)
            PYTHON[behaviour](namespace, namespace[written.name], Path(tempfile.mkdtemp(dir=tmp_path)))
    # The other languages' blocks are checked by their tool with the rest (test_blocks_pass_their_language_check).


def test_panel_names_are_built_from_the_request() -> None:
    for request_, tag, name, _ in PANEL:
        if tag != "sql":  # a query over tables the request does not name uses the template's (employees)
            assert _from_request(name, request_), (name, request_)


def _run_python(source: str) -> Namespace:
    """Run the block as a module of its own (dataclasses look their module up by name), not as `__main__`."""
    module = types.ModuleType(f"panel_block_{next(_blocks)}")
    sys.modules[module.__name__] = module
    try:
        exec(compile(source, f"<{module.__name__}>", "exec"), module.__dict__)  # the block under test
    finally:
        del sys.modules[module.__name__]
    return module.__dict__


_blocks = itertools.count()


@pytest.mark.parametrize(("request_", "tag", "name", "behaviour"), [r for r in PANEL if r[1] == "python"])
def test_python_blocks_run_and_do_what_their_name_says(
    request_: str, tag: str, name: str, behaviour: str, tmp_path: Path
) -> None:
    for written in variants(request_):
        assert (written.language, written.name) == (tag, name), request_
        assert written.source.endswith("\n") and written.summary
        namespace = _run_python(written.source)
        PYTHON[behaviour](namespace, namespace[written.name], tmp_path)


def test_every_language_with_templates_has_a_spoken_name_and_a_checker() -> None:
    assert set(code.TEMPLATES) == set(code.SPOKEN) == set(CHECKERS) | {"python"}


def test_no_code_for_a_request_that_asks_for_none() -> None:
    for request_ in (
        "What is Python?",
        "Write a haiku about autumn",
        "Say hi",
        "Summarize the plot of Hamlet in two sentences.",
        "Write a short story about a programmer who writes a Python script at midnight",
        "How do I make a sourdough starter?",
        "Write an email to my landlord about the broken heating",
        "Compare Go and Rust for web servers",
        "What is a Python function?",
        "Explain how a SQL join works",
    ):
        assert code.write(request_, dice(0)) is None, request_


def test_same_request_and_dice_give_the_same_code() -> None:
    for request_, *_ in PANEL:
        assert code.write(request_, dice(3)) == code.write(request_, dice(3))


def test_different_dice_give_different_valid_variants() -> None:
    """Every request's answer varies with the dice (its summary at least), and a good share get a different
    program (every variant of those is run or checked above: `variants` collects them all)."""
    several = 0
    for request_, *_ in PANEL:
        seen = {code.write(request_, dice(seed)) for seed in range(6)}
        assert len(seen) > 1, request_
        several += len({written.source for written in seen if written}) > 1
    assert several >= 20, several


# --- every template, every variant: Python by behaviour, the others by their language's checker ------------------

SAMPLE = {
    "name": "subject",
    "Type": "Subject",
    "convert": "celsius_to_fahrenheit",
    "r": "s",
    "kebab": "subject",
    "snake": "subject",
    "doc": "Do the thing the request asked for.",
    "n": "5",
    "table": "customers",
    "other": "orders",
    "row": "customer",
    "orow": "order",
    "file": "notes.txt",
    "url": "https://example.com/api/items",
    "dir": "./data",
}


def filled(source: str, name: str = "subject") -> str:
    values = SAMPLE | {"name": name}
    once = source.replace("@each\n", "").replace("@end\n", "").replace("@method@", "step").replace("@Method@", "Step")
    return code.PLACEHOLDER.sub(lambda m: values[m.group(1)], once)


def every(tag: str) -> list[tuple[str, str]]:
    """(task, source) for every variant of every template of language `tag`, its placeholders filled."""
    return [
        (task, filled(source, "Subject" if template.defaults.get("main") == "Type" else "subject"))
        for task, template in sorted(code.TEMPLATES.get(tag, {}).items())
        for source in template.variants
    ]


def test_every_python_template_has_a_behaviour_check_and_passes_it(tmp_path: Path) -> None:
    assert set(code.TEMPLATES["python"]) == set(PYTHON)
    for task, source in every("python"):
        template = code.TEMPLATES["python"][task]
        main = {"Type": "Subject", "convert": "celsius_to_fahrenheit"}.get(template.defaults.get("main", ""), "subject")
        namespace = _run_python(source)
        PYTHON[task](namespace, namespace[main], Path(tempfile.mkdtemp(dir=tmp_path)))


def _cache() -> Path:
    root = Path(os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")) / "emulator-tests"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _typescript() -> Path:
    """The prefix holding npm's typescript (and React's and Node's type declarations), installed on first use."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: TypeScript and JSX blocks are checked by npm's typescript")
    root = _cache()
    prefix = root / f"typescript-{TYPESCRIPT}"
    with open(root / f"typescript-{TYPESCRIPT}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (prefix / ".installed").exists():
            packages = [f"typescript@{TYPESCRIPT}", f"@types/react@{REACT_TYPES}", f"@types/node@{NODE_TYPES}"]
            try:
                run = subprocess.run(
                    [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "-q", *packages],
                    capture_output=True,
                    timeout=INSTALL_TIMEOUT,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                pytest.skip(f"installing typescript {TYPESCRIPT} took over {INSTALL_TIMEOUT} s")
            if run.returncode != 0:
                said = (run.stdout + run.stderr).decode(errors="replace").strip().splitlines()[-3:]
                pytest.skip(f"could not install typescript {TYPESCRIPT} with npm: {' / '.join(said)}")
            (prefix / ".installed").write_text(TYPESCRIPT)
    return prefix


def _tool(name: str, package: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed (Debian's {package}; .ci/deps installs it)")
    return found


def _checked(command: list[str], path: Path) -> None:
    run = subprocess.run([*command, str(path)], capture_output=True, timeout=60, check=False)
    said = (run.stdout + run.stderr).decode(errors="replace")
    assert run.returncode == 0, f"{' '.join(command)} {path.name}:\n{said}\n{path.read_text()}"


# Node's own parser on many blocks in one process: `node --check` parses as this does (V8, a module), but a node
# starts in a third of a second, twenty seconds for every template on a loaded machine.
PARSE_MODULES = """
import { readFileSync } from "node:fs";
import vm from "node:vm";
let failed = 0;
for (const path of process.argv.slice(1)) {
  try {
    new vm.SourceTextModule(readFileSync(path, "utf8"), { identifier: path });
  } catch (error) {
    failed += 1;
    console.log(`${path}: ${error}`);
  }
}
process.exit(failed ? 1 : 0);
"""


def _written(blocks: list[str], tmp: Path, suffix: str) -> list[Path]:
    paths = []
    for i, source in enumerate(blocks):
        paths.append(tmp / f"block{i}{suffix}")
        paths[-1].write_text(source)
    return paths


def check_javascript(blocks: list[str], tmp: Path) -> None:
    """`node --check` on each block (as an ES module: the blocks that read files import `node:fs`)."""
    node = _tool("node", "nodejs")
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda path: _checked([node, "--check"], path), _written(blocks, tmp, ".mjs")))


def parse_javascript(blocks: list[str], tmp: Path) -> None:
    """Node's parser on every block in one process (see PARSE_MODULES)."""
    node = _tool("node", "nodejs")
    paths = [str(p) for p in _written(blocks, tmp, ".mjs")]
    command = [node, "--experimental-vm-modules", "--no-warnings", "--input-type=module", "-e", PARSE_MODULES]
    run = subprocess.run([*command, *paths], capture_output=True, timeout=120, check=False)
    said = (run.stdout + run.stderr).decode(errors="replace")
    assert run.returncode == 0, said + "".join(Path(p).read_text() for p in paths if p in said)


def check_typed(blocks: list[str], suffix: str) -> None:
    """All the blocks in one `tsc --noEmit --strict` run, each a module of its own (so their names do not
    clash), in a folder under the prefix so `react` and `node:fs` resolve to their declarations."""
    prefix = _typescript()
    work = Path(tempfile.mkdtemp(dir=prefix, prefix="check-"))
    try:
        paths = []
        for i, source in enumerate(blocks):
            path = work / f"block{i}{suffix}"
            path.write_text(source + "\nexport {};\n")
            paths.append(str(path))
        options = ["--noEmit", "--strict", "--target", "es2022", "--lib", "es2022,dom,dom.iterable"]
        options += ["--module", "esnext", "--moduleResolution", "bundler", "--types", "node", "--jsx", "react-jsx"]
        options += ["--skipLibCheck", "--allowJs", "--checkJs", "false"]
        tsc = prefix / "node_modules" / ".bin" / "tsc"
        run = subprocess.run([str(tsc), *options, *paths], capture_output=True, timeout=300, check=False, cwd=prefix)
        said = (run.stdout + run.stderr).decode(errors="replace")
        shown = "\n".join(
            f"--- block{i}{suffix}\n{source}" for i, source in enumerate(blocks) if f"block{i}{suffix}" in said
        )
        assert run.returncode == 0, f"{said}\n{shown}"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_bash(blocks: list[str], tmp: Path) -> None:
    bash = _tool("bash", "bash")
    for i, source in enumerate(blocks):
        path = tmp / f"block{i}.sh"
        path.write_text(source)
        _checked([bash, "-n"], path)


def check_go(blocks: list[str], tmp: Path) -> None:
    gofmt = _tool("gofmt", "golang-go")
    for i, source in enumerate(blocks):
        path = tmp / f"block{i}.go"
        path.write_text(source)
        _checked([gofmt, "-e", "-l"], path)
        formatted = subprocess.run([gofmt, str(path)], capture_output=True, timeout=60, check=True).stdout.decode()
        assert formatted == source, f"not gofmt's layout:\n{source}"


def check_html(blocks: list[str], tmp: Path) -> None:
    tidy = _tool("tidy", "tidy")
    for i, source in enumerate(blocks):
        path = tmp / f"block{i}.html"
        path.write_text(source)
        run = subprocess.run([tidy, "-e", "-q", str(path)], capture_output=True, timeout=60, check=False)
        said = (run.stdout + run.stderr).decode(errors="replace")
        assert run.returncode == 0, f"tidy -e: {said}\n{source}"  # 1 is warnings, 2 errors: neither passes


_DECLARATION = re.compile(r"^\s*(?:--)?[a-z-]+\s*:\s*[^;{}]+;\s*$")


def check_css(blocks: list[str], tmp: Path) -> None:
    """CSS has no checker in Debian's main that fits a test, so: braces balance, every line inside a rule is a
    declaration (`property: value;`), a selector or an at-rule opens a block, and comments close."""
    for source in blocks:
        depth = 0
        text = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
        assert "/*" not in text and "*/" not in text, source
        for line in text.splitlines():
            stripped = line.strip()
            if not stripped:
                continue
            if stripped.endswith("{"):
                depth += 1
            elif stripped.endswith(",") and not _DECLARATION.match(stripped):
                continue  # one selector of a list, one per line
            elif stripped == "}":
                depth -= 1
                assert depth >= 0, source
            else:
                assert depth > 0 and _DECLARATION.match(stripped), f"{stripped!r} in\n{source}"
        assert depth == 0, source


def check_sql(blocks: list[str], tmp: Path) -> None:
    for source in blocks:
        assert re.search(r"\bCREATE TABLE\b", source, re.I), source
        database = sqlite3.connect(":memory:")
        try:
            database.executescript(source)
        except sqlite3.Error as error:
            pytest.fail(f"sqlite3: {error}\n{source}")
        finally:
            database.close()


CHECKERS: dict[str, Callable[[list[str], Path], None]] = {
    "javascript": check_javascript,
    "typescript": lambda blocks, tmp: check_typed(blocks, ".ts"),
    "tsx": lambda blocks, tmp: check_typed(blocks, ".tsx"),
    "jsx": lambda blocks, tmp: check_typed(blocks, ".jsx"),
    "bash": check_bash,
    "go": check_go,
    "html": check_html,
    "css": check_css,
    "sql": check_sql,
}


def _asked(tag: str) -> list[str]:
    """Every block the panel's and the held-out requests in language `tag` get, over a few dice."""
    requests = [r for r, language, *_ in PANEL if language == tag] + [
        r for r, language, _ in HELD_OUT if language == tag
    ]
    return [written.source for request_ in requests for written in variants(request_)]


@pytest.mark.parametrize("tag", sorted(CHECKERS))
def test_blocks_pass_their_language_check(tag: str, tmp_path: Path) -> None:
    """Every variant of every template (with sample names) and every block the requests get, in one run of
    the language's checker: tsc takes seconds to start, so each language is one run."""
    templates, asked = [source for _, source in every(tag)], _asked(tag)
    assert templates and asked, f"no templates or no requests for {tag}"
    if tag == "javascript":
        parse_javascript(templates, tmp_path)  # all at once in node's parser; the asked ones by `node --check`
        check_javascript(asked, tmp_path)
    else:
        CHECKERS[tag](templates + asked, tmp_path)


def test_panel_requests_get_their_language_name_and_task() -> None:
    for request_, language, name, task in PANEL:
        assert code.task(request_, language) == (None if task == "skeleton" else task), request_
        for written in variants(request_):
            assert (written.language, written.name) == (language, name), request_
            assert name in written.source and written.summary, request_


# --- JavaScript and TypeScript: each template run by node on the test's own samples ----------------------------

# What each JavaScript template must do: an expression (awaited) that is true, over `subject` (or `Subject`,
# a class) and `dir`, a fresh folder. The servers, the network and the printing-only ones are only parsed.
JAVASCRIPT = {
    "skeleton": "(() => { try { subject(1); return false; } catch (e) {"
    " return /not implemented/.test(e.message); } })()",
    "class_skeleton": "String(new Subject('first')) === 'Subject(first)'"
    " && new Subject('x', { a: 1 }).attributes.a === 1",
    "linked_list_reverse": "(() => { const n = new ListNode(1, new ListNode(2, new ListNode(3))); const h = subject(n);"
    " return h.value === 3 && h.next.value === 2 && h.next.next.value === 1 && h.next.next.next === null; })()",
    "stack": "(() => { const s = new Subject(); s.push(1); s.push(2); return s.peek() === 2 && s.pop() === 2"
    " && s.size === 1 && !s.isEmpty(); })()",
    "queue": "(() => { const q = new Subject(); q.enqueue('a'); q.enqueue('b'); return q.dequeue() === 'a'"
    " && q.peek() === 'b' && q.size === 1; })()",
    "bank_account": "(() => { const a = new Subject('Grace', 50); a.deposit(25); a.withdraw(30);"
    " try { a.withdraw(1000); return false; } catch { return a.balance === 45; } })()",
    "shopping_cart": "(() => { const c = new Subject(); c.addItem('pear', 0.4, 5); c.addItem('milk', 1.25);"
    " c.addItem('pear', 0.4); const t = c.total(); c.removeItem('milk'); return t === 3.65 && c.total() === 2.4; })()",
    "rectangle": "new Subject(3, 4).area() === 12 && new Subject(3, 4).perimeter() === 14",
    "circle": "Math.abs(new Subject(2).area() - 12.566370614359172) < 1e-9",
    "reverse_words": "subject('  cats chase   mice ') === 'mice chase cats'",
    "reverse_string": "subject('stressed') === 'desserts' && subject('') === ''",
    "reverse_list": "JSON.stringify(subject(['x', 2, null])) === '[null,2,\"x\"]'",
    "palindrome": "subject('Was it a car or a cat I saw?') && !subject('emulator')",
    "anagram": "subject('Dormitory', 'dirty room') && !subject('night', 'thingy')",
    "fibonacci_sequence": "JSON.stringify(subject(8)) === '[0,1,1,2,3,5,8,13]'",
    "fibonacci": "[0, 1, 2, 12].map(subject).join() === '0,1,1,144'",
    "factorial": "subject(0) === 1n && subject(6) === 720n && subject(25) === 15511210043330985984000000n",
    "primes": "subject(30).join() === '2,3,5,7,11,13,17,19,23,29'",
    "prime": "[...Array(33).keys()].map((n) => n - 3).filter(subject).join() === '2,3,5,7,11,13,17,19,23,29'",
    "fizzbuzz": "subject(16).slice(2, 6).join() === 'Fizz,4,Buzz,Fizz' && subject(16)[14] === 'FizzBuzz'",
    "gcd": "subject(84, 36) === 12 && subject(-17, 5) === 1",
    "leap_year": "[1800, 1996, 2000, 2023, 2100].filter(subject).join() === '1996,2000'",
    "binary_search": "subject([2, 4, 8, 16, 32], 16) === 3 && subject([2, 4, 8], 5) === -1 && subject([], 1) === -1",
    "two_sum": "subject([3, 8, 1, 6], 7).join() === '2,3' && subject([1, 2], 10) === null",
    "validate_email": "subject('grace.hopper@navy.example.org') && !subject('no at sign') && !subject('a@b')"
    " && !subject('a@@b.co')",
    "temperature": "celsiusToFahrenheit(100) === 212 && fahrenheitToCelsius(212) === 100",
    "vowels": "subject('Queueing, AEIOU!') === 10 && subject('rhythm') === 0",
    "word_frequency": 'JSON.stringify([...subject(\'The cat; the HAT.\')]) === \'[["the",2],["cat",1],["hat",1]]\'',
    "word_count": "subject(' one\\ttwo  three\\nfour ') === 4 && subject('   ') === 0",
    "slugify": "subject('  Crème Brûlée: 10 Tips! ') === 'creme-brulee-10-tips'",
    "title_case": "subject('the old man and the sea') === 'The Old Man And The Sea'",
    "dedupe": "subject(['b', 'a', 'b', 'c', 'a']).join() === 'b,a,c'",
    "flatten": "JSON.stringify(subject([1, [2, [3, [4]]], [], 'ab'])) === '[1,2,3,4,\"ab\"]'",
    "chunk": "JSON.stringify(subject([0, 1, 2, 3, 4, 5, 6], 3)) === '[[0,1,2],[3,4,5],[6]]'",
    "merge_sort": "subject([9, -1, 4, 4, 0, 10]).join() === '-1,0,4,4,9,10'",
    "quicksort": "subject([9, -1, 4, 4, 0, 10]).join() === '-1,0,4,4,9,10'",
    "merge_sorted": "subject([1, 5, 9], [2, 5, 6, 12]).join() === '1,2,5,5,6,9,12'",
    "merge_dicts": "JSON.stringify(subject({ db: { host: 'a', port: 1 }, x: 1 }, { db: { port: 2 }, y: 3 }))"
    ' === \'{"db":{"host":"a","port":2},"x":1,"y":3}\'',
    "group_by": "JSON.stringify(subject(['ant', 'bee', 'ape'], (w) => w[0]))"
    """ === '{"a":["ant","ape"],"b":["bee"]}'""",
    "sort_by_key": "subject([{ n: 'b', age: 40 }, { n: 'a', age: 30 }], 'age').map((r) => r.n).join() === 'a,b'",
    "sort_list": "subject([10, 9, 1]).join() === '1,9,10'",
    "largest": "subject([-5, 12, 7]) === 12",
    "second_largest": "subject([5, 11, 2, 11, 8]) === 8 && subject([3, 3]) === undefined",
    "smallest": "subject([5, -12, 7]) === -12",
    "average": "subject([1, 2, 3, 6]) === 3",
    "total": "subject([1.5, 2.5, 4]) === 8 && subject([]) === 0",
    "count_occurrences": "JSON.stringify([...subject('abracadabra')])"
    """ === '[["a",5],["b",2],["r",2],["c",1],["d",1]]'""",
    "filter_even": "subject([1, 2, 3, 4, 10, -6]).join() === '2,4,10,-6'",
    "filter_odd": "subject([1, 2, 3, -5]).join() === '1,3,-5'",
    "filter_positive": "subject([-1, 0, 2, 3.5]).join() === '2,3.5'",
    "filter_empty": "JSON.stringify(subject(['x', '', null, undefined, 0, 'y'])) === '[\"x\",0,\"y\"]'",
    "filter": "subject([0, 1, 2, 3, 4, 5, 6], (n) => n % 3 === 0).join() === '0,3,6'",
    "find": "subject([{ id: 1 }, { id: 2 }], (r) => r.id === 2).id === 2 && subject([], Boolean) === undefined",
    "paginate": "(() => { const p = subject([...Array(23).keys()], 3, 10); return p.items.join() === '20,21,22'"
    " && p.pages === 3; })()",
    "debounce": "new Promise((done) => { const seen = []; const f = subject((v) => seen.push(v), 20);"
    " [0, 1, 2, 3].forEach((v) => f(v)); setTimeout(() => done(seen.join() === '3'), 120); })",
    "throttle": "(() => { const seen = []; const f = subject((v) => seen.push(v), 1000); f(1); f(2); f(3);"
    " return seen.join() === '1'; })()",
    "memoize": "(() => { let calls = 0; const sq = subject((x) => { calls += 1; return x * x; });"
    " return sq(3) + sq(3) + sq(4) === 34 && calls === 2; })()",
    "retry": "(async () => { let tries = 0; const value = await subject(async () => { tries += 1;"
    " if (tries < 3) throw new Error('down'); return 'up'; }, 3, 1); return value === 'up' && tries === 3; })()",
    "parse_json": "subject('{\"a\": [1, 2]}').a[1] === 2 && (() => { try { subject('{oops'); return false; }"
    " catch (e) { return e instanceof SyntaxError; } })()",
    "balanced_brackets": "subject('a(b[c]{d})e') && !subject('([)]') && !subject('((') && subject('')",
    "read_file": "(async () => (await subject(dir + '/in.txt')) === 'alpha\\nbeta\\n')()",
    "read_lines": "(async () => (await subject(dir + '/in.txt')).join() === 'alpha,beta')()",
    "file_words": "(async () => (await subject(dir + '/in.txt')) === 2)()",
    "read_csv": "(async () => JSON.stringify(await subject(dir + '/people.csv'))"
    ' === \'[{"name":"Ada","city":"London"},{"name":"Lin, Jr.","city":"Oslo"}]\')()',
    "write_file": "(async () => { await subject(dir + '/out/notes.txt', 'first'); const { readFile } ="
    " await import('node:fs/promises'); return (await readFile(dir + '/out/notes.txt', 'utf8')) === 'first'; })()",
}
ONLY_PARSED = {"fetch_url", "fetch_retry", "http_server", "hello_world"}  # the network, a server, a print

RUN_CHECKS = """
const [dir, ...files] = process.argv.slice(1);
const failed = [];
for (const file of files) {
  try {
    const module = await import(file);
    if ((await module.check(dir)) !== true) failed.push(file);
  } catch (error) {
    failed.push(`${file}: ${error}`);
  }
}
console.log(JSON.stringify(failed));
"""


def test_every_javascript_template_does_what_its_name_says(tmp_path: Path) -> None:
    """Run by node, all in one process. TypeScript's blocks are these with types added (one source, see
    javascript.txt), so this runs their logic too; tsc checks the types."""
    assert set(code.TEMPLATES["javascript"]) - ONLY_PARSED == set(JAVASCRIPT)
    node = _tool("node", "nodejs")
    (tmp_path / "in.txt").write_text("alpha\nbeta\n")
    (tmp_path / "people.csv").write_text('name,city\nAda,London\n"Lin, Jr.",Oslo\n')
    files = []
    for i, (task, source) in enumerate(every("javascript")):
        if task in ONLY_PARSED:
            continue
        path = tmp_path / f"{task}-{i}.mjs"
        path.write_text(f"{source}\nexport const check = async (dir) => ({JAVASCRIPT[task]});\n")
        files.append(str(path))
    command = [node, "--input-type=module", "-e", RUN_CHECKS, str(tmp_path), *files]
    run = subprocess.run(command, capture_output=True, timeout=120, check=False, cwd=tmp_path)
    said = run.stdout.decode().strip().splitlines()
    assert run.returncode == 0 and said, run.stderr.decode()
    failed = json.loads(said[-1])
    assert not failed, "\n\n".join(f"{f}\n{Path(f.split(':')[0]).read_text()}" for f in failed)


# --- SQL: every template run in sqlite3 on rows of the test's own ------------------------------------------------

# For each SQL task: the rows to insert after the block's CREATE TABLEs, and what its last SELECT returns (or,
# for a statement that changes rows, what a query afterwards sees).
ORDERS = (
    "INSERT INTO customers (id, name) VALUES (1, 'Ada'), (2, 'Grace'), (3, 'Linus');"
    " INSERT INTO orders (customer_id, amount, created_at) VALUES (1, 10, date('now', '-40 days')),"
    " (1, 15, date('now', '-2 days')), (2, 40, date('now', '-1 days'));"
)
SQL: dict[str, tuple[str, str, list[tuple[Any, ...]]]] = {
    "skeleton": (
        "INSERT INTO customers (name, email, status, created_at) VALUES ('a', 'a@x', 'active', '2024-01-01'),"
        " ('b', 'b@x', 'gone', '2024-02-01'), ('c', 'c@x', 'active', '2024-03-01');",
        "",
        [(3, "c", "c@x", "2024-03-01"), (1, "a", "a@x", "2024-01-01")],
    ),
    "sql_join_group": (ORDERS, "", [(2, "Grace", 1, 40), (1, "Ada", 2, 25), (3, "Linus", 0, 0)]),
    "sql_top": (ORDERS, "", [(2, "Grace", 40), (1, "Ada", 25)]),
    "sql_second": (
        "INSERT INTO customers (name, department, salary) VALUES ('a', 'x', 100), ('b', 'x', 300),"
        " ('c', 'y', 300), ('d', 'y', 200);",
        "",
        [(200,)],
    ),
    "sql_recent": (ORDERS, "", [(3, "Grace", 40), (2, "Ada", 15)]),
    "dedupe": (
        "INSERT INTO customers (id, name, email) VALUES (1, 'a', 'x@y'), (2, 'b', 'z@y'), (3, 'c', 'x@y');",
        "SELECT id FROM customers ORDER BY id",
        [(1,), (2,)],
    ),
    "paginate": (
        "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 100)"
        " INSERT INTO customers (id, name) SELECT value, 'n' || value FROM n;",
        "",
        [(41, "n41")],
    ),
    "sql_create": (
        "INSERT INTO customers (name, email) VALUES ('a', 'a@x');",
        "SELECT count(*) FROM customers",
        [(1,)],
    ),
    "sql_insert": (
        "",
        "SELECT name, email FROM customers ORDER BY id",
        [("Ada King", "ada@example.com"), ("Alan Turing", "alan@example.com")],
    ),
    "sql_update": (
        "INSERT INTO customers (id, name) VALUES (1, 'a'), (2, 'b');"
        " INSERT INTO orders (customer_id, created_at) VALUES (1, date('now', '-3 days'));",
        "SELECT id, status FROM customers ORDER BY id",
        [(1, "active"), (2, "inactive")],
    ),
    "sql_delete": (
        "INSERT INTO customers (id, name) VALUES (42, 'a'), (7, 'b'); INSERT INTO orders (customer_id, amount)"
        " VALUES (42, 1), (7, 2);",
        "SELECT (SELECT group_concat(id) FROM customers), (SELECT group_concat(customer_id) FROM orders)",
        [("7", "7")],
    ),
}


def _statements(source: str) -> list[str]:
    """The block's statements, in order (sqlite3 says where one is complete)."""
    statements, current = [], ""
    for line in source.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return statements


def test_every_sql_template_returns_the_right_rows() -> None:
    assert set(code.TEMPLATES["sql"]) == set(SQL)
    for task, source in every("sql"):
        rows, then, expected = SQL[task]
        statements = _statements(source)
        creates = [s for s in statements if re.sub(r"(?m)^--.*\n", "", s).upper().startswith("CREATE")]
        database = sqlite3.connect(":memory:")
        try:
            for statement in creates:
                database.execute(statement)
            database.executescript(rows)
            result: list[tuple[Any, ...]] = []
            for statement in statements:
                if statement not in creates:
                    cursor = database.execute(statement)
                    if cursor.description:
                        result = cursor.fetchall()
            if then:
                result = database.execute(then).fetchall()
            width = len(expected[0]) if expected else 0
            assert [tuple(r[:width]) for r in result[: len(expected)]] == expected, (task, result, source)
        finally:
            database.close()


_WORDS = [
    "write",
    "a",
    "Python",
    "Go",
    "function",
    "class",
    "query",
    "that",
    "reverses",
    "sorts",
    "with",
    "and",
    "methods",
    "React",
    "component",
    "called",
    "is",
    "my",
    "folder",
    "to",
    "the",
    "SQL",
    "CSS",
    "bash",
    "in",
    "checks",
    "if",
    "palindrome",
    "how",
    "do",
    "I",
    "`x`",
    ".py",
    "/tmp/a",
    "https://e.x/y",
    "3",
    "😀",
    "?",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS) | st.text(max_size=12), max_size=30), st.integers(0, 65535))
def test_any_text_gets_code_or_none_never_an_error(words: list[str], face: int) -> None:
    written = code.write(" ".join(words), itertools.cycle([face]))
    if written is not None:
        assert written.language in code.SPOKEN and written.source.endswith("\n") and written.name
        assert "@" + "name@" not in written.source and "«" not in written.source


@pytest.mark.parametrize(
    ("request_", "marker"),
    [
        ("Write a JavaScript function to deduplicate a list of numbers", "Set"),
        ("Write a SQL query for the second highest salary", "DENSE_RANK"),
        ("Write a CSS class that centers its content on the page", "place-items"),
    ],
)
def test_a_summary_describes_the_variant_it_goes_with(request_: str, marker: str) -> None:
    """Where a template has several variants, each has its own summary: one that names how the code works says
    what that variant does ("passes the array through a `Set`" only beside the code that does)."""
    written = [w for seed in range(8) if (w := code.write(request_, dice(seed)))]
    assert written, request_
    assert len({w.source for w in written}) > 1, request_  # a template of several variants
    for w in written:
        assert (marker in w.summary) <= (marker in w.source), (w.summary, w.source)
    pairs = {(w.source, w.summary) for w in written}
    assert len(pairs) == len({w.source for w in written}), pairs  # one summary per program
