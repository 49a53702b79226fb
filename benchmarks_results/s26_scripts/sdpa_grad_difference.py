"""Session 26: why grad_forward_scaled_dot_product_attention differed between the fast path and upstream in the CUDA
OpInfo search with --grad (call A and call B: call 6, the first call of sample 2, a miss), but not upstream against
upstream (--control) nor under torch.use_deterministic_algorithms (--deterministic).

For the op's samples (generated once, under one `random` seed), replays opinfo_differential's call sequence on three
callables: upstream, a second upstream, and the fast path. At every call it reports, for each of (upstream, second
upstream) and (upstream, fast): whether the outputs and each gradient are bitwise equal, and the largest difference.
Then, for every sample, it calls upstream's callable five more times (hits of one entry, the same inputs) and
reports how many distinct results its outputs and gradients take: more than one means the kernels themselves
are not deterministic for those inputs. Prints the executors of the entries' forward and backward traces.

Usage: python sdpa_grad_difference.py [--device cuda] [--deterministic]
"""

import argparse
import copy
import importlib.util
import pathlib
import random
import warnings

import torch

import thunder
import thunder.fastpath
from thunder.core import dtypes
from thunder.tests.opinfos import opinfos

HERE = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("opinfo_differential", HERE.parent / "s24_scripts/opinfo_differential.py")
od = importlib.util.module_from_spec(spec)
spec.loader.exec_module(od)


def flat_tensors(x):
    return [t for t in torch.utils._pytree.tree_leaves(x) if isinstance(t, torch.Tensor)]


def result(f, a, k):
    """(outputs, gradients) of call k, as opinfo_differential computes them."""
    args, kwargs = a
    kind, out = od.run(f, args, kwargs, seed=k)
    if kind == "raised":
        return f"raised {type(out).__name__}", None
    g = od.run(od.grads, (out, *a), {}, k)
    return flat_tensors(out), (flat_tensors(g[1]) if g[0] == "returned" else f"raised {type(g[1]).__name__}")


def differences(r1, r2):
    """'=' where bitwise equal, else the largest absolute difference, for outputs and each gradient."""
    def cmp(x, y):
        if isinstance(x, str) or isinstance(y, str) or x is None or y is None:
            return "=" if x == y else f"{x} vs {y}"
        parts = []
        for a, b in zip(x, y):
            same = a.shape == b.shape and a.dtype == b.dtype and torch.equal(a.nan_to_num(), b.nan_to_num())
            parts.append("=" if same else f"{(a.double() - b.double()).abs().max().item():.2e}")
        return " ".join(parts)
    return f"outputs [{cmp(r1[0], r2[0])}] grads [{cmp(r1[1], r2[1])}]"


def executors(trace):
    return sorted({getattr(getattr(b.sym, "executor", None), "name", None) or "-" for b in trace.bound_symbols})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--deterministic", action="store_true")
    opts = parser.parse_args()
    warnings.simplefilter("ignore")
    if opts.deterministic:
        torch.use_deterministic_algorithms(True)
    op = next(o for o in opinfos if o.name == "grad_forward_scaled_dot_product_attention")
    random.seed(0)
    torch.manual_seed(0)
    samples = list(op.sample_inputs(opts.device, dtypes.float32, requires_grad=True))
    print("samples:", [tuple(t.shape for t in flat_tensors(s.args)) for s in samples])
    up = thunder.jit(op.op, fastpath=False)
    up2 = thunder.jit(op.op, fastpath=False)
    fast = thunder.jit(op.op, fastpath=True)
    for k, (i, nc) in enumerate(od.call_sequence(samples)):
        try:
            copies = [od.fresh_copy(samples[i], nc) for _ in range(3)]
        except Exception:
            continue
        r_up, r_up2, r_fast = (result(f, a, k) for f, a in zip((up, up2, fast), copies))
        served = fast._lc_fastpath_state.published is not None
        print(f"call {k} sample {i}{' nc' if nc else ''} fast {'hit' if served else 'upstream path'}: "
              f"up/up2 {differences(r_up, r_up2)} | up/fast {differences(r_up, r_fast)}")
        if k in (0, 6):
            cs = thunder.compile_stats(fast)
            print("  fast entry: forward", executors(cs.last_traces[-1]),
                  "backward", executors(cs.last_backward_traces[-1]) if cs.last_backward_traces else None)
    print("upstream alone, five more calls per sample with the same inputs:")
    for i, s in enumerate(samples):
        try:
            rs = [result(up, od.fresh_copy(s, False), 1000 + i) for _ in range(5)]
        except Exception as e:
            print(f"sample {i}: {type(e).__name__}")
            continue
        base = rs[0]
        print(f"sample {i}: " + "; ".join(differences(base, r) for r in rs[1:]))


if __name__ == "__main__":
    main()
