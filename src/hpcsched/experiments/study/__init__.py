"""Study files (TOML): which instances, which methods, which limits, where to write.

See ``docs/study.md`` for the schema with an example. In short::

    name = "small"
    results = "results.csv"          # relative to this file; .parquet needs pyarrow
    time_limits = [10]               # seconds, one run per limit
    seeds = [0]                      # method seeds, one run per seed
    executor = "local"               # or "dask"
    scheduler = "tcp://host:8786"    # dask only; omitted: a LocalCluster
    jobs = 2                         # concurrent runs
    grace = 5                        # seconds past a time limit before a run is killed
    plugins = ["mypkg.myproblem"]    # modules (or .py files) registering extra problems

    [[instances]]                    # files...
    files = ["../instances/transfers/*.json"]

    [[instances]]                    # ...or a generator family
    problem = "transfers"
    family = "uniform"
    seeds = [0, 1, 2]
    params = { n = 10 }
    sweep = { n = [10, 20] }         # optional: one family member per combination

    [[methods]]
    name = "cpsat"
    options = { workers = 2 }
    problem = "transfers"            # optional: only for instances of this problem
    time_limits = [60]               # optional: overrides the study's

Every mistake in a study file -- an unknown key, a wrong type, an unknown
problem, family or method, a glob that matches nothing, an instance file that
cannot be read -- ends in one `StudyFileError` naming the file and the key.
Runs are expanded in a fixed order: instances (as listed, files sorted within
a glob) × methods × time limits × seeds.

The modules, by role: `checking` (the error and the value checks), `plan`
(the parsed study and its expansion into runs), `parse` (the TOML file into a
`Study`), `run` (`run_study`).
"""

from .checking import StudyFileError
from .parse import load_study
from .plan import InstanceEntry, MethodEntry, Study, expand
from .run import run_study

__all__ = ["InstanceEntry", "MethodEntry", "Study", "StudyFileError", "expand", "load_study", "run_study"]
