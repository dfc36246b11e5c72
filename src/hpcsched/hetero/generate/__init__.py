"""Importer of the hetero_swf task files and seeded generators of hetero instances.

Importer
--------
`import_swf` reads ``formatedTasks_2/<app>/<app>-<block>-<tiles>.txt`` of
marcosamaris/heterogeneous-SWF (Amaris, Lucarelli, Mommessin, Trystram,
CCPE 2019, e4647): one line per task ``id cpu_time gpu_time [pred,pred,...]``,
``-1`` = cannot run there. Measured on 10 Xeon E7 v2 cores and 4 Tesla K20
GPUs with StarPU/Chameleon, hence the default platform ``cpus=10, gpus=4``.
Source notes: the times are *probably* milliseconds (the data README says
so; the upstream README gives no unit); they are rounded to integer
microseconds (``time_unit = "us"``, at most 0.5 us off per task), and the
traces carry no communication costs (c_uv = 0, the survey's base model).

Generators (``numpy.random.default_rng(seed)`` only)
---------------------------------------------------
* `generate_layered`: random layered DAG;
* `generate_fork_join`: ``phases`` fork-join phases of ``width`` parallel tasks;
* `generate_cholesky`: the tiled Cholesky DAG (POTRF, TRSM, SYRK, GEMM)
  with the kernel-time model `CHOLESKY_KERNELS_US`;
* `generate_heteroprio_trap`: our adversarial family for HeteroPrio (see
  its docstring: it is *not* the construction of the IPDPS 2020 paper).
"""

from .generators import (
    CHOLESKY_KERNELS_US,
    MAX_GENERATED_TASKS,
    generate_cholesky,
    generate_fork_join,
    generate_heteroprio_trap,
    generate_layered,
)
from .importers import import_dnn, import_swf

__all__ = [
    "CHOLESKY_KERNELS_US",
    "MAX_GENERATED_TASKS",
    "generate_cholesky",
    "generate_fork_join",
    "generate_heteroprio_trap",
    "generate_layered",
    "import_dnn",
    "import_swf",
]
