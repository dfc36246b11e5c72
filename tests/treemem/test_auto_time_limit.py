"""``auto``'s class test counts in the time limit: it takes a tenth of it at most, the method the rest."""

from __future__ import annotations

import dataclasses
import time

import hpcsched
import hpcsched.treemem as treemem
from hpcsched.core.registry import run_method

from .test_auto_sp_exact import residual_chain


def test_the_class_test_gets_a_tenth_of_the_limit_and_the_method_what_is_left(monkeypatch):
    seen: dict[str, float] = {}
    real_test = treemem._in_sp_exact_class

    def slow_test(instance, seconds):
        seen["seconds"] = seconds
        time.sleep(seconds)  # the class test may use its whole share
        return real_test(instance, seconds)

    method = treemem.PROBLEM.methods["local-search"]

    def recording(instance, *, time_limit, seed, params):
        seen["method_limit"] = time_limit
        return method.func(instance, time_limit=time_limit, seed=seed, params=params)

    monkeypatch.setattr(treemem, "_in_sp_exact_class", lambda instance, seconds: slow_test(instance, seconds) and False)
    monkeypatch.setitem(treemem.PROBLEM.methods, "local-search", dataclasses.replace(method, func=recording))
    result = run_method(residual_chain(10), "auto", problem="treemem", time_limit=2.0)
    assert "auto ran local-search" in result.notes
    assert seen["seconds"] == 0.2  # min(0.5 s, a tenth of 2 s)
    assert seen["method_limit"] <= 2.0 - 0.2  # the choice's time was taken off the method's limit


def test_without_a_limit_the_name_alone_is_chosen_with_the_default_share():
    # the CLI's option check resolves the dispatcher without a limit: the default share applies
    assert treemem.PROBLEM.resolve("auto", residual_chain(10)).name == "sp-exact"
    assert hpcsched.solve(residual_chain(10), "auto", problem="treemem", time_limit=60).status.name == "OPTIMAL"
