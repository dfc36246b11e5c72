"""``hpcsched solved``: one writer and one schema for solved.json, on a
temporary folder with two small transfers instances."""

from __future__ import annotations

import json

import pytest
from clirunner import CliRunner

from hpcsched.cli import app
from hpcsched.core.errors import FormatError
from hpcsched.core.solved import SolvedEntry, read_solved

runner = CliRunner()

#: The exact dynamic program of transfers: on 5 tasks its proof is a few hundred simulator runs, not a race with the clock.
LIMIT = "30"
EXACT = ("-m", "dp")


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def folder(tmp_path):
    for seed in (1, 2):
        result = invoke("generate", "transfers", "-o", tmp_path / f"t{seed}.json", "--n", "5", "--seed", seed)
        assert result.exit_code == 0, result.output
    (tmp_path / "notes.json").write_text("[1, 2]")  # not an instance: left out
    return tmp_path


def test_help_does_not_solve(folder):
    result = invoke("solved", "--help")
    assert result.exit_code == 0 and "--check" in result.stdout
    assert not (folder / "solved.json").exists()


def test_solved_writes_one_entry_per_instance_and_check_agrees(folder):
    result = invoke("solved", "transfers", "--folder", folder, "-t", LIMIT, *EXACT)
    assert result.exit_code == 0, result.output
    entries = read_solved(folder / "solved.json")
    assert sorted(entries) == ["t1.json", "t2.json"]
    for entry in entries.values():
        assert entry.status == "OPTIMAL" and entry.objective == entry.bound
        assert entry.method is not None and entry.time_limit_s == float(LIMIT) and entry.instance_sha256
    checked = invoke("solved", "transfers", "--folder", folder, "--check")
    assert checked.exit_code == 0, checked.output
    assert "0 with contradictions" in checked.stdout


def test_only_keeps_the_other_entries(folder):
    assert invoke("solved", "transfers", "--folder", folder, "-t", LIMIT, *EXACT).exit_code == 0
    before = json.loads((folder / "solved.json").read_text())
    before["t2.json"]["date"] = "1999-01-01"  # a marker the --only run must keep
    (folder / "solved.json").write_text(json.dumps(before))
    assert invoke("solved", "transfers", "--folder", folder, "--only", "t1", "-t", LIMIT, *EXACT).exit_code == 0
    after = json.loads((folder / "solved.json").read_text())
    assert after["t2.json"]["date"] == "1999-01-01" and after["t1.json"]["date"] != "1999-01-01"


def test_only_takes_a_path_to_a_file_of_the_folder_but_not_of_another(folder, tmp_path):
    assert invoke("solved", "transfers", "--folder", folder, "-t", LIMIT, *EXACT).exit_code == 0
    checked = invoke("solved", "transfers", "--folder", folder, "--check", "--only", folder / "t1.json")
    assert checked.exit_code == 0 and "checked 1 entries" in checked.stdout, checked.output
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    (elsewhere / "t1.json").write_text((folder / "t1.json").read_text())
    refused = invoke("solved", "transfers", "--folder", folder, "--check", "--only", elsewhere / "t1.json")
    assert refused.exit_code == 1 and "no instance file of that name" in refused.output


def test_check_reports_a_contradiction_and_writes_nothing(folder):
    assert invoke("solved", "transfers", "--folder", folder, "-t", LIMIT, *EXACT).exit_code == 0
    table = folder / "solved.json"
    document = json.loads(table.read_text())
    document["t1.json"]["objective"] = document["t1.json"]["bound"] = document["t1.json"]["objective"] - 1
    table.write_text(json.dumps(document))
    written = table.read_text()
    result = invoke("solved", "transfers", "--folder", folder, "--check")
    assert result.exit_code == 1
    assert "t1.json" in result.stdout and "1 with contradictions" in result.stdout
    assert table.read_text() == written


def test_check_finds_an_entry_of_other_data(folder):
    assert invoke("solved", "transfers", "--folder", folder, "-t", LIMIT, *EXACT).exit_code == 0
    invoke("generate", "transfers", "-o", folder / "t1.json", "--n", "5", "--seed", "7")
    result = invoke("solved", "transfers", "--folder", folder, "--check", "--only", "t1.json")
    assert result.exit_code == 1 and "other data" in result.stdout


def test_unknown_method_and_missing_folder_are_one_line(folder, tmp_path):
    result = invoke("solved", "transfers", "--folder", folder, "-m", "nope")
    assert result.exit_code == 1 and "unknown method 'nope'" in result.stderr
    result = invoke("solved", "transfers", "--folder", tmp_path / "absent")
    assert result.exit_code == 1 and "no such folder" in result.stderr
    assert not (folder / "solved.json").exists()


def test_an_entry_in_another_layout_is_named(tmp_path):
    (tmp_path / "solved.json").write_text(json.dumps({"a.json": {"optimum": 3}}))
    with pytest.raises(FormatError, match="a.json: unknown field"):
        read_solved(tmp_path / "solved.json")


def test_entry_round_trip():
    entry = SolvedEntry(3.0, 3.0, "OPTIMAL", "dp", options={"workers": 1}, instance_sha256="ab")
    assert SolvedEntry.from_data(json.loads(json.dumps(entry.to_data())), "x") == entry
