"""The default model: what the emulator says when no scenario or recording answers."""
