"""``python -m hpcsched.cli``: the console script."""

from . import main

main()
