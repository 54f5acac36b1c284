"""`emulator check`: validate scenario files and cassettes, print every mistake, exit non-zero on any."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from emulator import recordings, scenarios


def arguments(check: argparse.ArgumentParser) -> None:
    check.add_argument(
        "paths", type=Path, nargs="+", metavar="PATH", help="scenario file, cassette or directory of either"
    )


def run(paths: list[Path]) -> int:
    """Validate scenario files and cassettes (told apart by a top-level `interactions`); print every mistake."""
    problems: list[str] = []
    try:
        files = scenarios.yaml_files(paths)
    except scenarios.ScenarioError as exc:
        print(exc, file=sys.stderr)
        return 1
    cassettes = [f for f in files if recordings.is_cassette_file(f)]
    book, library = scenarios.Book(()), recordings.Library(())
    try:
        book = scenarios.load([f for f in files if f not in cassettes])
    except scenarios.ScenarioError as exc:
        problems.append(str(exc))
    try:
        library = recordings.load(cassettes)
    except recordings.CassetteError as exc:
        problems.append(str(exc))
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(f"ok: {len(book.scenarios)} scenarios, {len(library)} recordings in {len(cassettes)} cassettes")
    for s in book.scenarios:
        print(f"  {s.name}  ({s.source})")
    for file in cassettes:
        print(f"  {file}  (cassette)")
    return 0
