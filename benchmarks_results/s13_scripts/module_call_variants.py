"""Session 13 experiment: what the module's __call__ and the dispatcher cost on a hit, and whether a __call__ that
runs the dispatcher's loop itself (one Python frame fewer) is cheaper. Interleaved, medians and minima of
`--repeats` timings of `--number` calls each. Variants are set on the jitted module's class for the run only."""

import argparse
import os
import statistics
import sys
import timeit

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../thunder/benchmarks"))
import small_graph  # noqa: E402

import thunder  # noqa: E402
from thunder.fastpath.guard import DECLINE, MISS  # noqa: E402
from thunder.fastpath.cache_hit import get_trace  # noqa: E402
from thunder.fastpath.module import FastThunderModule, jit_trace, nn_module  # noqa: E402


def variants_for(jm):
    fast = jm._forward_fn
    state, dispatch = fast._lc_fastpath_state, fast._lc_dispatch
    cs = thunder.compile_stats(jm)

    def loop(args, kwargs):
        # dispatch's loop, for the variants that run it in their own frame
        cache = cs.interpreter_cache
        if cache is state.cache and len(cache) == state.n_entries:
            for call in state.calls:
                result = call(args, kwargs)
                if result is MISS:
                    continue
                if result is DECLINE:
                    break
                return result
        return dispatch(args, kwargs)

    class InlineLoop(FastThunderModule):
        # FastThunderModule.__call__'s checks, all of them, then dispatch's loop in the same frame.
        def __call__(self, *args, **kwargs):
            if get_trace(None) is not None:
                return super().__call__(*args, **kwargs)
            d = self.__dict__
            if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_pre_hooks"] or d["_backward_hooks"]
                    or "_compiled_call_impl" in d or "forward" in d
                    or nn_module._global_forward_pre_hooks or nn_module._global_forward_hooks
                    or nn_module._global_backward_pre_hooks or nn_module._global_backward_hooks
                    or jit_trace._trace_module_map is not None):
                cache = cs.interpreter_cache
                if cache is state.cache and len(cache) == state.n_entries:
                    for call in state.calls:
                        result = call(args, kwargs)
                        if result is MISS:
                            continue
                        if result is DECLINE:
                            break
                        return result
                return dispatch(args, kwargs)
            return super().__call__(*args, **kwargs)

    class NoTraceCheck(FastThunderModule):
        def __call__(self, *args, **kwargs):
            d = self.__dict__
            if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_pre_hooks"] or d["_backward_hooks"]
                    or "_compiled_call_impl" in d or "forward" in d
                    or nn_module._global_forward_pre_hooks or nn_module._global_forward_hooks
                    or nn_module._global_backward_pre_hooks or nn_module._global_backward_hooks
                    or jit_trace._trace_module_map is not None):
                return d["_forward_fn"]._lc_dispatch(args, kwargs)
            return super().__call__(*args, **kwargs)

    class NoInstanceChecks(FastThunderModule):
        def __call__(self, *args, **kwargs):
            if get_trace(None) is not None:
                return super().__call__(*args, **kwargs)
            if not (nn_module._global_forward_pre_hooks or nn_module._global_forward_hooks
                    or nn_module._global_backward_pre_hooks or nn_module._global_backward_hooks
                    or jit_trace._trace_module_map is not None):
                return dispatch(args, kwargs)
            return super().__call__(*args, **kwargs)

    class NoGlobalChecks(FastThunderModule):
        def __call__(self, *args, **kwargs):
            if get_trace(None) is not None:
                return super().__call__(*args, **kwargs)
            d = self.__dict__
            if not (d["_forward_pre_hooks"] or d["_forward_hooks"] or d["_backward_pre_hooks"] or d["_backward_hooks"]
                    or "_compiled_call_impl" in d or "forward" in d):
                return d["_forward_fn"]._lc_dispatch(args, kwargs)
            return super().__call__(*args, **kwargs)

    class DictOnly(FastThunderModule):
        def __call__(self, *args, **kwargs):
            d = self.__dict__
            return dispatch(args, kwargs)

    class NoChecks(FastThunderModule):
        # A lower bound: a __call__ frame that only hands over to the dispatcher.
        def __call__(self, *args, **kwargs):
            return dispatch(args, kwargs)

    class NoChecksOwnLoop(FastThunderModule):
        def __call__(self, *args, **kwargs):
            return loop(args, kwargs)

    return {"FastThunderModule": FastThunderModule, "all checks, inline loop": InlineLoop,
            "without the trace check": NoTraceCheck, "without instance-dict checks": NoInstanceChecks,
            "without global checks": NoGlobalChecks, "self.__dict__ only": DictOnly, "no checks at all": NoChecks,
            "no checks, loop() of the script": NoChecksOwnLoop}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--cases", default="params_1")
    parser.add_argument("--number", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=21)
    a = parser.parse_args()
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    cases = {c.name: c for c in small_graph.make_cases(a.device)}
    for name in a.cases.split(","):
        case = cases[name]
        torch.set_grad_enabled(not case.inference)
        jm = thunder.jit(case.fn, fastpath=True)
        for _ in range(3):
            jm(*case.args)
        args, fast = case.args, jm._forward_fn
        hit = fast._lc_fastpath_state.hits[0]
        classes = variants_for(jm)
        pieces = {}
        for label, cls in classes.items():
            def whole(cls=cls):
                jm.__class__ = cls
                return lambda: jm(*args)
            pieces[f"module call: {label}"] = whole
        pieces["fast callable"] = lambda: (lambda: fast(*args))
        pieces["dispatch(args, {})"] = lambda: (lambda: fast._lc_dispatch(args, {}))
        pieces["hit function"] = lambda: (lambda: hit.call(args, {}))
        samples = {p: [] for p in pieces}
        for _ in range(a.repeats):
            for p, make in pieces.items():
                fn = make()
                def loop(fn=fn):
                    for _ in range(a.number):
                        fn()
                    sync()
                samples[p].append(timeit.timeit(loop, number=1) / a.number * 1e6)
        jm.__class__ = FastThunderModule
        print(f"== {name} on {a.device} ({'no_grad' if case.inference else 'grad enabled'}); median / min us")
        for p, s in samples.items():
            print(f"{p:<48} {statistics.median(s):8.3f} {min(s):8.3f}")
        torch.set_grad_enabled(True)


if __name__ == "__main__":
    main()
