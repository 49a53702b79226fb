"""Session 44: a hit of an entry made under autocast, before and after the hit calls the computation through upstream's
no_autocast decorator alone, without its torch.no_grad() decorator (cache_hit.CacheHit, ``_undecorated(fn, True)``).
"before" is jitted while cache_hit._undecorated is patched to hand back the decorated function for such entries and
cache_hit.build_guard to mark their guards as made with grad mode off (no grad switch around the decorated call):
session 43's hit; "after" is jitted with the module as it is. Cases: inference under no_grad (no grad switch either
way) and a training step (forward and backward: the hit's computation and epilogue, and the backward, which is
upstream's and unchanged). A first version of this session's change
made the autocast switches in the generated hit function itself (commit c74aef7; its log is
autocast_switch_ab_cpu.log and h200_s44/callA); the version kept calls upstream's no_autocast layer instead.
Both fast callables, upstream and eager run side by side, interleaved repeat by repeat, under bfloat16 autocast; µs
per call, median and min of the repeats; outputs compared bitwise with upstream's.

    python autocast_switch_ab.py [cpu|cuda] [repeats] [case,case,...]   (cases: all by default; the third argument
    came in session 45, whose device call ran the training case alone)
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
only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(64, 256), torch.nn.Linear(256, 64)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


cases = {
    "linear_inference": (torch.nn.Linear(64, 64), torch.no_grad, False),
    "mlp_inference": (MLP(), torch.no_grad, False),
    "mlp_train_step": (MLP(), torch.enable_grad, True),
}
x = torch.randn(8, 64, device=device)
for name, (model, mode, backward) in cases.items():
    if only is not None and name not in only:
        continue
    if isinstance(model, torch.nn.Module):
        model.to(device)
    autocast = lambda: torch.autocast(device, dtype=torch.bfloat16)
    with mode(), autocast():
        upstream = thunder.jit(model, fastpath=False)
        original, original_build = cache_hit._undecorated, cache_hit.build_guard

        def build_as_in_session_43(*a, **k):
            guard = original_build(*a, **k)
            if guard.autocast is not None:
                guard.grad_enabled = False  # session 43: grad_off False, the decorated call switches grad mode
            return guard

        cache_hit._undecorated = lambda fn, keep_no_autocast=False: fn if keep_no_autocast else original(fn)
        cache_hit.build_guard = build_as_in_session_43
        try:
            before = thunder.jit(model, fastpath=True)
            before(x), before(x)
        finally:
            cache_hit._undecorated, cache_hit.build_guard = original, original_build
        after = thunder.jit(model, fastpath=True)
        after(x), after(x)
        upstream(x), upstream(x)
        hits = {k: (j._forward_fn if isinstance(j, torch.nn.Module) else j)._lc_fastpath_state.hits[0]
                for k, j in (("before", before), ("after", after))}
        assert hits["before"].computation.__code__.co_name == "decorate_context"  # torch.no_grad()'s
        assert hits["after"].computation.__code__.co_name == "no_autocast_fn"
        assert not hits["before"].grad_off and hits["after"].grad_off == backward
        def step(fn):
            if not backward:
                return fn(x)
            for p in model.parameters():
                p.grad = None
            out = fn(x)
            out.float().sum().backward()
            return out.detach(), *(p.grad for p in model.parameters())

        ref = step(upstream)
        ref = ref if backward else (ref,)
        for k, j in (("before", before), ("after", after)):
            out = step(j)
            out = out if backward else (out,)
            assert len(out) == len(ref), k
            assert all(o.dtype == r.dtype and torch.equal(o, r) for o, r in zip(out, ref)), k
        systems = {k: (lambda fn=fn: step(fn)) for k, fn in
                   (("eager", model), ("upstream", upstream), ("fast before", before), ("fast after", after))}
        number = 2000 if device == "cpu" else 1000
        samples = {k: [] for k in systems}
        for _ in range(repeats):
            for k, fn in systems.items():
                fn()
                sync()
                start = timeit.default_timer()
                for _ in range(number):
                    fn()
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
