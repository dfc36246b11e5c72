"""Hypothesis strategies: small random DAGs and in-trees as treemem instances."""

from __future__ import annotations

from hypothesis import strategies as st

from hpcsched.treemem import Instance


@st.composite
def dags(draw, min_n: int = 1, max_n: int = 7, max_size: int = 9) -> Instance:
    """A DAG: edges only from lower to higher rank of a random permutation."""
    n = draw(st.integers(min_n, max_n))
    rank = draw(st.permutations(range(n)))
    edges = [(rank[i], rank[j]) for i in range(n) for j in range(i + 1, n) if draw(st.booleans())]
    execs = draw(st.lists(st.integers(0, max_size), min_size=n, max_size=n))
    outputs = draw(st.lists(st.integers(0, max_size), min_size=n, max_size=n))
    return Instance.create(execs, outputs, edges, name="hypothesis-dag")


@st.composite
def trees(draw, min_n: int = 1, max_n: int = 12, max_size: int = 9) -> Instance:
    """An in-tree rooted at node 0: node k hangs under some earlier node."""
    n = draw(st.integers(min_n, max_n))
    edges = [(k, draw(st.integers(0, k - 1))) for k in range(1, n)]
    execs = draw(st.lists(st.integers(0, max_size), min_size=n, max_size=n))
    outputs = draw(st.lists(st.integers(0, max_size), min_size=n, max_size=n))
    return Instance.create(execs, outputs, edges, name="hypothesis-tree")


def _out_of_core(draw, graph_instance: Instance, in_core: int) -> Instance:
    """The out-of-core question with M drawn between max MemReq (the least feasible) and the in-core peak − 1."""
    from hpcsched.treemem import as_out_of_core
    from hpcsched.treemem.simulate import Graph

    graph = Graph.of(graph_instance)
    memreq = max(graph.memreq(i) for i in range(graph.n))
    return as_out_of_core(graph_instance, memory=draw(st.integers(memreq, max(memreq, in_core - 1))))


@st.composite
def io_trees(draw, min_n: int = 3, max_n: int = 7) -> Instance:
    """Out-of-core in-trees that usually need I/O: leaves need much exec memory, so finished subtrees wait."""
    from hpcsched.treemem.special_cases import tree_optimum

    n = draw(st.integers(min_n, max_n))
    parents = [draw(st.integers(max(0, k - 2), k - 1)) for k in range(1, n)]
    leaves = set(range(n)) - set(parents)
    execs = [draw(st.integers(5, 20)) if i in leaves else draw(st.integers(0, 2)) for i in range(n)]
    outputs = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    tree = Instance.create(execs, outputs, list(zip(range(1, n), parents, strict=True)), name="hypothesis-io-tree")
    return _out_of_core(draw, tree, tree_optimum(tree))


@st.composite
def io_dags(draw, min_n: int = 3, max_n: int = 6) -> Instance:
    """Out-of-core DAGs that often need I/O (sources need much exec memory)."""
    from hpcsched.treemem.heuristics import greedy_order
    from hpcsched.treemem.simulate import Graph, peak

    n = draw(st.integers(min_n, max_n))
    edges = [(i, j) for i in range(n) for j in range(i + 1, n) if draw(st.integers(0, 2)) == 0]
    sources = set(range(n)) - {j for _, j in edges}
    execs = [draw(st.integers(5, 20)) if i in sources else draw(st.integers(0, 2)) for i in range(n)]
    outputs = draw(st.lists(st.integers(1, 9), min_size=n, max_size=n))
    dag = Instance.create(execs, outputs, edges, name="hypothesis-io-dag")
    graph = Graph.of(dag)
    return _out_of_core(draw, dag, peak(graph, greedy_order(graph)))
