"""Assembly trees of the multifrontal method for grid Laplacians.

Pipeline: the 5-point (2D) or 7-point (3D) Laplacian pattern (scipy.sparse)
→ a fill-reducing ordering → the elimination tree (Liu's algorithm with path
compression) → column counts of the Cholesky factor (symbolic factorization
along the tree) → fundamental supernodes, optionally amalgamated → the
multifrontal weights.

Orderings: ``"nested-dissection"`` (geometric: split the box across its
longest side by a middle plane, which is numbered last; recurse, boxes of at
most 8 points are numbered as they are), ``"minimum-degree"`` (exact
minimum degree on the elimination graph, ties by index; a plain version of
what AMD approximates), ``"rcm"`` (scipy's reverse Cuthill-McKee) and
``"natural"`` and ``"metis-nested-dissection"`` (METIS's multilevel nested
dissection, ``METIS_NodeND`` through pymetis, the optional extra ``metis``;
without it this ordering raises `SolverUnavailableError`). No AMD: scipy
does not offer it and no maintained PyPI wrapper was adopted; the exact
minimum degree stands in for it on these small grids.

Weights of a supernode with η columns whose last column has count μ (the
diagonal included; μ − 1 rows of the front lie below the supernode):
``exec n = η² + 2η(μ−1)``, ``output f = (μ−1)²`` (the contribution block) and
``time w = ⌈(2/3)η³ + η²(μ−1) + η(μ−1)²⌉``. Then ``n + f = (η + μ − 1)²``, the
frontal matrix: with the package's memory model (a step holds its inputs, n
and f) the step of a supernode holds its children's contribution blocks and
its front, as in the multifrontal method. (The spec says μ is "its first
column's count"; its formulas hold with μ − 1 = the rows below the
supernode, which is the count of its last column minus one: that is what is
used.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

from ..core.errors import InvalidInstanceError, SolverUnavailableError

ORDERINGS = ("nested-dissection", "minimum-degree", "rcm", "natural", "metis-nested-dissection")


def grid_laplacian(shape: tuple[int, ...]) -> sp.csr_matrix:
    """The 2D 5-point or 3D 7-point Laplacian of a grid (an SPD matrix), CSR."""
    if len(shape) not in (1, 2, 3) or any(s < 1 for s in shape):
        raise InvalidInstanceError("parameters.shape", f"must be 1 to 3 positive sizes, got {list(shape)}")
    matrix = None
    for axis, size in enumerate(shape):
        path = sp.diags([-np.ones(size - 1), 2 * np.ones(size), -np.ones(size - 1)], [-1, 0, 1])
        term = sp.eye(1)
        for other, other_size in enumerate(shape):
            term = sp.kron(term, path if other == axis else sp.eye(other_size))
        matrix = term if matrix is None else matrix + term
    return sp.csr_matrix(matrix)


def nested_dissection(shape: tuple[int, ...]) -> np.ndarray:
    """Geometric nested dissection of a grid: the elimination order (a permutation of the points)."""
    order: list[int] = []
    strides = [int(np.prod(shape[k + 1 :])) for k in range(len(shape))]

    def number(box: list[tuple[int, int]]) -> None:
        sizes = [hi - lo for lo, hi in box]
        if math.prod(sizes) <= 8 or max(sizes) < 3:
            ranges = [range(lo, hi) for lo, hi in box]
            for point in np.ndindex(*sizes):
                order.append(sum((ranges[k][point[k]]) * strides[k] for k in range(len(box))))
            return
        axis = int(np.argmax(sizes))
        lo, hi = box[axis]
        middle = (lo + hi) // 2
        number([*box[:axis], (lo, middle), *box[axis + 1 :]])
        number([*box[:axis], (middle + 1, hi), *box[axis + 1 :]])
        number([*box[:axis], (middle, middle + 1), *box[axis + 1 :]])  # the separator last

    number([(0, s) for s in shape])
    return np.array(order)


def minimum_degree(matrix: sp.spmatrix) -> np.ndarray:
    """Exact minimum degree on the elimination graph (ties: smallest index)."""
    n = matrix.shape[0]
    coo = sp.coo_matrix(matrix)
    adjacency: list[set[int]] = [set() for _ in range(n)]
    for i, j in zip(coo.row, coo.col, strict=False):
        if i != j:
            adjacency[i].add(int(j))
    alive = set(range(n))
    order = []
    while alive:
        v = min(alive, key=lambda u: (len(adjacency[u]), u))
        neighbours = adjacency[v]
        for u in neighbours:
            adjacency[u].discard(v)
            adjacency[u] |= neighbours - {u}
        alive.discard(v)
        adjacency[v] = set()
        order.append(v)
    return np.array(order)


def metis_nested_dissection(matrix: sp.spmatrix, seed: int = 0) -> np.ndarray:
    """METIS's nested-dissection ordering (``METIS_NodeND`` via pymetis) of a symmetric pattern.

    Parameters
    ----------
    matrix : scipy.sparse matrix
        Symmetric sparsity pattern (the diagonal is ignored).
    seed : int
        METIS's random seed (its coarsening matches vertices in random order).

    Returns
    -------
    numpy.ndarray
        ``perm`` with new index i = old index ``perm[i]`` (METIS's ``perm``; its
        second vector is the inverse), the convention of `ordering`.

    Raises
    ------
    SolverUnavailableError
        When pymetis is not installed (``pip install 'hpcsched[metis]'``).
    """
    try:
        import pymetis
    except ImportError as error:
        raise SolverUnavailableError("pymetis", "pip install 'hpcsched[metis]' (or pip install pymetis)") from error
    csr = sp.csr_matrix(matrix)
    adjacency = [
        [int(j) for j in csr.indices[csr.indptr[i] : csr.indptr[i + 1]] if j != i] for i in range(csr.shape[0])
    ]
    options = pymetis.Options()
    options.seed = seed
    permutation, _inverse = pymetis.nested_dissection(adjacency=adjacency, options=options)
    return np.asarray(permutation, dtype=np.int64)


def ordering(matrix: sp.spmatrix, shape: tuple[int, ...], name: str, seed: int = 0) -> np.ndarray:
    """The permutation ``name`` (one of `ORDERINGS`) of the grid matrix."""
    if name == "nested-dissection":
        return nested_dissection(shape)
    if name == "minimum-degree":
        return minimum_degree(matrix)
    if name == "rcm":
        return np.asarray(reverse_cuthill_mckee(sp.csr_matrix(matrix), symmetric_mode=True))
    if name == "natural":
        return np.arange(matrix.shape[0])
    if name == "metis-nested-dissection":
        return metis_nested_dissection(matrix, seed)
    raise InvalidInstanceError("parameters.ordering", f"must be one of {', '.join(ORDERINGS)}, got {name!r}")


def elimination_tree(matrix: sp.spmatrix) -> np.ndarray:
    """Parent of each column in the elimination tree of a symmetric pattern (-1 for roots).

    Liu's algorithm with path compression (virtual ancestors): for each
    column j and each row i < j of A, climb from i to its current root and
    hang that root under j.
    """
    csc = sp.csc_matrix(matrix)
    n = csc.shape[0]
    parent = np.full(n, -1, dtype=np.int64)
    ancestor = np.full(n, -1, dtype=np.int64)
    for j in range(n):
        for i in csc.indices[csc.indptr[j] : csc.indptr[j + 1]]:
            r = int(i)
            while r < j:
                following = ancestor[r]
                ancestor[r] = j
                if following == -1:
                    parent[r] = j
                    break
                r = int(following)
    return parent


def column_structures(matrix: sp.spmatrix, parent: np.ndarray) -> list[set[int]]:
    """Row structure of each column of the Cholesky factor L (diagonal included).

    struct(L_j) = {j} ∪ {i > j : a_ij ≠ 0} ∪ ⋃_{children c} struct(L_c) \\ {c}
    (the classical symbolic factorization along the elimination tree).
    """
    csc = sp.csc_matrix(matrix)
    n = csc.shape[0]
    children: list[list[int]] = [[] for _ in range(n)]
    for c in range(n):
        if parent[c] >= 0:
            children[int(parent[c])].append(c)
    structures: list[set[int]] = [set() for _ in range(n)]
    for j in range(n):  # children have smaller indices than their parent
        rows = {int(i) for i in csc.indices[csc.indptr[j] : csc.indptr[j + 1]] if i >= j}
        rows.add(j)
        for c in children[j]:
            rows |= structures[c] - {c}
        structures[j] = rows
    return structures


@dataclass(frozen=True)
class AssemblyTree:
    """An assembly tree: per supernode, its weights; edges child -> parent."""

    exec_sizes: tuple[int, ...]
    outputs: tuple[int, ...]
    times: tuple[int, ...]
    edges: tuple[tuple[int, int], ...]
    columns: tuple[int, ...]


@dataclass
class _Supernodes:
    """Supernodes keyed by their first column: η (columns), μ − 1 (rows below the block) and parent."""

    eta: dict[int, int]
    below: dict[int, int]
    parent: dict[int, int]


def _fundamental_supernodes(parent: np.ndarray, counts: Sequence[int]) -> _Supernodes:
    """Column j joins the supernode of j - 1 when j - 1 is j's only child and count(j-1) = count(j) + 1."""
    n = len(parent)
    child_count = np.bincount(parent[parent >= 0], minlength=n)
    head = list(range(n))  # columns of a supernode, first column = head
    members: dict[int, list[int]] = {}
    for j in range(n):
        previous = j - 1
        if previous >= 0 and parent[previous] == j and child_count[j] == 1 and counts[previous] == counts[j] + 1:
            head[j] = head[previous]
        members.setdefault(head[j], []).append(j)
    heads = sorted(members)
    super_parent = {}
    for s in heads:
        last = members[s][-1]
        super_parent[s] = head[int(parent[last])] if parent[last] >= 0 else -1
    return _Supernodes(
        eta={s: len(members[s]) for s in heads},
        below={s: counts[members[s][-1]] - 1 for s in heads},  # μ − 1
        parent=super_parent,
    )


def _amalgamate(supernodes: _Supernodes, amalgamation: int) -> None:
    """Merge an only child into its parent while that adds at most ``amalgamation`` explicit zeros (in place)."""
    eta, below, super_parent = supernodes.eta, supernodes.below, supernodes.parent
    kids: dict[int, list[int]] = {s: [] for s in eta}
    for s, p in super_parent.items():
        if p >= 0:
            kids[p].append(s)
    for s in sorted(eta, reverse=True):  # parents before children: merge chains top-down
        if s not in eta:
            continue
        while len(kids[s]) == 1:
            child = kids[s][0]
            # the child's columns gain the rows of the parent's front they lack: explicit zeros
            zeros = eta[child] * (eta[s] + below[s] - below[child])
            if zeros > amalgamation:
                break
            eta[s] += eta[child]
            kids[s] = kids.pop(child)
            for grandchild in kids[s]:
                super_parent[grandchild] = s
            del eta[child], below[child], super_parent[child]


def _tree_of_supernodes(supernodes: _Supernodes) -> AssemblyTree:
    """Front sizes and flops of each supernode (η columns, μ − 1 rows below): exec, output, time."""
    eta, below, super_parent = supernodes.eta, supernodes.below, supernodes.parent
    alive = sorted(eta)
    index = {s: k for k, s in enumerate(alive)}
    execs, outputs, times = [], [], []
    for s in alive:
        e, m = eta[s], below[s]
        execs.append(e * e + 2 * e * m)
        outputs.append(m * m)
        times.append(math.ceil(2 * e**3 / 3 + e * e * m + e * m * m))
    edges = tuple((index[s], index[super_parent[s]]) for s in alive if super_parent[s] >= 0)
    return AssemblyTree(tuple(execs), tuple(outputs), tuple(times), edges, tuple(eta[s] for s in alive))


def assembly_tree(
    shape: tuple[int, ...], *, ordering: str = "nested-dissection", seed: int = 0, amalgamation: int = 0
) -> AssemblyTree:
    """The assembly tree of the grid Laplacian of ``shape`` under ``ordering``.

    Fundamental supernodes: column j joins its parent j + 1 when it is j+1's
    only child and ``count(j) = count(j+1) + 1``. ``amalgamation`` > 0 also
    merges an only child into its parent when that adds at most that many
    explicit zeros to the parent's front (relaxed amalgamation).
    """
    matrix = grid_laplacian(shape)
    permutation = globals()["ordering"](matrix, shape, ordering, seed)
    permuted = sp.csr_matrix(matrix)[permutation][:, permutation]
    parent = elimination_tree(permuted)
    counts = [len(s) for s in column_structures(permuted, parent)]
    supernodes = _fundamental_supernodes(parent, counts)
    if amalgamation > 0:
        _amalgamate(supernodes, amalgamation)
    return _tree_of_supernodes(supernodes)
