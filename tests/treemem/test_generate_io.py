"""Generators are seeded, importers read their formats, instance files round-trip, the CLI runs."""

from __future__ import annotations

import pytest

import hpcsched
from hpcsched.core.errors import FormatError, InvalidInstanceError
from hpcsched.core.io import read_instance, write_instance
from hpcsched.core.result import Status
from hpcsched.treemem import (
    generate_assembly,
    generate_harpoon,
    generate_random_dag,
    generate_random_tree,
    import_dnn,
    import_dot,
    import_memdag,
)


@pytest.mark.parametrize(
    "make",
    [
        lambda seed: generate_random_tree(seed=seed, n=30, max_children=3),
        lambda seed: generate_random_dag(seed=seed, n=15),
        lambda seed: generate_assembly(seed=seed, shape=(6, 5), ordering="minimum-degree"),
    ],
)
def test_generators_are_seeded(make):
    assert make(4).to_data() == make(4).to_data()


def test_random_tree_respects_the_fan_in_cap():
    instance = generate_random_tree(seed=1, n=200, max_children=2)
    assert instance.is_tree and max(len(p) for p in instance.predecessors) <= 2


def test_file_round_trip(tmp_path):
    instance = generate_harpoon(k=3, big=30)
    write_instance(instance, tmp_path / "h.json")
    again = read_instance(tmp_path / "h.json")
    assert again.to_data() == instance.to_data() and again.source["generator"] == "harpoon"


def test_memdag_reader(tmp_path):
    path = tmp_path / "tree.txt"
    path.write_text("# id parent n f w\n1 0 0 1 1\n2 1 5 2 3\n3 1 0 4 1\n4 2 7 1 2\n")
    instance = import_memdag(path)
    assert instance.n == 4 and instance.is_tree
    assert instance.nodes[1].exec == 5 and instance.nodes[1].output == 2 and instance.nodes[1].time == 3
    result = hpcsched.solve(instance, "liu-optimal", problem="treemem")
    assert result.status is Status.OPTIMAL
    assert result.objective == hpcsched.solve(instance, "brute-force", problem="treemem").objective


def test_memdag_reader_errors_name_the_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("1 0 0 1 1\n2 1 x 2 3\n")
    with pytest.raises(FormatError, match=r"bad.txt:2"):
        import_memdag(path)
    path.write_text("1 0 0 1 1\n2 9 0 2 3\n")
    with pytest.raises(FormatError, match="unknown parent 9"):
        import_memdag(path)


def test_dnn_graph_as_a_dag(shared_data):
    path = shared_data / "dnn_partitioning" / "latency-inputs" / "LayerGraphs" / "resnet50_inference.json"
    instance = import_dnn(path)
    assert instance.n > 10 and instance.source["sha256"]
    result = hpcsched.solve(instance, "greedy", problem="treemem", time_limit=30)
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)


def test_cli_generate_and_solve(tmp_path):
    from typer import testing

    from hpcsched import cli

    runner, target = testing.CliRunner(), tmp_path / "t.json"
    made = runner.invoke(
        cli.app, ["generate", "treemem", "-o", str(target), "-f", "harpoon", "-p", "k=2", "-p", "big=10"]
    )
    assert made.exit_code == 0, made.output
    done = runner.invoke(
        cli.app, ["solve", str(target), "-m", "liu-optimal", "--json", "--plot", str(tmp_path / "p.png")]
    )
    assert done.exit_code == 0, done.output
    assert '"objective": 12' in done.output and (tmp_path / "p.png").stat().st_size > 0


def test_dot_reader(tmp_path):
    path = tmp_path / "wf.dot"
    path.write_text(
        'digraph wf {\n  "a" [size=5, time=3];\n  b [exec=2];\n  c [size=1];\n  a -> c;\n  b -> c [size=7];\n}\n'
    )
    instance = import_dot(path)
    names = [node.name for node in instance.nodes]
    assert names == ["a", "b", "c"]
    assert [node.output for node in instance.nodes] == [5, 7, 1]  # b's output from its out-edge
    assert instance.nodes[0].time == 3 and instance.nodes[1].exec == 2 and instance.nodes[2].time == 1
    assert instance.edges == ((0, 2), (1, 2)) and "out-edges" in instance.source["notes"][0]


def test_dot_reader_errors(tmp_path):
    path = tmp_path / "bad.dot"
    path.write_text("digraph g {\n a [size=x];\n}\n")
    with pytest.raises(FormatError, match="not a number"):
        import_dot(path)
    path.write_text("digraph g {\n a -> b -> c;\n}\n")
    with pytest.raises(FormatError, match="bad.dot:2"):
        import_dot(path)
    path.write_text("digraph g {\n a -> b;\n b -> a;\n}\n")
    with pytest.raises(InvalidInstanceError, match="cycle"):
        import_dot(path)


def test_plots_of_both_questions(tmp_path):
    from hpcsched.treemem import generate_parallel_tree, save_plot

    for instance, method in (
        (generate_harpoon(k=2, big=10), "liu-optimal"),
        (generate_parallel_tree(seed=1, n=6), "par-inner-first-capped"),
    ):
        result = hpcsched.solve(instance, method, problem="treemem")
        save_plot(instance, result.solution, tmp_path / f"{method}.png")
        assert (tmp_path / f"{method}.png").stat().st_size > 0
