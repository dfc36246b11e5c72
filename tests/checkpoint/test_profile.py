"""The torch profiler extra on a small CPU model (skipped where torch is not installed)."""

from __future__ import annotations

import pytest

import hpcsched
from hpcsched.checkpoint import validate

torch = pytest.importorskip("torch", reason="torch is not installed: pip install 'hpcsched[torch]'")


def test_profile_a_small_sequential_on_cpu():
    from hpcsched.checkpoint.profile import profile_chain

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    sample = torch.randn(5, 8)
    instance = profile_chain(model, sample, budget=0.9, repeats=2, loss=lambda out: out.square().mean())
    assert instance.length == 3
    assert list(instance.x) == [5 * 8 * 4, 5 * 16 * 4, 5 * 16 * 4, 5 * 4 * 4]
    # Linear saves its input (x_i, read by B i itself) and weight (a parameter): nothing beyond the output;
    # ReLU saves its output: the same storage as x_{i+1}
    assert list(instance.xbar[1:]) == [5 * 16 * 4, 5 * 16 * 4, 5 * 4 * 4]
    assert all(t >= 0 for t in (*instance.fw, *instance.bw))
    assert instance.source["importer"] == "torch-profile" and isinstance(instance.source["notes"], list)
    result = hpcsched.solve(instance, "dp", time_limit=60)
    assert result.status.has_solution and validate(instance, result.solution) == []


def test_saved_tensors_beyond_the_output_count_in_xbar():
    from hpcsched.checkpoint.profile import profile_chain

    class Square(torch.nn.Module):
        def forward(self, value):  # saves its input (excluded) and returns a new tensor
            hidden = value * 2.0
            return hidden.sin() + 1.0  # sin saves `hidden`: an extra tensor the backward needs

    instance = profile_chain([Square()], torch.randn(4, 4), budget=1.0, repeats=1)
    assert instance.xbar[1] == instance.x[1] + 4 * 4 * 4
