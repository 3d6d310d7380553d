"""``python -m docqa``: the docqa command."""

from docqa.cli import entry

raise SystemExit(entry())
