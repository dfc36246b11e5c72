"""PipeDream import of DAG-shaped profiles: every materialized tensor counted once, aliases shared.

The synthetic graphs are written in the PipeDream ``graph.txt`` format here, with hand-computed
expectations; the real profiles of ../shared/data/pipedream are checked against an independent
regex count of the file (skipped when the folder is absent).
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hpcsched.core.errors import FormatError
from hpcsched.offload import import_pipedream

from .offload_helpers import shared_data


def node_line(node_id: str, operator: str, forward: float, backward: float, size: float | str) -> str:
    return (
        f"{node_id} -- {operator} -- forward_compute_time={forward:.3f}, backward_compute_time={backward:.3f}, "
        f"activation_size={size}, parameter_size=0.000"
    )


#: Input -> Conv -> ReLU(inplace) -> two branches (Conv, Conv) -> Concat -> BatchNorm -> Add(Concat, BN)
#: (non-in-place residual) -> ReLU(inplace=True) -> Size, View -> Linear.
DAG_NODES = [
    node_line("node1", "Input", 5.0, 0.0, 100.0),
    node_line("node2", "Conv2d(3, 8, kernel_size=(3, 3))", 1.0, 2.0, 800.0),
    node_line("node3", "ReLU(inplace)", 0.1, 0.1, 800.0),
    node_line("node4", "Conv2d(8, 4, kernel_size=(1, 1))", 1.0, 2.0, 400.0),
    node_line("node5", "Conv2d(8, 6, kernel_size=(3, 3))", 1.0, 2.0, 600.0),
    node_line("node6", "Concat(1)", 0.0, 0.0, 1000.0),
    node_line("node7", "BatchNorm2d(10)", 0.5, 0.5, 1000.0),
    node_line("node8", "Add", 0.0, 0.0, 1000.0),
    node_line("node9", "ReLU(inplace=True)", 0.1, 0.1, 1000.0),
    node_line("node10", "Size(0)", 0.0, 0.0, 4.0),
    node_line("node11", "View(-1)", 0.0, 0.0, 1000.0),
    node_line("node12", "Linear(in_features=250, out_features=10, bias=True)", 0.3, 0.6, 50.0),
]
DAG_EDGES = [
    "\tnode1 -- node2",
    "\tnode2 -- node3",
    "\tnode3 -- node4",
    "\tnode3 -- node5",
    "\tnode4 -- node6",
    "\tnode5 -- node6",
    "\tnode6 -- node7",
    "\tnode7 -- node8",
    "\tnode6 -- node8",
    "\tnode8 -- node9",
    "\tnode9 -- node10",
    "\tnode9 -- node11",
    "\tnode10 -- node11",
    "\tnode11 -- node12",
]
#: Materialized tensors, each once: the input, both convolutions of the stem and the branches, the
#: Concat, the BatchNorm, the Add and the Linear (the ReLUs write in place; Size and View hold nothing).
DAG_ACTIVATION = (100, 800, 400, 600, 1000, 1000, 1000, 50)
DAG_LAYERS = (
    "node2:Conv2d",
    "node4:Conv2d",
    "node5:Conv2d",
    "node6:Concat",
    "node7:BatchNorm2d",
    "node8:Add",
    "node12:Linear",
)


def write_graph(path, nodes, edges):
    path.write_text("\n".join(nodes + edges) + "\n")
    return path


def test_dag_counts_every_materialized_tensor_once(tmp_path):
    instance = import_pipedream(write_graph(tmp_path / "dag.graph.txt", DAG_NODES, DAG_EDGES), budget=1.0)
    assert instance.layers == DAG_LAYERS
    assert instance.activation == DAG_ACTIVATION
    assert sum(instance.activation) == 4950  # the old importer: 4750 (no Concat, no Add, two ReLU copies)
    # In-place ReLUs and the views are folded into the layer before them: their time stays.
    assert instance.forward == (1100, 1000, 1000, 0, 500, 100, 300)
    assert instance.backward == (2100, 2000, 2000, 0, 500, 100, 600)


def test_input_of_a_layer_after_a_merge_is_the_merge_output(tmp_path):
    instance = import_pipedream(write_graph(tmp_path / "dag.graph.txt", DAG_NODES, DAG_EDGES), budget=1.0)
    after_concat = instance.layers.index("node7:BatchNorm2d")
    assert instance.activation[after_concat] == 1000  # a_{k-1} of the BatchNorm is the Concat's output
    after_add = instance.layers.index("node12:Linear")
    assert instance.activation[after_add] == 1000  # the Linear reads the Add's storage (ReLU in place, View)


def test_source_reports_the_linearization(tmp_path):
    instance = import_pipedream(write_graph(tmp_path / "dag.graph.txt", DAG_NODES, DAG_EDGES), budget=1.0)
    linearization = instance.source["linearization"]
    assert linearization["branches"] == 2  # the stem's output (two convs) and the Concat (BN and Add)
    assert linearization["merges"] == 2  # the Concat and the Add
    assert linearization["skip_edges"] == instance.source["skip_edges"] == 3
    assert linearization["layers_not_reading_previous"] == 1  # the second branch reads the stem, not branch 1
    assert linearization["tensors_kept_across_cut"] == {
        "max_count": 1,
        "max_bytes": 1000,
        "at_cut": 5,
        "cuts_with_any": 3,
    }
    assert (linearization["inplace_folded"], linearization["views_folded"], linearization["scalars_folded"]) == (
        2,
        1,
        1,
    )
    assert linearization["zero_time_layers"] == 1 and linearization["exact"] is False
    notes = instance.source["notes"]
    assert all(isinstance(note, str) for note in notes)
    assert any("2 branch(es)" in note and "2 merge(s)" in note for note in notes)
    assert any("zero-time layer(s) kept" in note for note in notes)


@settings(max_examples=25)
@given(st.randoms(use_true_random=False))
def test_edge_and_node_line_order_does_not_change_the_instance(tmp_path_factory, shuffler):
    folder = tmp_path_factory.mktemp("shuffled")
    reference = import_pipedream(write_graph(folder / "a.graph.txt", DAG_NODES, DAG_EDGES), budget=0.5)
    nodes, edges = list(DAG_NODES), list(DAG_EDGES)
    shuffler.shuffle(nodes)
    shuffler.shuffle(edges)
    shuffled = import_pipedream(write_graph(folder / "a.graph.txt", nodes, edges + edges[:2]), budget=0.5)
    for field in ("layers", "forward", "backward", "activation", "memory"):
        assert getattr(shuffled, field) == getattr(reference, field)
    for key in ("linearization", "notes", "skip_edges"):
        assert shuffled.source[key] == reference.source[key]


def test_a_chain_with_in_place_ops_is_exact(tmp_path):
    nodes = [
        node_line("node1", "Input", 1.0, 0.0, 10.0),
        node_line("node2", "Conv2d(3, 3)", 1.0, 1.0, 30.0),
        node_line("node3", "ReLU(inplace)", 0.5, 0.5, 30.0),
        node_line("node4", "Dropout(p=0.5)", 0.0, 0.0, 30.0),
        node_line("node5", "Linear(3, 2)", 1.0, 1.0, 20.0),
    ]
    edges = ["\tnode1 -- node2", "\tnode2 -- node3", "\tnode3 -- node4", "\tnode4 -- node5"]
    instance = import_pipedream(write_graph(tmp_path / "c.graph.txt", nodes, edges), budget=1.0)
    assert instance.activation == (10, 30, 30, 20)  # the Dropout allocates; the ReLU does not
    assert instance.forward == (1500, 0, 1000)
    linearization = instance.source["linearization"]
    assert linearization["exact"] and linearization["branches"] == linearization["merges"] == 0
    assert any("exact" in note for note in instance.source["notes"])


def test_tuple_indexing_aliases_the_multi_output_node(tmp_path):
    # GNMT style: an LSTM outputs [output; h; c]; __getitem__ selects a part (no copy); a zero-time Add
    # of two selected outputs allocates its result.
    nodes = [
        node_line("node1", "Input0", 0.0, 0.0, 0.0),
        node_line("node2", "Embedding(10, 4)", 1.0, 1.0, 64.0),
        node_line("node3", "LSTM(4, 4)", 2.0, 3.0, "[64.0; 8.0; 8.0]"),
        node_line("node4", "__getitem__(0)", 0.0, 0.0, 64.0),
        node_line("node5", "__getitem__(1)", 0.0, 0.0, 8.0),
        node_line("node6", "Add", 0.0, 0.0, 64.0),
        node_line("node7", "Linear(4, 4)", 1.0, 1.0, 16.0),
    ]
    edges = [
        "\tnode1 -- node2",
        "\tnode2 -- node3",
        "\tnode3 -- node4",
        "\tnode3 -- node5",
        "\tnode4 -- node6",
        "\tnode2 -- node6",
        "\tnode6 -- node7",
        "\tnode5 -- node7",
    ]
    instance = import_pipedream(write_graph(tmp_path / "t.graph.txt", nodes, edges), budget=1.0)
    assert instance.layers == ("node2:Embedding", "node3:LSTM", "node6:Add", "node7:Linear")
    assert instance.activation == (0, 64, 80, 64, 16)
    assert instance.source["linearization"]["views_folded"] == 2


@pytest.mark.parametrize(
    "operator, kind",
    [
        ("ReLU(inplace)", "inplace"),
        ("ReLU(inplace=True)", "inplace"),
        ("Add(inplace)", "inplace"),
        ("Hardtanh(min_val=0.0, max_val=6.0, inplace=True)", "inplace"),
        ("ReLU(inplace=False)", "materialized"),
        ("ReLU()", "materialized"),
        ("Add", "materialized"),
        ("Concat(1)", "materialized"),
        ("Dropout(p=0.5)", "materialized"),
        ("View(9216)", "view"),
        ("Flatten()", "view"),
        ("__getitem__(0)", "view"),
        ("Size(0)", "scalar"),
        ("Input0", "input"),
    ],
)
def test_storage_kind(operator, kind):
    from hpcsched.traces.pipedream import LayerRecord, storage_kind

    record = LayerRecord("node9", operator, 0.0, 0.0, 8, (8,), 0)
    assert storage_kind(record, has_producers=True) == kind


def test_a_graph_without_a_materializing_node_or_with_a_cycle_is_a_format_error(tmp_path):
    only_views = [node_line("node1", "Input", 1.0, 0.0, 10.0), node_line("node2", "View(-1)", 0.0, 0.0, 10.0)]
    with pytest.raises(FormatError, match="no layer"):
        import_pipedream(write_graph(tmp_path / "v.graph.txt", only_views, ["\tnode1 -- node2"]))
    cycle = [node_line("node1", "Conv2d(1, 1)", 1.0, 1.0, 10.0), node_line("node2", "Conv2d(1, 1)", 1.0, 1.0, 10.0)]
    with pytest.raises(FormatError, match="cycle"):
        import_pipedream(write_graph(tmp_path / "y.graph.txt", cycle, ["\tnode1 -- node2", "\tnode2 -- node1"]))
    with pytest.raises(FormatError, match="self-loop"):
        import_pipedream(write_graph(tmp_path / "s.graph.txt", cycle[:1], ["\tnode1 -- node1"]))


# --- the real profiles ---------------------------------------------------------------------------------

_NODE = re.compile(
    r"^(node\d+) -- (.*?) -- forward_compute_time=([\d.]+), backward_compute_time=([\d.]+), "
    r"activation_size=(\[[^\]]*\]|[\d.]+)",
    re.M,
)


def _independent_tensor_bytes(text: str) -> tuple[int, list[int]]:
    """Input bytes and the sizes of the materializing nodes, by a regex count of the file."""
    has_producer = {m.group(2) for m in re.finditer(r"^\s+(node\d+) -- (node\d+)\s*$", text, re.M)}
    inputs, tensors = 0, []
    for node_id, operator, forward, backward, size in _NODE.findall(text):
        total = sum(int(float(part)) for part in size.strip("[]").split(";") if part.strip())
        source = node_id not in has_producer and float(forward) == float(backward) == 0
        if operator.startswith("Input") or source:
            inputs += total
        elif "inplace" not in operator.replace("inplace=False", "") and operator.split("(")[0] not in (
            "View",
            "Flatten",
            "__getitem__",
            "Size",
        ):
            tensors.append(total)
    return inputs, tensors


@pytest.fixture
def pipedream_files():
    folder = shared_data() / "pipedream"
    files = sorted(folder.glob("*.graph.txt"))
    if not files:
        pytest.skip(
            f"../shared/data/pipedream not found ({folder}; set HPCSCHED_SHARED_DATA): real-profile "
            "checks need the PipeDream graph files"
        )
    return files


@pytest.mark.data
def test_real_profiles_count_every_tensor_once(pipedream_files):
    for path in pipedream_files:
        instance = import_pipedream(path, budget=1.0)
        inputs, tensors = _independent_tensor_bytes(path.read_text())
        assert instance.activation[0] == inputs, path.name
        assert sorted(instance.activation[1:]) == sorted(tensors), path.name
        linearization = instance.source["linearization"]
        assert linearization["exact"] == (path.name in ("vgg16.graph.txt", "alexnet.graph.txt")), path.name
        assert linearization["layers"] == instance.n_layers == len(tensors)


@pytest.mark.data
def test_real_profile_with_shuffled_lines_gives_the_same_instance(pipedream_files, tmp_path):
    # GNMT: the old importer's skip-edge count took 7, 8 or 9 depending on the order of the lines.
    path = next(p for p in pipedream_files if p.name == "gnmt.graph.txt")
    reference = import_pipedream(path, budget=0.6)
    lines = path.read_text().splitlines()
    for seed in range(4):
        random.Random(seed).shuffle(lines)
        shuffled = import_pipedream(write_graph(tmp_path / path.name, lines, []), budget=0.6)
        assert shuffled.source["skip_edges"] == reference.source["skip_edges"]
        assert (shuffled.layers, shuffled.activation, shuffled.forward, shuffled.memory) == (
            reference.layers,
            reference.activation,
            reference.forward,
            reference.memory,
        )
        assert shuffled.source["linearization"] == reference.source["linearization"]
    # Three Concat and four Add nodes at zero time are layers of their own (their tensors are real).
    assert sum(name.endswith((":Concat", ":Add")) for name in reference.layers) == 7
