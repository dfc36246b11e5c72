"""Studies: methods x instances -> rows of results, on a local pool or Dask."""
