"""pytest set-up of the fast path's tests: ``fastpath_harness``, the harness that they share, lies beside this file."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
