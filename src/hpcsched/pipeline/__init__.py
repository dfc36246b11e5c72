"""pipeline: micro-batch schedules of pipeline-parallel training under per-device memory.

See ``docs/pipeline.md``.
"""
