"""Session 44: why a hit of linear_autocast costs more than its guard and computation timed apart (hit_breakdown.py,
this CPU: hit function 37.78, guard 1.78, computation 32.18 µs). The guard's lines, cut after the k-th, each cut
compiled into a function with the hit function's globals and called just before the computation (as the hit does);
minimum of 2 × 5 repeats of 3,000 calls, µs per (guard part + computation).

    python guard_lines_in_context.py
"""
import timeit
import warnings

import torch

import thunder
import thunder.fastpath  # noqa: F401

warnings.simplefilter("ignore")
lin = torch.nn.Linear(64, 64)
x = torch.randn(8, 64)
tm = thunder.jit(lin)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    for _ in range(3): tm(x)
    hit = tm._forward_fn._lc_fastpath_state.hits[0]
    comp = hit.computation
    prepared = hit.guard.check((x,), {})[0]
    src = hit.source.splitlines()
    body = src[2:src.index("    except Exception:")]
    ns = dict(hit.call.__globals__)
    args = (x,)
    for k in [0, 2, 5, 9, 13, 16, 20, 21, 22, 23, 24, 25, 28]:
        if k > len(body): continue
        lines = ["def f(args, kwargs):", "    try:"] + body[:k] + ["        pass", "    except Exception:", "        return 1", "    return None"]
        try:
            exec("\n".join(lines), ns)
        except SyntaxError:
            continue
        f = ns["f"]
        def both(): f(args, {}); return comp(*prepared)
        t = [min(timeit.repeat(both, number=3000, repeat=5))/3000*1e6 for _ in range(2)]
        print(k, body[k-1].strip()[:70] if k else "-", round(min(t), 2))
