"""Session 40: torch.func transforms over a jitted function, and torch.func.functional_call over a jitted module,
upstream (fastpath=False) against the fast path, on this CPU. Prints each call's outcome (the first values, or the
exception) and the hits and misses after it; the two halves of the output should read the same.
(A first version did not import thunder.fastpath, so `fastpath=True` was an unknown compile option that upstream
ignored and both halves ran upstream's path; this one imports it, as test_overhead.py does.)

    .venv/bin/python benchmarks_results/s40_scripts/func_transforms_probe.py
"""
import copy

import torch

import thunder
import thunder.fastpath  # noqa: F401  (the `fastpath=` switch of thunder.jit)


def f(a):
    return (a.sin() * 2).sum()


def outcome(call):
    try:
        return ("ok", [round(v, 6) for v in call().flatten()[:3].tolist()])
    except Exception as e:
        return ("raised", type(e).__name__, str(e)[:100])


def leaked_batched_tensor():
    leaked = []
    torch.vmap(lambda a: leaked.append(a) or a)(x)
    return leaked[0]


x = torch.randn(3, 4, generator=torch.Generator().manual_seed(0))
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
swapped = {name: torch.randn_like(p) for name, p in model.named_parameters()}
for fastpath in (False, True):
    print(f"== fastpath={fastpath}")
    j = thunder.jit(f, fastpath=fastpath)
    j(x[0])
    j(x[0])
    for name, call in [("vmap", lambda: torch.vmap(j)(x)), ("func.grad", lambda: torch.func.grad(j)(x[0])),
                       ("jacrev", lambda: torch.func.jacrev(j)(x[0])),
                       ("functionalize", lambda: torch.func.functionalize(j)(x[0])),
                       ("leaked from vmap", lambda: j(leaked_batched_tensor())), ("plain call", lambda: j(x[0]))]:
        print(f"{name:16s}", outcome(call), "hits/misses", thunder.cache_hits(j), thunder.cache_misses(j))
    m = thunder.jit(copy.deepcopy(model), fastpath=fastpath)
    m(x)
    for name, call in [("functional_call", lambda: torch.func.functional_call(m, swapped, (x,), strict=True)),
                       ("plain call", lambda: m(x))]:
        print(f"{name:16s}", outcome(call), "hits/misses", thunder.cache_hits(m), thunder.cache_misses(m))
print("eager functional_call", outcome(lambda: torch.func.functional_call(model, swapped, (x,))))
print("eager plain call     ", outcome(lambda: model(x)))
