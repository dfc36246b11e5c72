"""``compare`` as a new user found it (issue 22): rows that name their file,
"did you mean" for an unknown method, and no solver as null (as in ``solve``)."""

from __future__ import annotations

import json

import pytest
from clirunner import CliRunner

from hpcsched.cli import app

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def two_files_of_one_name(tmp_path):
    """Two transfers instances of other data under the same ``name``."""
    paths = []
    for seed in (1, 2):
        path = tmp_path / f"same-name-s{seed}.json"
        assert invoke("generate", "transfers", "-o", path, "--n", "5", "--seed", seed).exit_code == 0
        document = json.loads(path.read_text())
        document["name"] = "same-name"
        path.write_text(json.dumps(document))
        paths.append(path)
    return paths


def test_compare_rows_of_files_with_one_instance_name_are_told_apart(two_files_of_one_name):
    first, second = two_files_of_one_name
    # a wide COLUMNS: rich would wrap the long tmp paths onto a second line (xdist workers set COLUMNS)
    table = runner.invoke(app, ["compare", str(first), str(second), "-m", "fifo", "-t", "5"], env={"COLUMNS": "400"})
    assert table.exit_code == 0, table.output
    rows = [line for line in table.stdout.splitlines() if "fifo" in line]
    assert len(rows) == 2 and str(first) in rows[0] and str(second) in rows[1]
    listed = invoke("compare", first, second, "-m", "fifo", "-t", "5", "--json")
    assert [row["file"] for row in json.loads(listed.stdout)] == [str(first), str(second)]


def test_compare_suggests_the_closest_method(two_files_of_one_name):
    result = invoke("compare", two_files_of_one_name[0], "-m", "fiffo")
    assert result.exit_code == 1 and "did you mean 'fifo'?" in result.stderr


def test_no_solver_is_null_in_compare_json_as_in_solve_json(two_files_of_one_name):
    path = two_files_of_one_name[0]
    solved = json.loads(invoke("solve", path, "-m", "fifo", "--json").stdout)
    [compared] = json.loads(invoke("compare", path, "-m", "fifo", "-t", "5", "--json").stdout)
    assert solved["solver"] is None and compared["solver"] is None


def test_compare_csv_keeps_the_results_file_columns(two_files_of_one_name, tmp_path):
    """study report reads compare's CSV and checks its header: no extra column."""
    from hpcsched.experiments.runs import COLUMNS

    csv = tmp_path / "rows.csv"
    assert invoke("compare", *two_files_of_one_name, "-m", "fifo", "-t", "5", "--csv", csv).exit_code == 0
    assert tuple(csv.read_text().splitlines()[0].split(",")) == COLUMNS
