"""Runs the region tests against deliberately broken layout shortcuts (session 8); each mutant should fail.
python3 benchmarks_results/s8_scripts/mutants.py MUTANT, from the repository root, on a machine with nvFuser."""
import sys, pytest
import thunder.fastpath.cache_hit as ch
import thunder.fastpath.guard as g
which = sys.argv[1]
if which == "strides_ignored":  # __same_layout from a guard that does not pin strides
    orig = g.GuardBuilder.tensor_check
    def tensor_check(self, observed):
        plain, noting = orig(self, observed)
        return plain, [line.replace("__observed_layout.check", "__tensor_guards.check") for line in noting]
    g.GuardBuilder.tensor_check = tensor_check
elif which == "identity_ignored":  # skip the check whatever layout the region holds
    orig = ch.CacheHit._region_lines
    ch.CacheHit._region_lines = lambda self: [l.replace("__prepared is __entry_layout", "True") for l in orig(self)]
elif which == "no_shortcut":
    ch._entry_layout = lambda *a: None
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-W", "ignore", "thunder/tests/test_overhead.py",
                      "-k", "nvfuser or Region"]))
