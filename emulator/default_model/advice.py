"""The default model's advice: "Should I buy or rent?", "Is it safe to eat raw cookie dough?", "What should I
pack for a week in Iceland?", "How long should I boil an egg?". The question's own clause is the task it asks
about ("pack for a week in Iceland"), said as a verb phrase in every frame, never as a noun ("Pack for a week in
Iceland is a common topic" was what the explanation's frames made of it). The answer names the points that
usually decide it, then a next step, and says it checks no facts where health, money or the law may be involved.
"""

from __future__ import annotations

from collections.abc import Sequence

from emulator.default_model.page import Page


def advice(page: Page, places: Sequence[str]) -> str:
    """An opening that names the task, three points (label: sentence) that decide it, and a closing, from the
    sections of its sort of advice (`Ask.other`: "", "how:long", "safe" or "choose")."""
    sort, _, how = page.ask.other.partition(":")
    if how:  # "How long should I boil an egg?": {how} is "long"
        page.slots = page.slots.adding({"how": how})
    end = f"-{sort}" if sort else ""
    points = []
    for _ in range(3):
        label, _, point = page.say(f"advice-point{end}").partition(": ")
        points.append(f"- **{label}**: {point}")
    opening, closing = page.say(f"advice-open{end}"), page.say(f"advice-close{end}")
    return f"{opening}\n\n" + "\n".join(points) + f"\n\n{closing}"
