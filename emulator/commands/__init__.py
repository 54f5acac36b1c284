"""The subcommands of `emulator`, one module each (`cli.py` is the shell that dispatches to them), and what
they share (`options.py`)."""
