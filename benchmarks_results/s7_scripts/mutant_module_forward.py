import sys, copy, pytest
import thunder.fastpath.guard as g
cache = {}
def stale(cd, model):
    return cache.setdefault(id(model), copy.deepcopy(model))
g.thunder_module_in = stale
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-W", "ignore", "thunder/tests/test_overhead.py", "-k", "module_forward or globals_or_closure"]))
