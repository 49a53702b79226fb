"""A differential search over lightning-thunder's own OpInfos (thunder/tests/opinfos.py): the fast path against
upstream on every op's sample inputs, on the CPU with the torch executor, or with --device cuda on CUDA with
Thunder's default executors (nvFuser where it is usable). Not part of CI: tens of minutes.

The shipped test_ops suite jits most ops with cache="no caching", which the fast path leaves to upstream; here
each op is jitted with the default cache ("constant values", or --cache "symbolic values"), once with the fast
path and once without, and both get the same call sequence: for each sample, its call (a miss), the same call
again (a hit of the newest entry), the sample with non-contiguous tensors (same shapes, other strides: a hit on
another layout); then every sample once more in order (hits of older entries). With --grad the samples' floating
tensors require grad (as the sample generator makes them with requires_grad=True), and after every call the
gradients of the sum of the floating outputs are compared as well.

After every call, as the tests' ``compare_call``: the exception type, or the outputs bitwise with their
autograd facts, the inputs bitwise (in-place updates), hits, misses and calls; random ops run under one seed per
call. Each call gets its own deep copy of the sample (aliasing among its tensors and their strides kept).

Usage: python tools/opinfo_differential.py [--grad] [--shard I/N] [--ops NAME,...] [--dtype float32]
       [--cache "symbolic values"] [--device cuda] [--control] [--deterministic]
--control compares upstream with a second upstream callable (a difference there is not the fast path's);
--deterministic asks torch for deterministic kernels (CUDA's scatter_add and the like use atomics otherwise).
Prints one line per op (calls, how many a guard served, why entries kept upstream's path, the first difference if
any) and a summary.
"""

import argparse
import copy
import pathlib
import sys
import time
import warnings

import torch

import thunder
import thunder.fastpath
from thunder.core import devices, dtypes
from thunder.tests.opinfos import opinfos

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "thunder" / "tests"))
from fastpath_harness import assert_bitwise, autograd_facts, hits_misses  # noqa: E402


def call_sequence(samples):
    """(sample index, non-contiguous?) for each call, in order."""
    per_sample = [(i, nc) for i in range(len(samples)) for nc in (False, False, True)]
    return per_sample + [(i, False) for i in range(len(samples))]


def fresh_copy(sample, noncontiguous):
    s = sample.noncontiguous() if noncontiguous else sample
    return copy.deepcopy((s.args, s.kwargs))


def run(f, args, kwargs, seed):
    torch.manual_seed(seed)
    try:
        return "returned", f(*args, **kwargs)
    except Exception as e:
        return "raised", e


def grads(out, args, kwargs):
    """Gradients of the sum of the floating outputs that require grad, for the leaf tensors that require grad."""
    leaves = [
        x
        for x in torch.utils._pytree.tree_leaves((args, kwargs))
        if isinstance(x, torch.Tensor) and x.requires_grad and x.is_leaf
    ]
    outs = [
        o
        for o in torch.utils._pytree.tree_leaves(out)
        if isinstance(o, torch.Tensor) and o.requires_grad and (o.is_floating_point() or o.is_complex())
    ]
    if not leaves or not outs:
        return None
    total = sum(o.real.sum() if o.is_complex() else o.sum() for o in outs)
    return torch.autograd.grad(total, leaves, allow_unused=True)


def compare_op(op, device, dtype, grad, cache, control=False):
    """Returns (calls made, calls a guard served, samples, why entries kept upstream's path); raises
    AssertionError at the first difference. control: a second upstream callable in the fast one's place (what
    differs then is not the fast path's doing: nondeterministic kernels, for instance)."""
    samples = list(op.sample_inputs(device, dtype, requires_grad=grad))
    up = thunder.jit(op.op, fastpath=False, cache=cache)
    fast = thunder.jit(op.op, fastpath=not control, cache=cache)
    made = served = 0
    for k, (i, nc) in enumerate(call_sequence(samples)):
        try:
            a_up, a_fast = fresh_copy(samples[i], nc), fresh_copy(samples[i], nc)
        except Exception:  # a sample that cannot be copied (or made non-contiguous): leave this call out
            continue
        where = f"call {k} (sample {i}{', non-contiguous' if nc else ''})"
        try:
            served += compare_call(up, fast, a_up, a_fast, k, grad)
        except AssertionError as e:
            raise AssertionError(f"{where}: {str(e) or 'outputs differ in structure, type, dtype or shape'}") from e
        made += 1
    unsupported = fast._lc_fastpath_state.unsupported if not control else []
    why_not = sorted({reason.split(":")[0][:80] for reason in unsupported})
    return made, served, len(samples), why_not


def compare_call(up, fast, a_up, a_fast, k, grad) -> bool:
    """Call k on both callables, compared; whether a guard served the fast one."""
    kind_up, res_up = run(up, *a_up, seed=k)
    kind_fast, res_fast = run(fast, *a_fast, seed=k)
    assert kind_up == kind_fast, f"upstream {kind_up} {res_up!r}, fast {kind_fast} {res_fast!r}"
    if kind_up == "raised":
        assert type(res_up) is type(res_fast), f"{res_up!r} vs {res_fast!r}"
    else:
        assert_bitwise(res_up, res_fast)
        assert autograd_facts(res_up) == autograd_facts(res_fast), "autograd facts differ"
        assert_bitwise(a_up, a_fast)
        if grad:
            g_up, g_fast = run(grads, (res_up, *a_up), {}, k), run(grads, (res_fast, *a_fast), {}, k)
            assert g_up[0] == g_fast[0], f"backward {g_up} vs {g_fast}"
            if g_up[0] == "raised":
                assert type(g_up[1]) is type(g_fast[1]), f"backward {g_up[1]!r} vs {g_fast[1]!r}"
            else:
                assert_bitwise(g_up[1], g_fast[1])
    assert hits_misses(up) == hits_misses(fast), f"{hits_misses(up)} vs {hits_misses(fast)}"
    assert thunder.compile_stats(up).calls == thunder.compile_stats(fast).calls, "calls differ"
    state = getattr(fast, "_lc_fastpath_state", None)
    return state is not None and state.published is not None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grad", action="store_true")
    parser.add_argument("--shard", default="0/1")
    parser.add_argument("--ops", default="")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--cache", default="constant values", choices=["constant values", "symbolic values"])
    parser.add_argument("--control", action="store_true", help="upstream against upstream")
    parser.add_argument("--deterministic", action="store_true", help="torch.use_deterministic_algorithms(True)")
    opts = parser.parse_args()
    if opts.deterministic:
        torch.use_deterministic_algorithms(True)
    shard, n_shards = map(int, opts.shard.split("/"))
    wanted = getattr(dtypes, opts.dtype)
    names = set(filter(None, opts.ops.split(",")))
    warnings.simplefilter("ignore")
    device_type = devices.DeviceType.CPU if opts.device == "cpu" else devices.DeviceType.CUDA
    ops = [op for op in opinfos if op.op is not None and device_type in op.devicetypes()]
    ops = [op for op in ops if not names or op.name in names][shard::n_shards]
    totals = dict(ops=0, calls=0, served=0, differ=0, no_samples=0, setup_error=0)
    start = time.perf_counter()
    for op in ops:
        if wanted not in op.dtypes() or (opts.grad and not dtypes.is_inexact_dtype(wanted)):
            continue
        totals["ops"] += 1
        t0 = time.perf_counter()
        try:
            n_calls, served, n_samples, why_not = compare_op(
                op, opts.device, wanted, opts.grad, opts.cache, opts.control
            )
        except AssertionError as e:
            totals["differ"] += 1
            print(f"DIFFERS {op.name}: {(str(e) or repr(e)).splitlines()[0][:300]}", flush=True)
            continue
        except Exception as e:  # the sample generator or the harness, not a call
            totals["setup_error"] += 1
            print(
                f"SETUP-ERROR {op.name}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}",
                flush=True,
            )
            continue
        if n_samples == 0:
            totals["no_samples"] += 1
        totals["calls"] += n_calls
        totals["served"] += served
        kept = f"; upstream's path kept for: {why_not}" if why_not else ""
        print(
            f"ok {op.name}: {n_samples} samples, {n_calls} calls, {served} served by a guard "
            f"({time.perf_counter() - t0:.1f} s){kept}",
            flush=True,
        )
    print(f"summary {vars(opts)}: {totals}, {time.perf_counter() - start:.0f} s", flush=True)
    return 1 if totals["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
