"""Elimination tree and column counts against a dense symbolic factorization; assembly-tree weights."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.sparse as sp

from hpcsched.core.errors import InvalidInstanceError, SolverUnavailableError
from hpcsched.treemem import generate_assembly
from hpcsched.treemem.sparse import (
    ORDERINGS,
    assembly_tree,
    column_structures,
    elimination_tree,
    grid_laplacian,
    ordering,
)


def dense_symbolic(pattern: np.ndarray) -> np.ndarray:
    """The elimination game on a dense boolean pattern: the pattern of L (lower triangle, diagonal)."""
    filled = pattern.astype(bool).copy()
    n = len(filled)
    for k in range(n):
        below = [i for i in range(k + 1, n) if filled[i, k]]
        for i in below:
            for j in below:
                filled[i, j] = True
    return np.tril(filled)


def dense_etree(lower: np.ndarray) -> list[int]:
    """parent(j) = the first row below the diagonal in column j of L."""
    n = len(lower)
    return [next((i for i in range(j + 1, n) if lower[i, j]), -1) for j in range(n)]


@pytest.mark.parametrize("shape", [(4, 5), (3, 3, 3), (7,), (6, 6)])
@pytest.mark.parametrize("name", ORDERINGS)
def test_etree_and_counts_match_the_dense_symbolic_factorization(shape, name):
    if name == "metis-nested-dissection":
        pytest.importorskip("pymetis", reason="the metis ordering needs the optional extra hpcsched[metis]")
    matrix = grid_laplacian(shape)
    permutation = ordering(matrix, shape, name)
    assert sorted(permutation) == list(range(matrix.shape[0]))
    permuted = sp.csr_matrix(matrix)[permutation][:, permutation]
    lower = dense_symbolic(permuted.toarray() != 0)
    parent = elimination_tree(permuted)
    assert list(parent) == dense_etree(lower)
    structures = column_structures(permuted, parent)
    for j, rows in enumerate(structures):
        assert rows == set(np.flatnonzero(lower[:, j]).tolist())


def test_random_spd_pattern():
    rng = np.random.default_rng(0)
    a = sp.random(30, 30, density=0.08, random_state=1) != 0
    a = (a + a.T + sp.eye(30)).astype(float)
    permutation = rng.permutation(30)
    permuted = sp.csr_matrix(a)[permutation][:, permutation]
    lower = dense_symbolic(permuted.toarray() != 0)
    parent = elimination_tree(permuted)
    assert list(parent) == dense_etree(lower)


def test_assembly_weights_are_fronts_and_contribution_blocks():
    tree = assembly_tree((6, 6), ordering="nested-dissection")
    roots = {k for k in range(len(tree.exec_sizes))} - {u for u, _ in tree.edges}
    assert len(roots) == 1  # a connected grid gives one tree
    for exec_size, output, columns in zip(tree.exec_sizes, tree.outputs, tree.columns, strict=True):
        below = round(output**0.5)
        assert below * below == output
        assert exec_size + output == (columns + below) ** 2  # the frontal matrix
    assert sum(tree.columns) == 36


def test_amalgamation_gives_fewer_supernodes():
    plain = assembly_tree((10, 10), ordering="minimum-degree")
    relaxed = assembly_tree((10, 10), ordering="minimum-degree", amalgamation=50)
    assert len(relaxed.exec_sizes) <= len(plain.exec_sizes)
    assert sum(relaxed.columns) == sum(plain.columns) == 100


def test_generated_assembly_instance_is_an_in_tree():
    instance = generate_assembly(shape=(5, 4, 3), ordering="nested-dissection")
    assert instance.is_tree and instance.source["generator"] == "assembly"


def test_bad_ordering_is_named():
    with pytest.raises(InvalidInstanceError) as caught:
        generate_assembly(shape=(3, 3), ordering="metis")
    assert caught.value.field == "parameters.ordering"


def test_metis_ordering_builds_an_assembly_tree_covering_every_column():
    pytest.importorskip("pymetis", reason="the metis ordering needs the optional extra hpcsched[metis]")
    tree = assembly_tree((9, 8), ordering="metis-nested-dissection", seed=2)
    assert sum(tree.columns) == 72
    roots = set(range(len(tree.exec_sizes))) - {u for u, _ in tree.edges}
    assert len(roots) == 1  # a connected grid gives one tree


def test_metis_ordering_without_pymetis_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pymetis", None)  # makes `import pymetis` raise ImportError
    with pytest.raises(SolverUnavailableError, match=r"hpcsched\[metis\]"):
        ordering(grid_laplacian((4, 4)), (4, 4), "metis-nested-dissection")
