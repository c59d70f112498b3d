"""A big mirror index says how far its reading got, then that it is indexing: the bar never sits at "--%" for the
seconds a 120,000-record index takes (issue 43)."""

from __future__ import annotations

import json
from pathlib import Path

from cachetui.core.load import load_corpus
from cachetui.core.load.progress import INDEXING, OPENING
from cachetui.core.load.sources.spack_db.typed import PROGRESS_STEPS
from cachetui.present.format import loading_text
from tests.mirrors import v3_mirror


def _index(records: int) -> bytes:
    installs = {f"{k:032d}".translate(str.maketrans("0123456789", "abcdefghij")): {
        "spec": {"name": f"pkg{k % 50}", "version": "1.0", "arch": {"platform": "linux", "platform_os": "rhel8",
                                                                    "target": "x86_64"}, "parameters": {}},
        "ref_count": 0, "in_buildcache": True} for k in range(records)}
    return json.dumps({"database": {"version": "8", "installs": installs}}).encode()


def test_reading_an_index_counts_its_records_then_says_it_is_indexing(tmp_path: Path) -> None:
    records = 1000
    v3_mirror(tmp_path, _index(records))
    heard: list[tuple[int, int | None, str]] = []
    load_corpus([str(tmp_path)], progress=lambda done, total, what: heard.append((done, total, what)))
    assert heard[0] == (0, None, OPENING)  # the first word comes before any index is looked for
    reading = [(done, total) for done, total, what in heard if what.startswith("reading") and total is not None]
    assert reading and all(total == records for _, total in reading)
    counts = [done for done, _ in reading]
    assert counts == sorted(counts) and 0 < counts[0] and counts[-1] < records  # moving, never "done" while reading
    assert len(reading) <= PROGRESS_STEPS  # a hundred reports, not one per record
    last = max(k for k, (_, total, what) in enumerate(heard) if what.startswith("reading") and total == records)
    assert heard[last + 1] == (0, None, INDEXING)  # every record read: then the phrase says what follows


def test_the_loading_line_counts_records_once_it_knows_how_many() -> None:
    assert loading_text(36000, 120000, "reading the develop index") == \
        "Reading the develop index: 36,000 of 120,000 records…"
    assert loading_text(0, None, "reading the develop index") == "Reading the develop index…"
    assert loading_text(0, None, INDEXING) == "Indexing the specs…"
