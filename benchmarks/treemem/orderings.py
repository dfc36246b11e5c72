"""Fill of the assembly-tree orderings on grid Laplacians: nnz of the Cholesky factor L and the fronts.

Usage: ``.venv/bin/python benchmarks/treemem/orderings.py`` (a few seconds; the METIS
column needs the optional extra ``hpcsched[metis]``). nnz(L) counts the diagonal; the
fronts are the supernodes of ``assembly_tree`` (no amalgamation) and the largest
front is ``exec + output`` of the biggest supernode.
"""

from __future__ import annotations

import scipy.sparse as sp

from hpcsched.treemem import sparse

SHAPES = [(16, 16), (32, 32), (8, 8, 8)]


def factor_nnz(shape: tuple[int, ...], name: str) -> int:
    """nnz of L (diagonal included) under ordering ``name``, METIS seed 0."""
    matrix = sparse.grid_laplacian(shape)
    permutation = sparse.ordering(matrix, shape, name, 0)
    permuted = sp.csr_matrix(matrix)[permutation][:, permutation]
    parent = sparse.elimination_tree(permuted)
    return sum(len(rows) for rows in sparse.column_structures(permuted, parent))


def main() -> None:
    print("| grid | ordering | nnz(L) | fronts | largest front |")
    print("|---|---|---|---|---|")
    for shape in SHAPES:
        for name in sparse.ORDERINGS:
            tree = sparse.assembly_tree(shape, ordering=name)
            largest = max(e + o for e, o in zip(tree.exec_sizes, tree.outputs, strict=True))
            grid = "×".join(map(str, shape))
            print(f"| {grid} | {name} | {factor_nnz(shape, name):,} | {len(tree.exec_sizes)} | {largest:,} |")


if __name__ == "__main__":
    main()
