"""Importer of the msr-fiddle/dnn-partitioning graphs and seeded generators of training DAGs.

Importer (`import_dnn`)
-----------------------
``../shared/data/dnn_partitioning/{latency,throughput}-inputs/**/*.json``
(msr-fiddle/dnn-partitioning, MIT; Tarnawski et al., NeurIPS 2020): nodes
with ``fpgaLatency`` (accelerator time), ``size`` (bytes), ``colorClass``
(colocation class); edges with ``cost`` (transfer time); the global
``maxSizePerFPGA`` (bytes per accelerator). Mapping and its approximations
(written to ``source["notes"]``):

* p_v = round(fpgaLatency x ``time_scale``), c_uv = round(cost x
  ``time_scale``) (nearest integer; default scale 1000). The files do not
  state their time unit; the values (a BERT-24 training iteration of 218)
  read as milliseconds, hence ``time_unit = "us"`` at scale 1000. A cost
  below half a unit becomes 0;
* w_v = size (the bytes the paper's memory constraint counts per device),
  s_v = 0 (the files give per-node memory only, not a separate output
  size): under static memory Σ w per GPU <= M is the paper's constraint;
* group = colorClass (absent: no group);
* M = ``memory`` bytes if given, else floor(``memory_fraction`` x
  maxSizePerFPGA); K = ``gpus``.

Importer (`import_pipedream`)
-----------------------------
``../shared/data/pipedream/*.graph.txt`` (msr-fiddle/pipedream profiles,
MIT): one line per layer ``nodeN -- Op(...) -- forward_compute_time=ms,
backward_compute_time=ms, activation_size=bytes, parameter_size=bytes``,
then edge lines ``nodeA -- nodeB``. Built as a training DAG: a forward node
per layer (p = forward time) and a backward node (p = backward time),
forward edges, mirrored backward edges, each forward node feeding its
backward node (its activation is kept for the backward pass), the two in
one colocation group. Times x 1000, rounded (ms -> us); w = parameter_size
(weights only: optimizer state is not in the files); s = activation_size
(a list ``[a; b; ...]``, as some GNMT layers have, is summed); transfer =
⌈s / bandwidth⌉ with ``bandwidth`` bytes per us (default 10^4, 10 GB/s);
the ``Input`` layer's forward time is data loading: it becomes 0 and the
layer gets no backward node. M = ``memory`` bytes (default 16 GiB, the
profiling GPU class).

Generators (``numpy.random.default_rng(seed)`` only; ``n`` = ``nodes``, for ``hpcsched generate --n``)
----------------------------------------------------
* `generate_training`: a layered forward/backward training DAG (a backward
  node per forward node, edges mirrored, each forward activation feeding its
  backward node: long-lived), up to 10^5 nodes and more;
* `generate_random`: a small random DAG (tests, notebooks);
* `generate_chain`: a layer chain (the special cases' class).
"""

from .generators import generate_chain, generate_random, generate_training
from .importers import import_dnn, import_pipedream
from .options import MAX_GENERATED_NODES

__all__ = [
    "MAX_GENERATED_NODES",
    "generate_chain",
    "generate_random",
    "generate_training",
    "import_dnn",
    "import_pipedream",
]
