"""Runs the CPU tests against deliberately broken forms of the grad-free hit (session 10); each mutant should fail.
python benchmarks_results/s10_scripts/mutants_grad_free.py MUTANT, from the repository root (no GPU needed)."""
import sys

import pytest

import thunder.fastpath.cache_hit as ch

which = sys.argv[1]
if which == "any_layout":  # skip the switch whatever the tensors' sizes and strides
    orig_on_pass = ch.CacheHit._on_pass

    def on_pass(self):
        return [line.replace("if __same_layout:", "if True:") for line in orig_on_pass(self)]

    ch.CacheHit._on_pass = on_pass
elif which in ("views_ignored", "grad_inputs_ignored", "symbolic_values_allowed"):
    orig = ch._grad_free_on_layout

    def grad_free(hit, entry, args, kwargs, outputs, constant_values):
        if which == "views_ignored":
            ch.outputs_are_new, saved = (lambda *_: True), ch.outputs_are_new
        elif which == "grad_inputs_ignored":
            hit.guard.no_grad_inputs, saved = True, hit.guard.no_grad_inputs
        else:
            constant_values = True
        try:
            return orig(hit, entry, args, kwargs, outputs, constant_values)
        finally:
            if which == "views_ignored":
                ch.outputs_are_new = saved
            elif which == "grad_inputs_ignored":
                hit.guard.no_grad_inputs = saved

    ch._grad_free_on_layout = grad_free
elif which == "executors_ignored":  # every executor taken to be grad-neutral

    class Everything:
        def __contains__(self, name):
            return True

    ch._GRAD_NEUTRAL_EXECUTORS = Everything()
elif which != "none":
    sys.exit(f"unknown mutant {which}")
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-W", "ignore", "thunder/tests/test_overhead.py",
                      "-k", "grad or view or differential or aliased or in_place or sequences or executors"]))
