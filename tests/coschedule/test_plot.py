"""The Gantt chart is written for preemptive and non-preemptive schedules."""

from hpcsched.core.registry import get_problem, run_method
from hpcsched.coschedule import generate_uniform


def test_gantt_png(tmp_path):
    instance = generate_uniform(seed=2, n=8, density=0.8)
    problem = get_problem("coschedule")
    for method in ("lp-preemptive", "lp-merge"):
        result = run_method(instance, method)
        path = tmp_path / f"{method}.png"
        problem.plot(instance, result.solution, path)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
