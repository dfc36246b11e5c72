"""Heuristics: sequential traversals of any DAG (`sequential`), parallel schedules (`parallel`,
`par_subtrees`, `memlimit`), evictions (`out_of_core`)."""

from .memlimit import (
    MemLimitParams as MemLimitParams,
)
from .memlimit import (
    par_deepest_first_memlimit as par_deepest_first_memlimit,
)
from .memlimit import (
    par_inner_first_memlimit as par_inner_first_memlimit,
)
from .out_of_core import (
    EvictionParams as EvictionParams,
)
from .out_of_core import (
    evict as evict,
)
from .out_of_core import (
    io_belady as io_belady,
)
from .out_of_core import (
    io_best_fit as io_best_fit,
)
from .out_of_core import (
    io_first_fit as io_first_fit,
)
from .out_of_core import (
    io_largest as io_largest,
)
from .par_subtrees import (
    par_subtrees as par_subtrees,
)
from .par_subtrees import (
    par_subtrees_optim as par_subtrees_optim,
)
from .parallel import (
    par_deepest_first as par_deepest_first,
)
from .parallel import (
    par_deepest_first_capped as par_deepest_first_capped,
)
from .parallel import (
    par_inner_first as par_inner_first,
)
from .parallel import (
    par_inner_first_capped as par_inner_first_capped,
)
from .sequential import (
    ForestParams as ForestParams,
)
from .sequential import (
    LocalSearchParams as LocalSearchParams,
)
from .sequential import (
    dfs_order as dfs_order,
)
from .sequential import (
    dfs_postorder as dfs_postorder,
)
from .sequential import (
    forest_order as forest_order,
)
from .sequential import (
    forest_postorder as forest_postorder,
)
from .sequential import (
    greedy as greedy,
)
from .sequential import (
    greedy_if_in_time as greedy_if_in_time,
)
from .sequential import (
    greedy_order as greedy_order,
)
from .sequential import (
    improve as improve,
)
from .sequential import (
    local_search as local_search,
)
from .sequential import (
    orders_in_time as orders_in_time,
)
from .sequential import (
    spanning_in_forest as spanning_in_forest,
)
from .series_parallel import sp_ization as sp_ization
from .series_parallel import sp_order as sp_order
