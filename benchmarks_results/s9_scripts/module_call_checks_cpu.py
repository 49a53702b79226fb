"""What FastThunderModule.__call__'s checks cost on this CPU: the current __call__ against a lower bound that only
forwards to the dispatcher (not exact: it ignores hooks), and the dispatcher alone; minima of 7 x 3 x 20,000 calls.

    .venv/bin/python benchmarks_results/s9_scripts/module_call_checks_cpu.py
"""
import timeit, torch, thunder, thunder.fastpath
from thunder.fastpath.module import FastThunderModule
class M(torch.nn.Module):
    def __init__(s): super().__init__(); s.w = torch.nn.Parameter(torch.randn(8))
    def forward(s, x): return x * s.w
m = thunder.jit(M()); x = torch.randn(8)
class Bound(FastThunderModule):
    def __call__(self, *args, **kwargs):
        return self.__dict__["_forward_fn"]._lc_dispatch(args, kwargs)
with torch.no_grad():
    m(x); m(x)
    disp = m._forward_fn._lc_dispatch; args = (x,); kw = {}
    res = {k: [] for k in ("current", "lower_bound", "dispatch")}
    for _ in range(7):
        m.__class__ = FastThunderModule
        res["current"].append(min(timeit.repeat(lambda: m(x), number=20000, repeat=3)) / 20000 * 1e6)
        m.__class__ = Bound
        res["lower_bound"].append(min(timeit.repeat(lambda: m(x), number=20000, repeat=3)) / 20000 * 1e6)
        res["dispatch"].append(min(timeit.repeat(lambda: disp(args, kw), number=20000, repeat=3)) / 20000 * 1e6)
    m.__class__ = FastThunderModule
    print({k: round(min(v), 3) for k, v in res.items()})
