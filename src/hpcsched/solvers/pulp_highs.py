"""PuLP's HiGHS interface with the model handed over in batches, against an absolute deadline.

PuLP 3.3 (``pulp.HiGHS.buildSolverModel``) adds the model to highspy one
column and one row at a time and marks every integer column with its own
``changeColIntegrality`` call, which copies HiGHS' integrality vector each
time: handing over 300,000 binaries took 17 s (10 s of them in those calls)
for a HiGHS run of 3.5 s (locality, 10^5 tasks). Here the columns go in one
``addCols``, the integrality in one ``changeColsIntegrality`` and the rows
in one ``addRows`` from a compressed sparse row array; the model HiGHS
receives is the same (same column and row order, same coefficients).

The time limit is a deadline on `hpcsched.core.deadline.now`, fixed when
`solve_pulp` is called: HiGHS gets what is left of it when its run starts,
not the whole limit after the hand-over. When the deadline passes during the
hand-over (read every `ROWS_PER_CHECK` rows), or before the run, HiGHS is not
started and the solve reports no solution (`BatchedHighs.skipped` says why).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..core.deadline import now

#: Rows handed over between two readings of the deadline (~10 ms of Python at 4 nonzeros a row).
ROWS_PER_CHECK = 4096


@functools.cache
def batched_highs_class() -> type:
    """`BatchedHighs`: a ``pulp.HiGHS`` subclass, made on first use (PuLP and highspy load lazily)."""
    import highspy
    import pulp

    class BatchedHighs(pulp.HiGHS):
        """``pulp.HiGHS`` with a batched hand-over and an absolute ``deadline`` (module docstring)."""

        def __init__(self, *args: Any, deadline: float | None = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.deadline = deadline
            self.skipped = ""

        def _late(self) -> bool:
            return self.deadline is not None and now() >= self.deadline

        def buildSolverModel(self, lp: Any) -> None:
            variables = lp.variables()
            count = len(variables)
            objective = lp.objective if lp.objective is not None else {}
            sense = -1.0 if lp.sense == pulp.LpMaximize else 1.0
            inf = highspy.kHighsInf
            cost = np.fromiter((sense * objective.get(v, 0.0) for v in variables), dtype=np.float64, count=count)
            lower = np.fromiter((-inf if v.lowBound is None else v.lowBound for v in variables), np.float64, count)
            upper = np.fromiter((inf if v.upBound is None else v.upBound for v in variables), np.float64, count)
            for index, variable in enumerate(variables):
                variable.index = index
            model = lp.solverModel
            no_entries = np.zeros(0, dtype=np.int32)
            model.addCols(count, cost, lower, upper, 0, np.zeros(count, np.int32), no_entries, np.zeros(0))
            integer = [v.index for v in variables if v.cat == pulp.LpInteger] if self.mip else []
            if integer:
                kinds = np.full(len(integer), int(highspy.HighsVarType.kInteger), dtype=np.uint8)
                model.changeColsIntegrality(len(integer), np.asarray(integer, dtype=np.int32), kinds)
            self._add_rows(lp)

        def _add_rows(self, lp: Any) -> None:
            inf = highspy.kHighsInf
            starts: list[int] = []
            indices: list[int] = []
            values: list[float] = []
            lows: list[float] = []
            ups: list[float] = []
            for row, constraint in enumerate(lp._constraints.values()):
                if not row % ROWS_PER_CHECK and self._late():
                    self.skipped = f"the deadline passed while handing row {row} to HiGHS"
                    return
                constraint.index = row
                starts.append(len(indices))
                for variable, coefficient in constraint.items():
                    if coefficient != 0:
                        indices.append(variable.index)
                        values.append(coefficient)
                lb, ub = constraint.getLb(), constraint.getUb()
                lows.append(-inf if lb is None else lb)
                ups.append(inf if ub is None else ub)
            lp.solverModel.addRows(
                len(starts),
                np.asarray(lows, dtype=np.float64),
                np.asarray(ups, dtype=np.float64),
                len(indices),
                np.asarray(starts, dtype=np.int32),
                np.asarray(indices, dtype=np.int32),
                np.asarray(values, dtype=np.float64),
            )

        def actualSolve(self, lp: Any) -> int:
            self.createAndConfigureSolver(lp)
            self.buildSolverModel(lp)
            if not self.skipped and self._late():
                self.skipped = "the deadline passed while the model was handed to HiGHS"
            if self.skipped:
                lp.assignStatus(pulp.LpStatusNotSolved, pulp.LpSolutionNoSolutionFound)
                return pulp.LpStatusNotSolved
            if self.deadline is not None:
                lp.solverModel.setOptionValue("time_limit", max(0.0, self.deadline - now()))
            self.callSolver(lp)
            status, solution_status = self.findSolutionValues(lp)
            lp.assignStatus(status, solution_status)
            return status

    return BatchedHighs


__all__ = ["ROWS_PER_CHECK", "batched_highs_class"]
