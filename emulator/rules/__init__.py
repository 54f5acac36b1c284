"""Rules: what each profile promises and refuses (`profiles`, the public APIs' model `catalog` as data,
`validation` in the real APIs' words), the fault vocabulary and its plan (`faults`), rate limits (`limits`). Pure.

Layer: beside the server, above the core, all it imports. A new fault kind goes in `faults`.
"""
