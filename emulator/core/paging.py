"""One page of a list, as OpenAI's list endpoints answer it (a cursor page: `data`, `first_id`, `last_id`,
`has_more`), from the query's `order`, `limit` and `after`: stored responses' input items, stored chat
completions and their messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from emulator.core.fields import wrong_value

ORDERS = ("asc", "desc")


def page(items: Sequence[Mapping[str, Any]], query: Mapping[str, str], default_order: str) -> dict[str, Any]:
    """One page of `items` (oldest first, each with an `id`): in `order` (`default_order` unless the query says),
    at most `limit` (1 to 100, 20 by default), those after the item whose id is `after` (none when it is unknown)."""
    order = query.get("order", default_order)
    if order not in ORDERS:
        raise wrong_value("order", order, ORDERS)
    limit = query.get("limit", "20")
    if not limit.isdigit() or not 1 <= int(limit) <= 100:
        raise wrong_value("limit", limit, "an integer from 1 to 100")
    ordered = list(items) if order == "asc" else list(reversed(items))
    after = query.get("after")
    start = 0 if after is None else next((i + 1 for i, item in enumerate(ordered) if item["id"] == after), len(ordered))
    chosen = ordered[start : start + int(limit)]
    return {
        "object": "list",
        "data": chosen,
        "first_id": chosen[0]["id"] if chosen else None,
        "last_id": chosen[-1]["id"] if chosen else None,
        "has_more": start + int(limit) < len(ordered),
    }
