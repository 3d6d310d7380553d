"""The web page at ``/``: ``static/index.html`` with the collection's name filled in, and the
API key field only on a service that has keys."""

from __future__ import annotations

from html import escape
from importlib.resources import files
from pathlib import Path


def collection_name(root: Path) -> str:
    """What the page calls the index at ``root``: its folder's name, or for the default
    ``.docqa/index`` the name of the folder that holds ``.docqa``."""
    root = root.absolute()
    if root.name == "index" and root.parent.name == ".docqa":
        return root.parent.parent.name or "docqa"
    return root.name or "docqa"


def render_page(name: str, *, keys: bool) -> str:
    """The page for the collection ``name`` (HTML-escaped); ``keys``: show the key field."""
    template = files("docqa.service").joinpath("static/index.html").read_text(encoding="utf-8")
    return template.replace("{{name}}", escape(name)).replace(
        "{{key_field}}", "" if keys else " hidden"
    )
