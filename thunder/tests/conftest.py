"""pytest set-up of the fast path's tests: ``fastpath_harness``, the harness that they share, lies beside this file."""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))

from fastpath_harness import nvfuser_usable  # noqa: E402  (found through the path above)


def pytest_runtest_setup(item):
    if item.get_closest_marker("nvfuser") is not None and not nvfuser_usable():
        pytest.skip("needs CUDA and nvFuser")
