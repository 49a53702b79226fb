"""Session 41: training hits (an input requiring grad, so the fast path connects to autograd through
thunder/fastpath/autograd.py) under autograd contexts, upstream (fastpath=False) against the fast path: saved-tensors
hooks (a counting pair, and save_on_cpu), anomaly detection, backward twice with retain_graph, create_graph, a hook on
the output, torch.autograd.grad on an input alone. Each case prints, per system, per call: the outcome, the
gradient's first values, what the hooks saw, and the hits and misses; both lines of a case should read the same.

    .venv/bin/python benchmarks_results/s41_scripts/autograd_context_probe.py
"""
import contextlib
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "thunder", "tests"))
import test_overhead as T  # noqa: E402  (imports thunder.fastpath)
import thunder  # noqa: E402


def f(a, b):
    return (a.sin() * b).tanh()


def r(t):
    return [round(v, 5) for v in t.flatten()[:2].tolist()] if isinstance(t, torch.Tensor) else t


def counting_hooks(log):
    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return t

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t

    return torch.autograd.graph.saved_tensors_hooks(pack, unpack)


def step(j, how, log):
    a, b = T.t(3, 4, requires_grad=True), T.t(3, 4, seed=1)
    if how == "counting hooks":
        with counting_hooks(log):
            out = j(a, b)
        out.sum().backward()
    elif how == "save_on_cpu":
        with torch.autograd.graph.save_on_cpu():
            out = j(a, b)
        out.sum().backward()
    elif how == "anomaly mode":
        with torch.autograd.set_detect_anomaly(True):
            out = j(a, b)
            out.sum().backward()
    elif how == "backward twice":
        out = j(a, b)
        out.sum().backward(retain_graph=True)
        out.sum().backward()
    elif how == "create_graph":
        out = j(a, b)
        (g,) = torch.autograd.grad(out.sum(), a, create_graph=True)
        log.append(("grad requires_grad", g.requires_grad))
        g.sum().backward()
    elif how == "hook on output":
        out = j(a, b)
        out.register_hook(lambda g: log.append(("hook", r(g))) or g * 3)
        out.sum().backward()
    elif how == "autograd.grad":
        out = j(a, b)
        (g,) = torch.autograd.grad(out.sum(), [a])
        return r(out), r(g)
    elif how == "backward twice, no retain":
        out = j(a, b)
        out.sum().backward()
        out.sum().backward()
    return r(out), r(a.grad)


for how in ["counting hooks", "save_on_cpu", "anomaly mode", "backward twice", "create_graph", "hook on output",
            "autograd.grad", "backward twice, no retain"]:
    for fastpath in (False, True):
        j = thunder.jit(f, fastpath=fastpath)
        seen = []
        for i in range(3):
            log = []
            T.took_fast_path.stamp = thunder.compile_stats(j).last_trace_host_start
            try:
                res = step(j, how, log)
            except Exception as e:
                res = f"raised {type(e).__name__}: {str(e)[:70]}"
            seen.append((res, log, T.hits_misses(j), "fast" if T.took_fast_path(j) else "upstream"))
        print(f"{how:26s} fastpath={fastpath!s:5s} {seen}")
