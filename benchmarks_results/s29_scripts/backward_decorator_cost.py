"""Session 29: what the decorators on Thunder's compiled backward (``@torch.no_grad()`` and ``@no_autocast``) cost per
call, timed on an empty function of the same arity (minima of 5 × 20000 calls, µs; the bare call included).

    python benchmarks_results/s29_scripts/backward_decorator_cost.py
"""
import timeit

import torch

from thunder.executors.torchex import no_autocast


def bare(saved, grads):
    return None


decorated = {
    "bare": bare,
    "no_autocast": no_autocast(bare),
    "no_grad + no_autocast": torch.no_grad()(no_autocast(bare)),
}
for name, fn in decorated.items():
    t = min(timeit.repeat(lambda: fn(1, 2), number=20000, repeat=5)) / 20000 * 1e6
    print(f"{t:6.2f}  {name}")
with torch.no_grad():  # as in a backward, where grad mode is off
    fn = decorated["no_grad + no_autocast"]
    t = min(timeit.repeat(lambda: fn(1, 2), number=20000, repeat=5)) / 20000 * 1e6
    print(f"{t:6.2f}  no_grad + no_autocast, called under no_grad")
