"""The CSV store: rows survive a kill at any byte, and come back as written."""

from __future__ import annotations

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.experiments import COLUMNS, open_store, read_rows
from hpcsched.experiments.store import CsvStore

text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
number = st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False, width=64))
rows = st.fixed_dictionaries(
    {
        "instance": text,
        "instance_sha256": st.text(alphabet=string.hexdigits, min_size=1, max_size=8),
        "problem": text,
        "size": st.one_of(st.none(), st.integers(0, 10**6)),
        "method": text,
        "options": st.sampled_from(["{}", '{"a":1}', '{"b":"x,y"}']),
        "seed": st.integers(-5, 10**6),
        "time_limit": st.one_of(st.none(), st.floats(0.001, 1e5)),
        "status": st.sampled_from(["OPTIMAL", "FEASIBLE", "ERROR"]),
        "objective": number,
        "bound": number,
        "gap": number,
        "runtime_s": st.floats(0, 1e4),
        "solver": text,
        "host": text,
        "error": text,
        "notes": text,
    }
)


@settings(max_examples=40, deadline=None)
@given(written=st.lists(rows, max_size=6), cut_fraction=st.floats(0, 1))
def test_a_kill_at_any_byte_leaves_exactly_the_complete_rows(tmp_path_factory, written, cut_fraction):
    path = tmp_path_factory.mktemp("store") / "results.csv"
    store = open_store(path)
    for row in written:
        store.append(row)
    assert read_rows(path) == [dict(row) for row in written]  # round trip, numbers included
    content = path.read_bytes()
    cut = int(cut_fraction * len(content))
    path.write_bytes(content[:cut])  # the file as a kill during some write leaves it
    reopened = open_store(path)
    survivors = reopened.rows()
    header_length = content.index(b"\n") + 1
    complete = content[:cut].count(b"\n") - 1 if cut >= header_length else 0
    assert survivors == [dict(row) for row in written[:complete]]
    reopened.append(written[0] if written else {c: "" for c in COLUMNS} | {"seed": 0})
    assert path.read_bytes().endswith(b"\n") and len(read_rows(path)) == len(survivors) + 1


def test_line_breaks_in_text_never_split_a_row(tmp_path):
    store = CsvStore(tmp_path / "r.csv").open()
    row = {column: "" for column in COLUMNS} | {"seed": 1, "error": "line one\nline two\r\nthree", "instance": 'a,"b"'}
    store.append(row)
    assert (tmp_path / "r.csv").read_bytes().count(b"\n") == 2
    (back,) = read_rows(tmp_path / "r.csv")
    assert back["error"] == "line one line two three" and back["instance"] == 'a,"b"'
