"""Runs the new CUDA tests against deliberately broken fast paths; each run should fail."""
import sys, pytest
import thunder.fastpath.nvfuser as nv
import thunder.fastpath.cache_hit as ch
which = sys.argv[1]
if which == "views_count_as_new":
    nv._outputs_are_new = lambda outputs, inputs: True
elif which == "no_inline":
    ch.single_region_call = lambda trace, computation: None
elif which == "switch_always":
    orig = ch.CacheHit.__init__
    def init(self, entry, guard, runtime):
        guard.no_grad_inputs = False
        orig(self, entry, guard, runtime)
    ch.CacheHit.__init__ = init
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-W", "ignore", "thunder/tests/test_overhead.py",
                      "-k", "single_region or views_keep or issue1657_hit"]))
