"""Heuristics: sequential traversals of any DAG (`sequential`), parallel schedules (`parallel`), evictions (`out_of_core`)."""

from .out_of_core import (
    EvictionParams as EvictionParams,
    evict as evict,
    io_belady as io_belady,
    io_best_fit as io_best_fit,
    io_first_fit as io_first_fit,
    io_largest as io_largest,
)

from .parallel import (
    par_deepest_first as par_deepest_first,
    par_deepest_first_capped as par_deepest_first_capped,
    par_inner_first as par_inner_first,
    par_inner_first_capped as par_inner_first_capped,
    par_subtrees as par_subtrees,
    par_subtrees_optim as par_subtrees_optim,
)
from .series_parallel import sp_ization as sp_ization, sp_order as sp_order
from .sequential import (
    ForestParams as ForestParams,
    LocalSearchParams as LocalSearchParams,
    dfs_order as dfs_order,
    dfs_postorder as dfs_postorder,
    forest_order as forest_order,
    forest_postorder as forest_postorder,
    greedy as greedy,
    greedy_order as greedy_order,
    improve as improve,
    local_search as local_search,
    spanning_in_forest as spanning_in_forest,
)
