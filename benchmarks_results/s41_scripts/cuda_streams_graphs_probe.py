"""Session 41 (needs CUDA and nvFuser): hits of a jitted function's nvFuser region on a side stream and inside
torch.cuda.graph capture, upstream (fastpath=False) against the fast path. Prints, per system and case, the outcome
(first values or the exception), whether the outputs equal eager's bitwise-close, and the hits and misses; both lines
of a case should read the same.

    python3 benchmarks_results/s41_scripts/cuda_streams_graphs_probe.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "thunder", "tests"))
import test_overhead as T  # noqa: E402  (imports thunder.fastpath)
import thunder  # noqa: E402


def f(a, b):
    return (a.sin() * b + 1).relu()


def r(t):
    return [round(v, 5) for v in t.flatten()[:2].tolist()]


def side_stream(j, a, b):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        outs = [j(a, b) for _ in range(3)]
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    return outs[-1]


def graph_capture(j, a, b):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm-up on a side stream, as torch.cuda.graph's docs ask
        for _ in range(3):
            j(a, b)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = j(a, b)
    with torch.no_grad():
        a.copy_(a * 2)  # new input values, replayed into the captured output
    g.replay()
    torch.cuda.synchronize()
    return out


def graph_capture_with_grad(j, a, b):
    a.requires_grad_()
    return graph_capture(j, a, b)


for name, case in [("side stream", side_stream), ("graph capture", graph_capture),
                   ("graph capture, grad input", graph_capture_with_grad)]:
    for fastpath in (False, True):
        j = thunder.jit(f, fastpath=fastpath)
        a, b = T.t(64, 64).cuda(), T.t(64, 64, seed=1).cuda()
        j(T.t(64, 64).cuda(), T.t(64, 64, seed=1).cuda())  # the entry, before the case
        try:
            out = case(j, a, b)
            eager = f(a.detach(), b)
            res = (r(out), "equals eager" if torch.allclose(out, eager, rtol=1e-6, atol=1e-6) else "DIFFERS from eager",
                   f"requires_grad={out.requires_grad}", type(out.grad_fn).__name__)
        except Exception as e:
            res = f"raised {type(e).__name__}: {str(e)[:90]}"
        print(f"{name:26s} fastpath={fastpath!s:5s} {res} {T.hits_misses(j)}", flush=True)
