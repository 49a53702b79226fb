import os
import pytest

@pytest.fixture
def breaks_with_fastpath_on():
    yield
    if os.environ.get("THUNDER_FASTPATH") == "1":
        raise RuntimeError("teardown error only with the fast path on")

def test_passes():
    pass

def test_errors_in_teardown_only_on(breaks_with_fastpath_on):
    pass
