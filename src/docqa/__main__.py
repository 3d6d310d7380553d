"""``python -m docqa``: the docqa command."""

from docqa.cli import main

raise SystemExit(main())
