"""Session 44: what each layer of an entry's decorated computation costs under autocast, for the two forms of this
session's change: nn.Linear(64, 64)'s entry made under CPU bfloat16 autocast in inference; its computation called
decorated (session 43's hit), through upstream's no_autocast layer only (the kept form, a3169da), bare with the
autocast switch written out as c74aef7's generated hit made it, and bare under autocast (not a valid call: the floor).
Minimum of 7 repeats of 3,000 calls, four rounds, µs per call.

    python autocast_layers.py
"""
import timeit
import warnings

import torch

import thunder
import thunder.fastpath  # noqa: F401

warnings.simplefilter("ignore")
lin = torch.nn.Linear(64, 64)
x = torch.randn(8, 64)
jitted = thunder.jit(lin)
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    for _ in range(3):
        jitted(x)
    hit = jitted._forward_fn._lc_fastpath_state.hits[0]
    decorated = hit.entry.computation_fn
    no_autocast_layer = decorated.__wrapped__
    bare = no_autocast_layer.__wrapped__
    set_autocast = torch.set_autocast_enabled
    w, b = lin.weight, lin.bias

    def switched():
        set_autocast("cpu", False)
        try:
            return bare(x, b, w)
        finally:
            set_autocast("cpu", True)

    calls = {
        "decorated (session 43)": lambda: decorated(x, b, w),
        "no_autocast layer (kept)": lambda: no_autocast_layer(x, b, w),
        "switch written out (c74aef7)": switched,
        "bare (floor)": lambda: bare(x, b, w),
    }
    for _ in range(4):
        print({k: round(min(timeit.repeat(f, number=3000, repeat=7)) / 3000 * 1e6, 2) for k, f in calls.items()})
