"""`emulator conform` on the command line: read the cassettes, compare each interaction's shape with the
emulator's own rendering of it, print `same` or each difference per interaction, then the count; exit 1 on any
difference. The report's printing and the cassettes' reading are `emulator drift`'s too.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from emulator import scenarios
from emulator.answering import conformance
from emulator.recordings import CassetteError, is_cassette_file
from emulator.recordings.cassette import document_of
from emulator.recordings.shapes import Difference
from emulator.rules import profiles

DEFAULT_PATH = Path("recordings")
LEGEND = {
    "conform": "(+ only the emulator's answer has it, - only the recording's, ~ both, typed recorded -> emulator)",
    "drift": "(+ only the live answer has it, - only the recording's, ~ both, typed recorded -> live)",
}


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", type=Path, nargs="*", metavar="PATH", help="cassettes or directories of them (default: ./recordings)"
    )
    parser.add_argument(
        "--profile",
        choices=sorted(profiles.PROFILES),
        help="the profile to render under where the recorder noted none (required then)",
    )
    parser.add_argument("--json", action="store_true", help="write the report as JSON")


def recorded(paths: Sequence[Path]) -> Iterator[conformance.Interaction]:
    """Every interaction of the cassettes among `paths` (files, or directories' YAML files), in order."""
    for file in scenarios.yaml_files(paths or [DEFAULT_PATH]):
        if is_cassette_file(file):
            yield from conformance.interactions(file.name, document_of(file))


def run(args: argparse.Namespace) -> int:
    """`emulator conform`: 0 when every interaction's shape is the emulator's, 1 when any differs, 2 when the
    cassettes cannot be read or an interaction's profile is unknown."""
    try:
        found = list(recorded(args.paths))
    except (CassetteError, scenarios.ScenarioError) as exc:
        print(exc, file=sys.stderr)
        return 2
    unknown = [i.source for i in found if conformance.profile_for(i, args.profile) is None]
    if unknown:
        print(
            f"emulator conform: no profile noted for {', '.join(unknown)}: say which with --profile",
            file=sys.stderr,
        )
        return 2
    results: list[tuple[str, list[Difference] | None, str]] = []
    for interaction in found:
        profile = conformance.profile_for(interaction, args.profile) or profiles.DEFAULT
        dialect = conformance.dialect_of(interaction.path)
        if dialect is not None and dialect.NAME not in profiles.PROFILES[profile].dialects:
            where = interaction.path.partition("?")[0]
            results.append((interaction.source, None, f"skipped: the {profile} profile does not serve {where}"))
            continue
        why = conformance.refusal(interaction, profile) if interaction.status == 200 else None
        note = f"profile {profile}" + (f"; it refuses the recorded request: {why}" if why else "")
        try:
            results.append((interaction.source, conformance.conform(interaction, profile), note))
        except ValueError as exc:
            results.append((interaction.source, None, f"skipped: {exc}"))
    return report("conform", results, args.json)


def report(command: str, results: list[tuple[str, list[Difference] | None, str]], as_json: bool) -> int:
    """The report, in words or as JSON; the exit status (1 when any interaction differs)."""
    compared = [r for r in results if r[1] is not None]
    differ = sum(1 for r in compared if r[1])
    summary = f"{command}: {differ} of {len(compared)} interactions differ"
    skipped = len(results) - len(compared)
    summary += f" ({skipped} skipped)" if skipped else ""
    if as_json:
        lines = [conformance.as_json(source, found, note) for source, found, note in results]
        print(json.dumps({"interactions": lines, "differ": differ, "compared": len(compared), "skipped": skipped}))
        return 1 if differ else 0
    if differ:
        print(LEGEND[command])
    for source, found, note in results:
        if found is None:
            print(f"{source}: {note}")
        elif not found:
            print(f"{source}: same ({note})")
        else:
            print(f"{source}: {len(found)} differences ({note})")
            print("\n".join(f"  {d}" for d in found))
    print(summary)
    return 1 if differ else 0
