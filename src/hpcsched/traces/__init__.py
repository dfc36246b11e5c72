"""Parsers of real trace formats into plain records (kernel tables, layer tables).

This package imports no problem package: each problem turns these records
into its Instance in its own ``generate.py``.
"""
