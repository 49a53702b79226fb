"""Arguments that lightning-thunder 0.2.6's prologue neither unpacks nor checks: found by the OpInfo search's getitem
under "symbolic values" on CUDA (session 25, call D). Each row jits a function twice (upstream: fastpath=False;
fast), calls it with a first argument value, then with a second one, and reports whether the second call's result
equals eager PyTorch's, and both callables' hits and misses. A hit with a wrong result is upstream's: the fast path
must (and does) behave the same way, since a call that its guard declined would go through upstream's own lookup.

Usage: python unchecked_arguments.py
"""

import torch

import thunder
import thunder.fastpath


def index(x, k):
    return x[k]


def branch_on_none(x, flag):
    return x if flag is None else x * 2


ROWS = [
    (index, 0, 1),
    (index, Ellipsis, 0),
    (index, None, 0),
    (index, None, Ellipsis),
    (index, Ellipsis, (slice(0, 1), 1)),
    (index, (0, None), (1, None)),
    (branch_on_none, None, 1.0),
    (branch_on_none, None, "a string"),
    (branch_on_none, None, Ellipsis),
    (branch_on_none, Ellipsis, None),
    (branch_on_none, 1.0, None),
]


def second_call(fn, first, second, fastpath):
    x = torch.arange(12.0).reshape(3, 4)
    jitted = thunder.jit(fn, fastpath=fastpath)
    jitted(x, first)
    try:
        out = jitted(x, second)
        verdict = "correct" if torch.equal(out, fn(x, second)) else f"WRONG (shape {tuple(out.shape)})"
    except Exception as e:
        verdict = f"raised {type(e).__name__}"
    return verdict, (thunder.cache_hits(jitted), thunder.cache_misses(jitted))


def main():
    print(f"{'function':16} {'first':>22} {'second':>30}  {'upstream':28} {'fast':28} same")
    for fn, first, second in ROWS:
        up = second_call(fn, first, second, False)
        fast = second_call(fn, first, second, True)
        fmt = lambda r: f"{r[0]} h{r[1][0]} m{r[1][1]}"
        print(f"{fn.__name__:16} {first!r:>22} {second!r:>30}  {fmt(up):28} {fmt(fast):28} {up == fast}")


if __name__ == "__main__":
    main()
