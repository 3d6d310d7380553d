"""How a ``docqa`` command ends: its exit code, and on an error the one line that says what
went wrong and what to do (on stderr, never a traceback).

Exit codes: 0 success, 1 the answer was refused or nothing was found, 2 bad usage or bad input
(a damaged index, an inconsistent store), 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import sys

EXIT_OK, EXIT_EMPTY, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def os_error_text(exc: OSError) -> str:
    """What the file system refused, and where, with what to do."""
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{exc.strerror or exc}{where}; check the path and its permissions"


def error_line(message: str) -> None:
    """Print ``message`` as the one ``docqa: error:`` line (controls escaped, no newlines)."""
    from docqa.controls import escape_controls

    print(f"docqa: error: {escape_controls(message, keep='')}", file=sys.stderr)
