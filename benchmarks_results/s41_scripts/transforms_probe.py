"""Session 41: thunder.jit with lightning-thunder's own transforms that change the prologue or the module
(PrunePrologueChecks, default and prune_all_checks; MaterializationTransform from the meta device; ConstantFolding),
upstream (fastpath=False) against the fast path, with test_overhead.py's harness (outputs bitwise, exception types,
hits and misses after every call). Prints, per case, "same" and the hits and misses, or the first difference.

    .venv/bin/python benchmarks_results/s41_scripts/transforms_probe.py
"""
import copy
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "thunder", "tests"))
import test_overhead as T  # noqa: E402  (imports thunder.fastpath)
import thunder  # noqa: E402
from thunder.transforms.constant_folding import ConstantFolding  # noqa: E402
from thunder.transforms.materialization import MaterializationTransform  # noqa: E402
from thunder.transforms.prune_prologue_checks import PrunePrologueChecks  # noqa: E402

C = T.Call


def run(name, fn, calls, **opts):
    try:
        up, fast = T.run_differential(fn, calls, **opts)
        state = (fast._forward_fn if isinstance(fast, thunder.ThunderModule) else fast)._lc_fastpath_state
        print(f"{name:34s} same   hits/misses {T.hits_misses(fast)}  unsupported {state.unsupported[:1]}")
    except AssertionError as e:
        print(f"{name:34s} DIFFERS: {str(e).splitlines()[0][:150]}")


f = lambda a, b, n: a * n + b
shapes = lambda: [C(lambda: ((T.t(3), T.t(3, seed=1), 2), {})), C(lambda: ((T.t(3), T.t(3, seed=1), 2), {})),
                  C(lambda: ((T.t(4), T.t(4, seed=1), 2), {})), C(lambda: ((T.t(3, dtype=torch.float64),
                                                                           T.t(3, seed=1), 3), {})),
                  C(lambda: ((T.t(3), T.t(3, seed=1), 2), {}))]
run("prune module checks, function", f, shapes(), transforms=[PrunePrologueChecks()])
run("prune all checks, function", f, shapes(), transforms=[PrunePrologueChecks(prune_all_checks=True)])
run("constant folding, function", lambda a, n: a * (torch.ones(3) * n).sum(), [
    C(lambda: ((T.t(3), 2), {})), C(lambda: ((T.t(3), 2), {})), C(lambda: ((T.t(3), 3), {})),
    C(lambda: ((T.t(3), 2), {}))], transforms=[ConstantFolding()])

torch.manual_seed(0)
lin = torch.nn.Linear(4, 3)
module_calls = lambda: [C(lambda: ((T.t(2, 4),), {})), C(lambda: ((T.t(2, 4),), {})), C(lambda: ((T.t(5, 4),), {})),
                        C(lambda: ((T.t(2, 4, dtype=torch.float64),), {})), C(lambda: ((T.t(2, 4),), {}))]
run("prune module checks, module", lin, module_calls(), module=True, transforms=[PrunePrologueChecks()])
run("prune all checks, module", lin, module_calls(), module=True,
    transforms=[PrunePrologueChecks(prune_all_checks=True)])
run("constant folding, module", lin, module_calls(), module=True, transforms=[ConstantFolding()])

with torch.device("meta"):
    meta_lin = torch.nn.Linear(4, 3)
for name, init in [("materialize, module init", MaterializationTransform.init_from_original_module_init()),
                   ("materialize, state dict", MaterializationTransform.init_from_original_state_dict(lin.state_dict()))]:
    # Each system gets its own module; the module's own init draws from the global generator: seed before each.
    torch.manual_seed(1)
    up = thunder.jit(copy.deepcopy(meta_lin), fastpath=False, transforms=[MaterializationTransform("cpu", init=init)])
    torch.manual_seed(1)
    fast = thunder.jit(copy.deepcopy(meta_lin), fastpath=True, transforms=[MaterializationTransform("cpu", init=init)])
    try:
        for i, call in enumerate(module_calls()):
            T.compare_call(up, fast, call, i)
        print(f"{name:34s} same   hits/misses {T.hits_misses(fast)}  "
              f"unsupported {fast._forward_fn._lc_fastpath_state.unsupported[:1]}")
    except AssertionError as e:
        print(f"{name:34s} DIFFERS: {str(e).splitlines()[0][:150]}")
