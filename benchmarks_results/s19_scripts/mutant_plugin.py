"""A pytest plugin that plants one of training_loops.py's mutants (named by the environment variable MUTANT), to
see which tests of test_overhead.py notice it:

    MUTANT=grad-mode-ignored PYTHONPATH=benchmarks_results/s19_scripts .venv/bin/python -m pytest \\
        -p mutant_plugin thunder/tests/test_overhead.py
"""

import os

from training_loops import plant

plant(os.environ["MUTANT"])
