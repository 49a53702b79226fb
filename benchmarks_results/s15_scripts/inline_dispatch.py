"""Session 15 experiment: would the jitted callable cost less with the dispatcher's loop written into ``fast_fn``
(one Python frame fewer per call)? Interleaved, for a function case: the work the hit runs (the region's executor
or the computation), the hit function, the dispatcher, the jitted callable as it is, and a copy of ``fast_fn``
with the dispatcher's loop inline (same checks, same order; a miss goes on to the real dispatcher). Not a runtime
change. Medians and minima, µs per call."""

import argparse
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../thunder/benchmarks"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../s14_scripts"))
from additivity import warm_hit  # noqa: E402
from hit_breakdown import timed_cases  # noqa: E402

import thunder  # noqa: E402
from thunder.fastpath.cache_hit import get_trace  # noqa: E402
from thunder.fastpath.guard import DECLINE, MISS  # noqa: E402


def inline_variant(jitted):
    """``fast_fn`` with ``dispatch``'s loop inline, over the same state."""
    state, dispatch, upstream_fn = jitted._lc_fastpath_state, jitted._lc_dispatch, jitted._lc_upstream
    cs = thunder.compile_stats(jitted)

    def fast_fn(*args, **kwargs):
        if get_trace(None) is not None:
            return upstream_fn(*args, **kwargs)
        cache = cs.interpreter_cache
        if cache is state.cache and len(cache) == state.n_entries:
            for call in state.calls:
                result = call(args, kwargs)
                if result is MISS:
                    continue
                if result is DECLINE:
                    break
                return result
        return dispatch(args, kwargs)  # stands for upstream_call: a miss takes the real path

    return fast_fn


def pieces_of(case):
    if isinstance(case.fn, torch.nn.Module):
        print(f"== {case.name}: a module (its call goes through FastThunderModule.__call__, not fast_fn); skipped")
        return None
    jitted, hit, work = warm_hit(case)
    args, call, dispatch = case.args, hit.call, jitted._lc_dispatch
    inline = inline_variant(jitted)
    hits_before = thunder.cache_hits(jitted)
    reference = jitted(*args)
    out = inline(*args)
    same = all(torch.equal(a, b) for a, b in zip(torch.utils._pytree.tree_leaves(out),
                                                  torch.utils._pytree.tree_leaves(reference)))
    assert same and thunder.cache_hits(jitted) == hits_before + 2
    return {
        "work": work,
        "hit function": lambda: call(args, {}),
        "dispatcher": lambda: dispatch(args, {}),
        "jitted call (fast_fn)": lambda: jitted(*args),
        "fast_fn, loop inline": lambda: inline(*args),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", default="two_8x8")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=41)
    opts = parser.parse_args()
    for case, pieces, times in timed_cases(opts.device, opts.cases, pieces_of, opts.number, opts.repeats):
        med = {p: statistics.median(v) for p, v in times.items()}
        print(f"== {case.name} on {opts.device}, {opts.repeats} x {opts.number} calls")
        print(f"{'piece':<26} {'median':>8} {'min':>8}")
        for piece, samples in times.items():
            print(f"{piece:<26} {med[piece]:8.3f} {min(samples):8.3f}")
        print(f"inline - as is (medians): {med['fast_fn, loop inline'] - med['jitted call (fast_fn)']:+.3f} us")


if __name__ == "__main__":
    main()
