"""Cassettes and replay: read vcrpy cassettes into `Recording`s, match a request to one (by its body, or
as the same conversation in any dialect), and play it back at the recorded pace.

One job a module, all pure but for reading, writing and locking cassette files:

- `scrub`: the replacements applied to request bodies before matching and writing;
- `matching`: what matching compares of a request (`match_key`, `api_path`);
- `recording`: one interaction as replay needs it, and the headers a cassette keeps;
- `vcr_format`: vcrpy's cassette format (the home of vcrpy);
- `shape`: what a cassette must look like, every mistake with its key path;
- `cassette`: cassette files read and checked, `load` into a `Library`;
- `tape`: the cassette being recorded into, appended to as each answer ends;
- `locking`: the advisory lock every writer of one cassette takes, on a sidecar file;
- `library`: the recordings in service, by request, by conversation and by agent session;
- `nearest`: the nearest recording to a miss and where it differs;
- `replay`: a recorded answer played back, its pacing, a replay-only miss;
- `redact`: the secrets a client sent, and their redaction from what a recorder writes;
- `sigv4`: AWS's Signature Version 4, to sign a forwarded request again for the upstream's host.

The recording proxy that feeds a `Tape` is `emulator.http.recorder` (the I/O floor, the home of httpx).

Layer: beside the scenarios, above the dialects, the default model, the rules and the core, all it imports.
"""

from __future__ import annotations

from emulator.recordings import redact, sigv4
from emulator.recordings.cassette import CassetteError, is_cassette_file, load, read
from emulator.recordings.library import Library, Reader
from emulator.recordings.matching import API_MARKS, VOLATILE_FIELDS, api_path, match_key
from emulator.recordings.recording import ALLOWED_HEADERS, ALLOWED_PREFIXES, MAX_GAP, Recording, allowed
from emulator.recordings.replay import MATCH_HEADER, miss, pace, script
from emulator.recordings.scrub import DEFAULT_SCRUBS, SCRUB_KEY, Scrubber, scrub_spec
from emulator.recordings.tape import Tape
from emulator.recordings.validity import cassette_problems, is_cassette
from emulator.recordings.vcr_format import PACING

__all__ = [
    "ALLOWED_HEADERS",
    "ALLOWED_PREFIXES",
    "API_MARKS",
    "DEFAULT_SCRUBS",
    "MATCH_HEADER",
    "MAX_GAP",
    "PACING",
    "SCRUB_KEY",
    "VOLATILE_FIELDS",
    "CassetteError",
    "Library",
    "Reader",
    "Recording",
    "Scrubber",
    "Tape",
    "allowed",
    "api_path",
    "cassette_problems",
    "is_cassette",
    "is_cassette_file",
    "load",
    "match_key",
    "miss",
    "pace",
    "read",
    "redact",
    "sigv4",
    "scrub_spec",
    "script",
]
