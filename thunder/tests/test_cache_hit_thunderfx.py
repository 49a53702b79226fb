"""ThunderFX with cache hit functions against ThunderFX without them: outputs and gradients bitwise, each region's hits
and misses, and the hooks that fire on each call (NOTE: The split module's call in ``thunder/dynamo/compiler.py``)."""

from __future__ import annotations

import copy

import pytest
import torch

from thunder.dynamo import thunderfx
from thunder.tests.cache_hit_harness import assert_bitwise, hits_misses, served_by_hit_fn, t

# Block: two Dynamo graphs; fresh_dynamo: an autouse fixture, imported to apply here too
from thunder.tests.test_thunderfx_split_module_call import Block, fresh_dynamo  # noqa: F401


def compiled_pair(module):
    """ThunderFX without and with the fast path, each on its own copy of ``module``."""
    return {fastpath: thunderfx(copy.deepcopy(module), fastpath=fastpath) for fastpath in (False, True)}


def regions(compiled):
    return [fn for info in compiled._backend.subgraph_infos for fn in info.thunder_compiled_fns]


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
def test_outputs_gradients_and_region_counts(grad):
    compiled = compiled_pair(Block())
    served = []
    for shape in [(4, 6), (4, 6), (4, 6), (2, 3, 6), (2, 3, 6), (4, 6)]:
        outs, grads = {}, {}
        for fastpath, c in compiled.items():
            x = t(*shape, requires_grad=grad)
            with torch.set_grad_enabled(grad):
                outs[fastpath] = c(x)
            if grad:
                outs[fastpath].sum().backward()
                grads[fastpath] = x.grad
        assert_bitwise(outs[False], outs[True])
        assert_bitwise(grads.get(False), grads.get(True))
        assert [hits_misses(r) for r in regions(compiled[True])] == [hits_misses(r) for r in regions(compiled[False])]
        assert not any(served_by_hit_fn(r) for r in regions(compiled[False]))
        served.append([served_by_hit_fn(r) for r in regions(compiled[True])])
    # Dynamo captures new graphs for the new shape, whose regions miss first (a region not called keeps its value)
    assert served == [[False] * 2, [True] * 2, [True] * 2, [True, True, False, False], [True] * 4, [True] * 4]


def hook_log(compiled, x, install):
    """The modules whose hooks fired during one call, with hooks put in place by ``install``."""
    log = []
    handles = install(compiled, log)
    try:
        out = compiled(x)
    finally:
        for h in handles:
            h.remove()
    return out, log


def global_hooks(compiled, log):
    return [
        torch.nn.modules.module.register_module_forward_pre_hook(lambda m, a: log.append(type(m).__name__)),
        torch.nn.modules.module.register_module_forward_hook(lambda m, a, o: log.append("after " + type(m).__name__)),
    ]


def split_module_hooks(compiled, log):
    def doubled(module, args, out):  # changes the outputs
        log.append("split")
        return tuple(o * 2 for o in out) if isinstance(out, tuple) else out * 2

    return [info.split_graph_module.register_forward_hook(doubled) for info in compiled._backend.subgraph_infos]


def region_hooks(compiled, log):
    return [fn.register_forward_pre_hook(lambda m, a: log.append("region")) for fn in regions(compiled)]


@pytest.mark.parametrize("install", [global_hooks, split_module_hooks, region_hooks])
@pytest.mark.filterwarnings("ignore:Using `torch.compile\\(module\\)` when there are global hooks")
def test_hooks_fire_as_without_the_fast_path(install):
    compiled = compiled_pair(Block())
    x = t(4, 6)
    for fastpath in (False, True):
        compiled[fastpath](x), compiled[fastpath](x)
    for _ in range(2):
        (out_ref, log_ref), (out_fast, log_fast) = (hook_log(compiled[f], x, install) for f in (False, True))
        assert_bitwise(out_ref, out_fast)
        assert log_ref == log_fast and log_ref
        assert_bitwise(compiled[False](x), compiled[True](x))
        assert all(served_by_hit_fn(r) for r in regions(compiled[True]))
    assert [hits_misses(r) for r in regions(compiled[True])] == [hits_misses(r) for r in regions(compiled[False])]
