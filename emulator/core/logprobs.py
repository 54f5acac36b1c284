"""Token log probabilities of an answer's text, as OpenAI reports them (Chat's `logprobs`/`top_logprobs`,
Responses' `include: ["message.output_text.logprobs"]`): deterministic from the answer's root.

The tokens are the text's pieces as `tokens.split` cuts them, the very deltas a stream sends, so they concatenate
to the text exactly. At each position the chosen token is the most likely one (greedy decoding), so it heads its
`top_logprobs` whenever any are asked for; the alternatives follow in descending order, their probabilities
sharing what the chosen one leaves, so that no position's probabilities sum past 1 and every logprob is <= 0.
"""

from __future__ import annotations

import math
from typing import Any

from emulator.core import ids, tokens

MAX_TOP = 20  # OpenAI's most `top_logprobs`
# Other tokens a position might have taken: common English pieces, and the answer's own tokens.
COMMON = (" the", " a", " and", " of", " to", " in", " is", " it", " that", ",", ".", " for", " with", "\n", " on")


def entries(text: str, root: str, top: int) -> list[dict[str, Any]]:
    """One entry per token of `text`: `token`, `logprob`, `bytes` (its UTF-8) and `top_logprobs` (`top` of them,
    0 to 20, the chosen token first), as Chat's `ChatCompletionTokenLogprob` and Responses' `Logprob` have them."""
    pieces = tokens.split(text)
    if not pieces:
        return []
    dice = ids.draws(root, "logprobs", count=len(pieces) * (1 + MAX_TOP))
    others = tuple(dict.fromkeys((*COMMON, *pieces)))  # distinct, in a stable order
    found = []
    for at, piece in enumerate(pieces):
        faces = dice[at * (1 + MAX_TOP) : (at + 1) * (1 + MAX_TOP)]
        found.append(_entry(piece, faces, others, top))
    return found


def _entry(piece: str, faces: memoryview, others: tuple[str, ...], top: int) -> dict[str, Any]:
    # The chosen token's probability: mostly confident (a die squared leans towards 1), at least a half, so that
    # it is the most likely whatever the rest get.
    chosen = 1.0 - 0.5 * (faces[0] / 65536) ** 2
    listed = [_pair(piece, chosen)]
    left, pool = 1.0 - chosen, [t for t in others if t != piece]
    for n in range(min(top, MAX_TOP) - 1):
        if not pool:
            break
        token = pool.pop(faces[n + 1] % len(pool))
        # Each alternative takes a half or more of what is left, so each is less likely than the one before.
        taken = left * (0.5 + 0.4 * faces[n + 1] / 65536)
        left -= taken
        listed.append(_pair(token, taken))
    entry = _pair(piece, chosen)
    entry["top_logprobs"] = listed[:top]
    return entry


def _pair(token: str, probability: float) -> dict[str, Any]:
    return {"token": token, "logprob": min(0.0, math.log(probability)), "bytes": list(token.encode())}


def brief(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as a Responses stream's `output_text.delta` carries it: token, logprob and its alternatives', no
    bytes (the SDK's `ResponseTextDeltaEvent.Logprob`)."""
    top = [{"token": t["token"], "logprob": t["logprob"]} for t in entry["top_logprobs"]]
    return {"token": entry["token"], "logprob": entry["logprob"], "top_logprobs": top}
