"""The fast path on lightning-thunder 0.2.6 (``overlay.py``): importing ``thunder.fastpath`` installs its entry points
and turns it on for callables jitted afterwards, unless ``THUNDER_FASTPATH`` says otherwise.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

import thunder.fastpath
from thunder.fastpath import overlay

from fastpath_harness import REPO

pytestmark = pytest.mark.skipif(
    overlay.thunder_has_entry_points(), reason="this Thunder calls the fast path's entry points itself"
)


def test_fastpath_comes_from_this_checkout():
    # A stale installed copy would sit in site-packages, outside the checkout.
    path = pathlib.Path(thunder.fastpath.__file__).resolve()
    assert REPO in path.parents, f"thunder.fastpath imported from {path}, not from {REPO}"


def run(code: str, **env) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "THUNDER_FASTPATH"} | env
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True)


def test_importing_the_package_turns_the_fast_path_on():
    code = (
        "import thunder\n"
        "before = thunder.jit(lambda a: a + 1)\n"
        "import thunder.fastpath\n"
        "after = thunder.jit(lambda a: a + 1)\n"
        "print(thunder.fastpath.is_enabled(), thunder.fastpath.is_fast(before), thunder.fastpath.is_fast(after))\n"
    )
    assert run(code).stdout.split() == ["True", "False", "True"]
    assert run(code, THUNDER_FASTPATH="0").stdout.split() == ["False", "False", "False"]


def test_fastpath_argument_before_the_import():
    # lightning-thunder 0.2.6 takes `fastpath=True` before `import thunder.fastpath` as an unknown compile option that
    # it keeps and ignores.
    code = (
        "import thunder, torch\n"
        "before = thunder.jit(lambda a: a + 1, fastpath=True)\n"
        "import thunder.fastpath\n"
        "after = thunder.jit(lambda a: a + 1, fastpath=True)\n"
        "print(thunder.fastpath.is_fast(before), thunder.fastpath.is_fast(after))\n"
    )
    assert run(code).stdout.split() == ["False", "True"]
