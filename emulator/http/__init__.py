"""The HTTP shell: the Starlette app and its routes (`app`, `admin`, `models`), the answering endpoint as a raw
ASGI app (`serving`) and what plays its answer down to the socket (`player`), the inspector page, metrics' scrape,
`--watch`, the recording proxy (`recorder`, httpx's home) and a server in a thread (`background`).

Layer: above the answering stages; it may import every layer below. Only the entry points import it.
"""
