"""Profile a user's ``nn.Sequential`` (or list of modules) into a checkpoint chain (optional: needs torch).

`profile_chain` runs each stage on the output of the one before and
measures, per stage i:

* ``fw[i]``: median wall time of a forward without autograd (``torch.no_grad``:
  an ``F``), with ``torch.cuda.synchronize`` around it on a GPU;
* ``bw[i]``: median wall time of ``torch.autograd.backward`` through the stage
  alone (a fresh recording forward each time, not timed), with a gradient of
  ones for its output;
* ``x[i]``: bytes of the stage input (x_0: the sample input), summed over the
  tensors of a tuple output;
* ``xbar[i+1]``: bytes of the output plus every tensor autograd saves during
  the recording forward (``torch.autograd.graph.saved_tensors_hooks``),
  counted once per storage, excluding the stage input (``B i`` reads x_i
  itself in this model) and the module's parameters (not activations);
* ``ftmp``/``btmp``: on CUDA, the peak allocated during the operation
  (``torch.cuda.max_memory_allocated``) beyond what was allocated before it
  and what it keeps, over the timed runs (the warm-up's peak holds cuDNN's
  autotuning workspaces and is not counted); 0 on the CPU (no counter).

Times are integer microseconds; ``bw[L]`` (the loss) is the backward time of
``loss(output)`` when ``loss`` is given, else 0. Install with
``pip install hpcsched[torch]``. ``instances/checkpoint/profile_gpu.py`` runs it on torchvision models on a GPU.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..core.errors import SolverUnavailableError
from .generate import with_budget
from .model import Instance


def _torch():
    try:
        import torch
    except ImportError as error:
        raise SolverUnavailableError("torch", "pip install 'hpcsched[torch]' (or pip install torch)") from error
    return torch


def _tensors(value: Any) -> list:
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors(item)]
    return []


def _storage_key(tensor) -> tuple[int, int]:
    storage = tensor.untyped_storage()
    return storage.data_ptr(), storage.nbytes()


def _bytes(value: Any) -> int:
    seen: dict[tuple[int, int], int] = {}
    for tensor in _tensors(value):
        key = _storage_key(tensor)
        seen[key] = tensor.numel() * tensor.element_size()
    return sum(seen.values())


def _detached(value: Any, requires_grad: bool) -> Any:
    torch = _torch()
    if isinstance(value, torch.Tensor):
        out = value.detach().clone()
        if requires_grad and out.is_floating_point():
            out.requires_grad_(True)
        return out
    if isinstance(value, (list, tuple)):
        return type(value)(_detached(item, requires_grad) for item in value)
    return value


def profile_chain(
    stages: Sequence[Any],
    sample_input: Any,
    *,
    budget: float = 0.6,
    memory: int | None = None,
    repeats: int = 3,
    loss: Callable[[Any], Any] | None = None,
    name: str = "profiled",
) -> Instance:
    """A chain Instance measured on ``stages`` with ``sample_input`` (see the module docstring).

    Parameters
    ----------
    stages
        An ``nn.Sequential`` or a list of modules/callables, run in order.
    sample_input
        The input of the first stage (a tensor or a tuple of tensors), on the device to profile.
    budget, memory
        Budget as a fraction of the store-all peak, or M in bytes.
    repeats
        Timed runs per measurement (the median is kept), after one warm-up run.
    loss
        Optional callable on the last output returning a scalar, timed for ``bw[L]``.
    """
    torch = _torch()
    stages = list(stages)
    if not stages:
        raise ValueError("profile_chain needs at least one stage")
    cuda = any(t.is_cuda for t in _tensors(sample_input))

    def sync() -> None:
        if cuda:
            torch.cuda.synchronize()

    def timed(run: Callable[..., Any], prepare: Callable[[], Any] | None = None) -> tuple[float, int]:
        # run takes no argument, or the state that prepare returns
        samples: list[float] = []
        transient = 0
        for attempt in range(repeats + 1):
            state = prepare() if prepare is not None else None
            sync()
            if cuda:
                torch.cuda.reset_peak_memory_stats()
                before = torch.cuda.memory_allocated()
            started = time.perf_counter()
            result = run() if state is None else run(state)
            sync()
            elapsed = time.perf_counter() - started
            if cuda and attempt > 0:  # the warm-up's peak includes cuDNN autotuning workspaces
                kept = torch.cuda.memory_allocated() - before
                transient = max(transient, torch.cuda.max_memory_allocated() - before - max(kept, 0))
            del result
            if attempt > 0:  # the first run is a warm-up
                samples.append(elapsed)
        return statistics.median(samples), transient

    fw: list[int] = []
    bw: list[int] = []
    x: list[int] = [_bytes(sample_input)]
    xbar: list[int | None] = [None]
    ftmp: list[int] = []
    btmp: list[int] = []
    current = _detached(sample_input, False)
    for stage in stages:
        parameters = {_storage_key(p) for p in getattr(stage, "parameters", lambda: [])()}
        with torch.no_grad():
            forward_time, forward_transient = timed(lambda stage=stage, current=current: stage(current))
            output = stage(current)
        saved: dict[tuple[int, int], int] = {}

        def pack(tensor, saved=saved):
            saved[_storage_key(tensor)] = tensor.numel() * tensor.element_size()
            return tensor

        recording_input = _detached(current, True)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
            recorded = stage(recording_input)
        excluded = (
            parameters
            | {_storage_key(t) for t in _tensors(recording_input)}
            | {_storage_key(t) for t in _tensors(recorded)}
        )
        extra = sum(size for key, size in saved.items() if key not in excluded)
        out_bytes = _bytes(output)

        def prepare(stage=stage, current=current):
            inputs = _detached(current, True)
            result = stage(inputs)
            return [t for t in _tensors(result) if t.requires_grad]

        def backward(outputs):
            if outputs:
                torch.autograd.backward(outputs, [torch.ones_like(t) for t in outputs])
            return None

        backward_time, backward_transient = timed(backward, prepare)
        fw.append(round(forward_time * 1e6))
        bw.append(round(backward_time * 1e6))
        ftmp.append(int(forward_transient))
        btmp.append(int(backward_transient))
        x.append(out_bytes)
        xbar.append(out_bytes + extra)
        current = _detached(output, False)
    loss_time = 0.0
    if loss is not None:

        def prepare_loss():
            return loss(_detached(current, True))

        loss_time, _ = timed(lambda value: value.backward() if value.requires_grad else None, prepare_loss)
    bw.append(round(loss_time * 1e6))
    btmp.append(0)
    notes = [
        f"measured with torch {torch.__version__} on {'CUDA' if cuda else 'CPU'}: median of {repeats} runs after "
        "one warm-up, wall time around synchronize",
        "xbar = output + tensors saved for backward (saved_tensors_hooks), per storage, without the stage input "
        "and the parameters",
        "transients from torch.cuda.max_memory_allocated" if cuda else "transients 0 (no memory counter on CPU)",
        "bw[L] = loss backward" if loss is not None else "bw[L] = 0 (no loss given)",
    ]
    source = {
        "importer": "torch-profile",
        "device": torch.cuda.get_device_name() if cuda else "cpu",
        "torch": torch.__version__,
        "layers": [type(stage).__name__ for stage in stages],
        "notes": notes,
    }
    return with_budget(
        fw, bw, x, xbar, budget=budget, name=name, source=source, time_unit="us", memory=memory, ftmp=ftmp, btmp=btmp
    )
