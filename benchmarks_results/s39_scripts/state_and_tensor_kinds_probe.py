"""Session 39: a differential probe of global state and tensor kinds that session 38's probe and test_overhead.py do
not vary (this CPU). Each call sequence runs through test_overhead.run_differential (upstream and the fast path side
by side: outputs bitwise, views and autograd history, inputs after the call, hits, misses, calls, exception types).

    .venv/bin/python benchmarks_results/s39_scripts/state_and_tensor_kinds_probe.py
"""
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "thunder" / "tests"))
from test_overhead import run_differential, Call, t  # noqa: E402
import thunder  # noqa: E402

SCALE = 2.0
TABLE = t(3)


def uses_globals(a):
    return a * SCALE + TABLE


def set_globals(scale, table):
    global SCALE, TABLE
    SCALE, TABLE = scale, table


def inference_tensor(*shape):
    with torch.inference_mode():
        return t(*shape)


def non_leaf(*shape):
    return t(*shape, requires_grad=True) * 1


def with_globals(scale, table):
    def make():
        set_globals(scale, table)
        return (t(3),), {}
    return make


add1 = lambda a: a + 1  # noqa: E731
mul = lambda a, b: a * b  # noqa: E731
cases = {
    "inference_mode around calls": (add1, [Call(lambda: ((t(3),), {})), Call(lambda: ((t(3),), {}), torch.inference_mode),
                                           Call(lambda: ((t(3),), {}), torch.inference_mode), Call(lambda: ((t(3),), {}))]),
    "inference tensors outside inference_mode": (add1, [Call(lambda: ((t(3),), {})), Call(lambda: ((inference_tensor(3),), {})),
                                                        Call(lambda: ((inference_tensor(3),), {})), Call(lambda: ((t(3),), {}))]),
    "in-place on an inference tensor": (lambda a: a.add_(1), [Call(lambda: ((t(3),), {})), Call(lambda: ((t(3),), {})),
                                                             Call(lambda: ((inference_tensor(3),), {}))]),
    "conj view": (add1, [Call(lambda: ((t(3, dtype=torch.complex64),), {})), Call(lambda: ((t(3, dtype=torch.complex64),), {})),
                         Call(lambda: ((t(3, dtype=torch.complex64).conj(),), {})), Call(lambda: ((t(3, dtype=torch.complex64).conj(),), {})),
                         Call(lambda: ((t(3, dtype=torch.complex64),), {}))]),
    "neg view": (add1, [Call(lambda: ((t(3),), {})), Call(lambda: ((t(3),), {})), Call(lambda: ((torch._neg_view(t(3)),), {})),
                        Call(lambda: ((t(3),), {}))]),
    "parameter then tensor": (mul, [Call(lambda: ((torch.nn.Parameter(t(3)), t(3)), {})), Call(lambda: ((torch.nn.Parameter(t(3)), t(3)), {})),
                                    Call(lambda: ((t(3, requires_grad=True), t(3)), {})), Call(lambda: ((t(3), t(3)), {}))]),
    "non-leaf requiring grad": (mul, [Call(lambda: ((t(3), t(3)), {})), Call(lambda: ((non_leaf(3), t(3)), {})),
                                      Call(lambda: ((non_leaf(3), t(3)), {})), Call(lambda: ((t(3), t(3)), {}))]),
    "requires grad under no_grad": (mul, [Call(lambda: ((t(3, requires_grad=True), t(3)), {}), torch.no_grad),
                                          Call(lambda: ((t(3, requires_grad=True), t(3)), {}), torch.no_grad),
                                          Call(lambda: ((t(3, requires_grad=True), t(3)), {})), Call(lambda: ((t(3), t(3)), {}), torch.no_grad)]),
    "globals read by the function": (uses_globals, [Call(with_globals(2.0, t(3))), Call(with_globals(2.0, t(3))), Call(with_globals(3.0, t(3))),
                                                    Call(with_globals(3.0, t(3, seed=1))), Call(with_globals(3.0, t(4))), Call(with_globals(2.0, t(3)))]),
    "zero-size and one-element": (add1, [Call(lambda: ((t(0),), {})), Call(lambda: ((t(0),), {})), Call(lambda: ((t(1),), {})), Call(lambda: ((t(0),), {}))]),
    "empty tensors twice (one data pointer)": (mul, [Call(lambda: ((t(0), t(0)), {})), Call(lambda: ((t(0), t(0)), {})), Call(lambda: ((t(2), t(2)), {}))]),
    "sparse COO": (add1, [Call(lambda: ((t(3),), {})), Call(lambda: ((t(3).to_sparse(),), {})), Call(lambda: ((t(3),), {}))]),
    "meta tensors": (add1, [Call(lambda: ((t(3),), {})), Call(lambda: ((torch.empty(3, device="meta"),), {})),
                            Call(lambda: ((torch.empty(3, device="meta"),), {})), Call(lambda: ((t(3),), {}))]),
}
bad = 0
for name, (fn, calls) in cases.items():
    try:
        up, fast = run_differential(fn, calls)
        print(f"ok   {name}: hits/misses {thunder.cache_hits(fast)}/{thunder.cache_misses(fast)}, "
              f"guarded entries {len(fast._lc_fastpath_state.hits)}, kept on upstream's path for: {fast._lc_fastpath_state.unsupported[:1]}")
    except Exception as e:
        bad += 1
        print(f"FAIL {name}: {type(e).__name__}: {str(e)[:300]}")
print("failures", bad)
