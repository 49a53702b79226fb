"""Session 40: torch.utils.checkpoint (non-reentrant, reentrant) around a jitted function, with backward, and
torch.compile (backend "eager") of a jitted function; upstream against the fast path on this CPU: outcomes, outputs
and gradients bitwise, hits and misses. No difference (checkpoint works on both paths; torch.compile raises
RuntimeError on both).

    .venv/bin/python benchmarks_results/s40_scripts/checkpoint_compile_probe.py
"""
import pathlib, sys, torch, warnings
warnings.filterwarnings("ignore")
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "thunder" / "tests"))
from test_overhead import t, assert_bitwise, hits_misses
import thunder
from torch.utils.checkpoint import checkpoint
def f(a, b):
    return (a.sin() * b).sum()
res = {}
for fp in (False, True):
    j = thunder.jit(f, fastpath=fp)
    outs = []
    for reentrant in (False, True, False):
        a, b = t(3, 4, requires_grad=True), t(3, 4, seed=1)
        try:
            o = checkpoint(j, a, b, use_reentrant=reentrant); o.backward()
            outs.append(("ok", o.detach(), a.grad))
        except Exception as e:
            outs.append(("raised", type(e).__name__))
    try:
        c = torch.compile(j, backend="eager")
        a, b = t(3, 4), t(3, 4, seed=1)
        outs.append(("compile", c(a, b), c(a, b)))
    except Exception as e:
        outs.append(("compile raised", type(e).__name__, str(e)[:100]))
    res[fp] = (outs, hits_misses(j))
    print(fp, [o[0] if o[0] != "compile raised" else o[:2] for o in outs], hits_misses(j))
up, fa = res[False], res[True]
for x, y in zip(up[0], fa[0]):
    assert x[0] == y[0], (x, y)
    if x[0] in ("ok", "compile"):
        assert_bitwise(x[1:], y[1:])
print("same outcomes and values:", up[1] == fa[1])
