"""Session 43: what an entry made under autocast adds to its guard. Two jitted nn.Linear(64, 64), one called under
CPU bfloat16 autocast and one without, in inference; each guard timed on its own state (interleaved, 15 repeats of
20,000 calls; min and median, µs per call), with the autocast queries that the autocast guard adds."""
import statistics
import timeit

import torch

import thunder
import thunder.fastpath  # noqa: F401

x = torch.randn(8, 64)
plain, under_autocast = thunder.jit(torch.nn.Linear(64, 64)), thunder.jit(torch.nn.Linear(64, 64))
bf16 = torch.autocast("cpu", dtype=torch.bfloat16)
with torch.no_grad():
    for _ in range(2):
        plain(x)
        with bf16:
            under_autocast(x)
    checks = {name: j._forward_fn._lc_fastpath_state.hits[0].guard.check for name, j in
              (("guard, no autocast", plain), ("guard, autocast", under_autocast))}
    calls = {
        "guard, no autocast": (lambda: checks["guard, no autocast"]((x,), {}), False),
        "guard, autocast": (lambda: checks["guard, autocast"]((x,), {}), True),
        "is_autocast_enabled('cpu')": (lambda: torch.is_autocast_enabled("cpu"), True),
        "get_autocast_dtype('cpu')": (lambda: torch.get_autocast_dtype("cpu"), True),
    }
    samples = {name: [] for name in calls}
    for _ in range(15):
        for name, (call, autocast) in calls.items():
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
                assert name.startswith("guard") is False or isinstance(call(), tuple)
                samples[name].append(timeit.timeit(call, number=20000) / 20000 * 1e6)
for name, s in samples.items():
    print(f"{name:28s} min {min(s):6.3f}  median {statistics.median(s):6.3f}")
