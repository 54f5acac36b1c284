"""Ollama's native API (`/api/…`, where `OLLAMA_HOST` points), as the `ollama` clients on PyPI and npm call it
(reference providers-aws-azure-ollama.md §3): three dialects, `chat`, `generate` and `embed`, sharing `common`.
No key is asked for, and any model name answers as if it had been pulled."""
