"""Session 28: where FastThunderModule.__call__'s time goes (its checks against the call into it), on one case of
small_graph.py. Variants of __call__ are set on copies of the jitted module (same class otherwise); each row is
one call; rows interleaved repeat by repeat; minima and medians in µs.

    python benchmarks_results/s28_scripts/module_call_variants.py [--device cpu|cuda] [--case issue1657]
"""
import argparse
import statistics
import sys
import timeit

import torch
import torch.jit._trace as jit_trace
from torch.nn.modules import module as nn_module

sys.path.insert(0, "thunder/benchmarks")
import small_graph  # noqa: E402

import thunder  # noqa: E402
from thunder.fastpath.cache_hit import get_trace  # noqa: E402
from thunder.fastpath.guard import DECLINE, MISS  # noqa: E402
from thunder.fastpath.module import FastThunderModule  # noqa: E402


class OnlyDispatch(FastThunderModule):  # the frame and nothing else
    def __call__(self, *args, **kwargs):
        return self.__dict__["_forward_fn"]._lc_dispatch(args, kwargs)


class NoTraceCheck(FastThunderModule):  # current, less get_trace
    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_pre_hooks"] or d["_backward_hooks"]
                or "_compiled_call_impl" in d or "forward" in d
                or nn_module._global_forward_pre_hooks or nn_module._global_forward_hooks
                or nn_module._global_backward_pre_hooks or nn_module._global_backward_hooks
                or jit_trace._trace_module_map is not None):
            return d["_forward_fn"]._lc_dispatch(args, kwargs)
        return super().__call__(*args, **kwargs)


class NoGlobalChecks(FastThunderModule):  # current, less the five module-global reads
    def __call__(self, *args, **kwargs):
        if get_trace(None) is not None:
            return super().__call__(*args, **kwargs)
        d = self.__dict__
        if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_pre_hooks"] or d["_backward_hooks"]
                or "_compiled_call_impl" in d or "forward" in d):
            return d["_forward_fn"]._lc_dispatch(args, kwargs)
        return super().__call__(*args, **kwargs)


class InlineDispatch(FastThunderModule):  # current, with dispatch's loop for one guarded entry in the same frame
    def __call__(self, *args, **kwargs):
        if get_trace(None) is not None:
            return super().__call__(*args, **kwargs)
        d = self.__dict__
        if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_pre_hooks"] or d["_backward_hooks"]
                or "_compiled_call_impl" in d or "forward" in d
                or nn_module._global_forward_pre_hooks or nn_module._global_forward_hooks
                or nn_module._global_backward_pre_hooks or nn_module._global_backward_hooks
                or jit_trace._trace_module_map is not None):
            fast = d["_forward_fn"]
            state = fast._lc_fastpath_state
            cache = d["_lc_cs"].interpreter_cache  # set below for the experiment
            if cache is state.cache and len(cache) == state.n_entries and state.shape_index is None:
                for call in state.calls:
                    result = call(args, kwargs)
                    if result is MISS:
                        continue
                    if result is DECLINE:
                        break
                    return result
            return fast._lc_dispatch(args, kwargs)
        return super().__call__(*args, **kwargs)


class PlainObject:  # not a module: does nn.Module as the type cost anything?
    def __init__(self, module):
        self.module = module  # the guard holds it weakly
        self.dispatch = module._forward_fn._lc_dispatch

    def __call__(self, *args, **kwargs):
        return self.dispatch(args, kwargs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--case", default="issue1657")
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=15)
    a = parser.parse_args()
    case = {c.name: c for c in small_graph.make_cases(a.device)}[a.case]
    torch.set_grad_enabled(not case.inference)
    args = case.args

    def jitted():
        j = thunder.jit(case.fn, fastpath=True)
        for _ in range(3):
            j(*args)
        assert type(j) is FastThunderModule
        return j

    j = jitted()
    fast = j._forward_fn
    dispatch = fast._lc_dispatch
    hit = fast._lc_fastpath_state.hits[0].call
    rows = {
        "whole call (FastThunderModule.__call__)": lambda: j(*args),
        "fast_fn (the function's callable)": lambda: fast(*args),
        "dispatch(args, {})": lambda: dispatch(args, {}),
        "hit(args, {})": lambda: hit(args, {}),
    }
    for cls in (NoTraceCheck, NoGlobalChecks, OnlyDispatch):
        m = jitted()
        m.__class__ = cls
        rows[f"__call__ variant {cls.__name__}"] = lambda m=m: m(*args)
    m_inline = jitted()
    m_inline.__dict__["_lc_cs"] = thunder.compile_stats(m_inline)
    m_inline.__class__ = InlineDispatch
    rows["__call__ variant InlineDispatch"] = lambda: m_inline(*args)
    plain = PlainObject(jitted())
    rows["PlainObject.__call__ -> dispatch"] = lambda: plain(*args)
    rows["get_trace(None)"] = lambda: get_trace(None)
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    samples = {k: [] for k in rows}
    for _ in range(a.repeats):
        for k, f in rows.items():
            def loop(f=f):
                for _ in range(a.number):
                    f()
                sync()
            samples[k].append(timeit.timeit(loop, number=1) / a.number * 1e6)
    print(f"== {a.case} on {a.device}, python {sys.version.split()[0]}, number {a.number}, repeats {a.repeats}")
    for k, v in samples.items():
        print(f"{k:<45} min {min(v):8.3f}  median {statistics.median(v):8.3f} us")


if __name__ == "__main__":
    main()
