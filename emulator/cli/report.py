"""`emulator report`: the grade of how clients behaved under the faults a running emulator served, read from its
`/_emulator/report`."""

from __future__ import annotations

import argparse
import json
import sys
import urllib.parse
import urllib.request

from emulator.cli import flags


def arguments(grade: argparse.ArgumentParser) -> None:
    grade.add_argument(
        "--url", type=flags.http_url, default="http://127.0.0.1:8000", help="the emulator (default: %(default)s)"
    )
    grade.add_argument("--test-id", metavar="ID", help="only this test's requests (x-emulator-test-id)")
    flags.admin_token_argument(
        grade, "the emulator's admin token, if it is bound beyond loopback (default: $EMULATOR_ADMIN_TOKEN)"
    )


def run(url: str, test_id: str | None, token: str | None = None) -> int:
    """Print the client report; exit 1 when it has findings, 2 when the emulator cannot be reached."""
    query = f"?{urllib.parse.urlencode({'test_id': test_id})}" if test_id else ""
    try:
        asked = urllib.request.Request(f"{url.rstrip('/')}/_emulator/report{query}")
        if token:
            asked.add_header("authorization", f"Bearer {token}")
        with urllib.request.urlopen(asked, timeout=10) as response:
            graded = json.load(response)
    except (OSError, ValueError) as exc:
        print(f"emulator: could not read the report from {url}: {exc}", file=sys.stderr)
        return 2
    print(f"{graded['verdict']}: {len(graded['findings'])} findings over {graded['faulted_requests']} faulted requests")
    for f in graded["findings"]:
        print(f"  {f['rule']}: {f['detail']} (requests {', '.join(map(str, f['requests']))}): {f['means']}")
    return 1 if graded["findings"] else 0
