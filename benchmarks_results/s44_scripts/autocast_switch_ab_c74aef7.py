"""Session 44, first version (ran at c74aef7: device call A and autocast_switch_ab_cpu_c74aef7.log; the kept one is
autocast_switch_ab.py): a hit of an entry made under autocast, before and after the hit makes upstream's no_autocast switches
itself (cache_hit._with_autocast_off) instead of calling the decorated computation. "before" is jitted while
cache_hit._autocast_restored is patched to find nothing, which gives the decorated call of session 43; "after" is
jitted with the module as it is. Both, upstream and eager run side by side, interleaved repeat by repeat, under
bfloat16 autocast; µs per call, median and min of the repeats; outputs compared bitwise with upstream's.

    python autocast_switch_ab.py [cpu|cuda] [repeats]
"""
import statistics
import sys
import timeit

import torch

import thunder
import thunder.fastpath  # noqa: F401
from thunder.fastpath import cache_hit

device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 15
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(64, 256), torch.nn.Linear(256, 64)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


cases = {
    "linear_inference": (torch.nn.Linear(64, 64), torch.no_grad),
    "mlp_inference": (MLP(), torch.no_grad),
    "matmul_grad_on": (lambda a: torch.relu(a @ a.mT) + a.sum(), torch.enable_grad),  # the grad switch too
}
x = torch.randn(8, 64, device=device)
for name, (model, mode) in cases.items():
    if isinstance(model, torch.nn.Module):
        model.to(device)
    autocast = lambda: torch.autocast(device, dtype=torch.bfloat16)
    with mode(), autocast():
        upstream = thunder.jit(model, fastpath=False)
        original = cache_hit._autocast_restored
        cache_hit._autocast_restored = lambda fn: None
        try:
            before = thunder.jit(model, fastpath=True)
            before(x), before(x)
        finally:
            cache_hit._autocast_restored = original
        after = thunder.jit(model, fastpath=True)
        after(x), after(x)
        upstream(x), upstream(x)
        hits = {k: (j._forward_fn if isinstance(j, torch.nn.Module) else j)._lc_fastpath_state.hits[0]
                for k, j in (("before", before), ("after", after))}
        assert hits["before"].autocast_restored is None and hits["after"].autocast_restored is not None
        ref = upstream(x)
        for k, j in (("before", before), ("after", after)):
            out = j(x)
            assert out.dtype == ref.dtype and torch.equal(out, ref), k
        systems = {"eager": model, "upstream": upstream, "fast before": before, "fast after": after}
        number = 2000 if device == "cpu" else 1000
        samples = {k: [] for k in systems}
        for _ in range(repeats):
            for k, fn in systems.items():
                fn(x)
                sync()
                start = timeit.default_timer()
                for _ in range(number):
                    fn(x)
                sync()
                samples[k].append((timeit.default_timer() - start) / number * 1e6)
        calls_ok = [thunder.compile_stats(j).calls for j in (before, after)]
    print(f"== {name} ({device}, {repeats} repeats of {number} calls; outputs of both fast callables '=' upstream; "
          f"fast calls {calls_ok})")
    for k, s in samples.items():
        print(f"{k:12s} median {statistics.median(s):8.2f}  min {min(s):8.2f}")
    med = {k: statistics.median(s) for k, s in samples.items()}
    print(f"after - before: {med['fast after'] - med['fast before']:+.2f} us (medians); "
          f"after / upstream {med['fast after'] / med['upstream']:.3f}")
