"""aider's edit formats, as aider applies them: SEARCH/REPLACE blocks (`diff`), whole files (`whole`) and unified
diffs (`udiff`), editing the file the user named (or the one file in the chat) with code from `code.write`.

The files in the chat are read from the message aider adds them in ("path", then the file between fences); the
request is the last user message up to the rules aider appends to it. The new code goes after the file's last
lines: a SEARCH block of those lines (as few as match once), the whole file with the code added, or a hunk that
replaces them with themselves and the code. A file the chat does not hold is created.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from emulator.default_model import code
from emulator.default_model.asked import Asked

_FILE = re.compile(r"^(\S+)\n(`{3,}|<source>)[^\n]*\n(.*?)^\2?(?:`{3,}|</source>)$", re.M | re.S)
_NAMED = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.[A-Za-z0-9]{1,5})\b")
LANGUAGES = {"py": "Python", "js": "JavaScript", "mjs": "JavaScript", "ts": "TypeScript", "tsx": "TypeScript"}
LANGUAGES |= {"go": "Go", "rs": "Rust", "rb": "Ruby", "java": "Java", "sh": "Bash", "sql": "SQL", "php": "PHP"}
LANGUAGES |= {"html": "HTML", "css": "CSS", "kt": "Kotlin", "swift": "Swift", "c": "C", "cpp": "C++", "cs": "C#"}


@dataclass(frozen=True, slots=True)
class Edit:
    """What to change: the file's path, its text now (None: a new file), the fence, the code to add and why."""

    path: str
    before: str | None
    fence: str
    code: code.Code
    request: str

    @property
    def new(self) -> bool:
        return self.before is None or not self.before.strip()

    @property
    def addition(self) -> str:
        """What follows the file's last line: a blank line or two (PEP 8 wants two before a def), the code."""
        return ("\n\n\n" if self.code.language == "python" else "\n\n") + self.code.source

    @property
    def after(self) -> str:
        return self.code.source if self.new else f"{(self.before or '').rstrip()}{self.addition}"

    @property
    def said(self) -> str:
        where = f"`{self.path}`" if self.before is not None else f"a new file, `{self.path}`"
        return f"To do this, I will add `{self.code.name}` to {where}. {self.code.summary}"


def search_replace(asked: Asked) -> str | None:
    edit = _edit(asked)
    if edit is None:
        return None
    search = "" if edit.new else _tail(edit.before or "")
    replace = edit.after if edit.new else search.rstrip("\n") + edit.addition
    block = f"<<<<<<< SEARCH\n{search}=======\n{_line(replace)}>>>>>>> REPLACE"
    return f"{edit.said}\n\n{edit.path}\n{edit.fence}{edit.code.language}\n{block}\n{_closing(edit.fence)}\n"


def whole(asked: Asked) -> str | None:
    edit = _edit(asked)
    if edit is None:
        return None
    return f"{edit.said}\n\n{edit.path}\n{edit.fence}\n{_line(edit.after)}{_closing(edit.fence)}\n"


def udiff(asked: Asked) -> str | None:
    edit = _edit(asked)
    if edit is None:
        return None
    old = "/dev/null" if edit.before is None else edit.path
    minus = "" if edit.new else _tail(edit.before or "")
    plus = edit.after if edit.new else minus.rstrip("\n") + edit.addition
    lines = [f"-{x}" for x in minus.splitlines()] + [f"+{x}" for x in plus.splitlines()]
    body = "\n".join(lines)
    return f"{edit.said}\n\n```diff\n--- {old}\n+++ {edit.path}\n@@ ... @@\n{body}\n```\n"


def _line(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _closing(fence: str) -> str:
    return "</source>" if fence == "<source>" else fence


def _tail(before: str) -> str:
    """The file's last lines, as few as occur once in it (a SEARCH block must match one place)."""
    lines = before.rstrip().split("\n")
    for count in range(1, len(lines) + 1):
        chunk = "\n".join(lines[-count:]) + "\n"
        if lines[-count].strip() and before.count(chunk.rstrip("\n")) == 1:
            return chunk
    return before.rstrip() + "\n"


def _edit(asked: Asked) -> Edit | None:
    """The edit the last request asks for, or None when it asks for no code the templates can write."""
    files: dict[str, tuple[str, str]] = {}
    for m in asked.prompt.messages:
        if m.role == "user" and "added these files to the chat" in m.text:
            files = {f.group(1): (f.group(3), f.group(2)) for f in _FILE.finditer(m.text)}
    request = asked.prompt.last_user_text
    for end in asked.data.get("end", ()):
        request = request.split(end, 1)[0]
    request = request.strip()
    named = [n for n in _NAMED.findall(request) if n.rsplit(".", 1)[1].lower() in LANGUAGES or n in files]
    path = next((n for n in named if n in files), None)
    path = path or next((p for p in files for n in named if p.endswith("/" + n)), None)
    path = path or (named[0] if named else next(iter(files), None))
    if path is None:
        return None
    before, fence = files.get(path, (None, "```"))
    written = code.write(_asking(request, path), asked.dice)
    if written is None:
        return None
    return Edit(path, before, fence if fence.startswith("`") or fence == "<source>" else "```", written, request)


def _asking(request: str, path: str) -> str:
    """The request as `code.write` reads one: the file's name taken out, its language named."""
    name = re.escape(path.rsplit("/", 1)[-1])
    said = re.sub(rf"\s*\b(?:to|in|into|inside|of|from)\s+(?:the\s+file\s+)?`?(?:[\w./-]*/)?{name}`?", "", request)
    said = re.sub(rf"`?(?:[\w./-]*/)?{name}`?", "the file", said)
    language = LANGUAGES.get(path.rsplit(".", 1)[-1].lower(), "")
    if language and language.lower() not in said.lower():
        said = f"{said.rstrip('.!? ')} in {language}"
    if code.write(said, iter([0, 0])) is None:
        said = f"Write a {language} function that {said[0].lower()}{said[1:]}".replace("  ", " ")
    return said
