"""Write the shipped treemem instances.

Run from the repository root: ``.venv/bin/python instances/treemem/make_instances.py``.
solved.json is written by ``hpcsched solved treemem`` (docs/treemem.md).
"""

from __future__ import annotations

from pathlib import Path

from hpcsched.core.io import write_instance
from hpcsched.treemem import (
    as_out_of_core,
    as_parallel,
    generate_assembly,
    generate_harpoon,
    generate_parallel_tree,
    generate_random_dag,
    generate_random_tree,
    import_dnn,
)

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[2] / "shared" / "data" / "dnn_partitioning"


def main() -> None:
    instances = [
        generate_harpoon(k=4, big=100),
        generate_harpoon(k=10, big=1000),
        generate_random_tree(seed=1, n=12),
        generate_random_tree(seed=2, n=30, max_children=3, max_exec=100, max_output=100),
        generate_random_tree(seed=3, n=200, max_exec=100, max_output=100),
        generate_random_tree(seed=4, n=2000, max_children=4, max_exec=100, max_output=100),
        generate_random_dag(seed=1, n=8),
        generate_random_dag(seed=2, n=12, edge_probability=0.3),
        generate_random_dag(seed=3, n=16, edge_probability=0.2),
        generate_random_dag(seed=4, n=20, edge_probability=0.15),
        generate_assembly(shape=(8, 8), ordering="nested-dissection"),
        generate_assembly(shape=(5, 5, 5), ordering="nested-dissection"),
        generate_assembly(shape=(16, 16), ordering="minimum-degree", amalgamation=4),
        generate_assembly(shape=(30, 30), ordering="rcm"),
        # the parallel question: M relative to the sequential optimum (Liu 1987)
        generate_parallel_tree(seed=1, n=8, processors=2, memory_factor=1.2),
        generate_parallel_tree(seed=2, n=12, processors=3, memory_factor=1.5),
        generate_parallel_tree(seed=3, n=40, processors=4, memory_factor=2.0),
        as_parallel(generate_assembly(shape=(5, 5, 5), ordering="nested-dissection"), processors=4, memory=2 * 2325),
        # the out-of-core question (MinIO): M = max(max MemReq, fraction x the in-core optimum)
        as_out_of_core(generate_harpoon(k=4, big=100), fraction=0.8),
        as_out_of_core(generate_harpoon(k=10, big=1000), fraction=0.8),
        as_out_of_core(generate_random_dag(seed=2, n=8, edge_probability=0.35), fraction=0.85),
        as_out_of_core(generate_assembly(shape=(8, 8), ordering="nested-dissection"), fraction=0.8),
        as_out_of_core(generate_random_tree(seed=3, n=200, max_exec=100, max_output=100), fraction=0.8),
    ]
    dnn = SHARED / "latency-inputs" / "LayerGraphs" / "resnet50_inference.json"
    if dnn.exists():
        instances.append(import_dnn(dnn))
    for instance in instances:
        write_instance(instance, HERE / f"{instance.name}.json")
        print(instance.name, instance.n)


if __name__ == "__main__":
    main()
