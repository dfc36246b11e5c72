"""A Pyomo method answers inside `compare` and `study run` as it does in `solve`.

The runner child (`hpcsched.experiments.runner.child`) pointed sys.stdout at sys.stderr to keep
solver chatter off its protocol. Pyomo's output capture (appsi HiGHS, behind ``sizing-static-lp``)
then waited forever for its reader threads, so every such run was killed at limit + grace
(TIME_LIMIT_NO_SOLUTION) although ``solve`` answered in seconds. The child now redirects file
descriptor 1 only. The generous grace below only bounds how long the old code took to fail.
"""

from __future__ import annotations

from pathlib import Path

from hpcsched import read_instance
from hpcsched.experiments.engine import make_task
from hpcsched.experiments.runner import Runner

INSTANCE = Path(__file__).resolve().parents[2] / "instances" / "burstbuffer" / "intrepid-mix6-sizing-static.json"


def test_sizing_static_lp_answers_in_the_runner_child():
    runner = Runner()
    try:
        outcome = runner.run(make_task(read_instance(INSTANCE), "sizing-static-lp", time_limit=60, grace=60))
    finally:
        runner.close()
    assert outcome["status"] == "OPTIMAL", outcome
    assert outcome["objective"] == outcome["bound"]
