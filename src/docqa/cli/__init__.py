"""The ``docqa`` command line: the parser and entry point (``main``), one module per concern.

``main.py`` parses arguments and maps errors to exit codes; ``commands.py`` runs each
subcommand; ``render.py`` turns results into terminal text and JSON. Only ``main`` is imported
here, so ``docqa --help`` loads nothing heavy.
"""

from docqa.cli.main import build_parser, entry, main

__all__ = ["build_parser", "entry", "main"]
