"""A pytest plugin that plants calling_conventions_mutants.py's alias-args-only guard bug (the general alias check
reads only the positional arguments), to see which tests of test_overhead.py notice it:

    PYTHONPATH=benchmarks_results/s18_scripts .venv/bin/python -m pytest -p mutant_alias_args_only \\
        thunder/tests/test_overhead.py
"""

from calling_conventions_mutants import plant

plant("alias-args-only")
