"""The index an update replaces: its maps closed before it is removed, so its blocks are freed
then, not when the process exits, and nothing of it is left beside the index."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_streaming import make_corpus

from docqa.build import IndexSettings, build_index


def _mapped_deleted() -> list[str]:
    with open("/proc/self/maps") as maps:
        return [line.split(None, 5)[-1].strip() for line in maps if "(deleted)" in line]


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_an_update_closes_the_previous_index_maps_before_replacing_it(tmp_path: Path) -> None:
    docs = make_corpus(tmp_path / "docs", 12)
    build_index([docs], tmp_path / "ix", IndexSettings(dim=16), workers=1)
    (docs / "a" / "page-0001.md").write_text("# Changed\n\nNew words here.\n")
    before = set(_mapped_deleted())
    report = build_index([docs], tmp_path / "ix", IndexSettings(dim=16), workers=1)
    assert report.reused > 0
    # the replaced files were unlinked: none may still be mapped (their blocks would only be
    # freed when this process exits)
    assert not [m for m in set(_mapped_deleted()) - before if str(tmp_path) in m]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "ix"]
