"""A pytest plugin that plants one of python_state.py's mutants (named by the environment variable MUTANT), to see
which tests of test_overhead.py notice it:

    MUTANT=number-values-ignored PYTHONPATH=benchmarks_results/s20_scripts .venv/bin/python -m pytest \\
        -p mutant_plugin thunder/tests/test_overhead.py
"""

import os

from python_state import plant

plant(os.environ["MUTANT"])
