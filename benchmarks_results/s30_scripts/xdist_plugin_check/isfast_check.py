"""Does `-p thunder.fastpath` reach pytest-xdist workers (device_s30d.sh relies on it)? Run from this folder:
    for m in 1 0; do THUNDER_FASTPATH=$m python -m pytest -n 1 -q -p no:cacheprovider -p thunder.fastpath isfast_check.py; done
and once without `-p thunder.fastpath` (THUNDER_FASTPATH=1), where it must fail. Needs pytest-xdist."""
import os, thunder
def test_fast_in_worker():
    assert os.environ.get("PYTEST_XDIST_WORKER")
    assert hasattr(thunder.jit, "_lc_upstream_jit")  # thunder.fastpath was imported by -p, not by this test
    assert hasattr(thunder.jit(lambda x: x), "_lc_fastpath_state") == (os.environ["THUNDER_FASTPATH"] == "1")
