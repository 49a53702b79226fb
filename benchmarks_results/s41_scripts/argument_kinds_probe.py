"""Session 41: argument kinds and call-time state that test_overhead.py did not yet exercise, upstream (fastpath=False)
against the fast path in one process, with test_overhead.py's differential harness (outputs bitwise, exception types,
hits and misses after every call). Prints, per case, "same" and which calls the fast path served, or the first
difference.

    .venv/bin/python benchmarks_results/s41_scripts/argument_kinds_probe.py [cache option, default "constant values"]
"""
import collections
import enum
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "thunder", "tests"))
import test_overhead as T  # noqa: E402  (imports thunder.fastpath)
import thunder  # noqa: E402

Pair = collections.namedtuple("Pair", "a b")


class Level(enum.IntEnum):
    ONE = 1
    TWO = 2


class Name(str):
    pass


SCALE = 2.0


def scaled(a):
    return a * SCALE


def set_scale(v):
    global SCALE
    SCALE = v


def with_default(a, cfg=[1.0]):  # noqa: B006  (the point: a mutable default changed between calls)
    return a * cfg[0]


CACHE = sys.argv[1] if len(sys.argv) > 1 else "constant values"


def run(name, fn, calls, **opts):
    try:
        up, fast = T.run_differential(fn, calls, cache=CACHE, **opts)
        print(f"{name:28s} same   hits/misses {T.hits_misses(fast)}")
    except AssertionError as e:
        print(f"{name:28s} DIFFERS: {str(e).splitlines()[0][:150]}")
    except Exception as e:
        print(f"{name:28s} harness raised {type(e).__name__}: {str(e)[:150]}")


def C(make, **kw):
    return T.Call(make, **kw)


x = lambda: T.t(3)
seeded = lambda make: (lambda: (torch.manual_seed(5), make())[1])

run("dropout, same seed", lambda a: torch.nn.functional.dropout(a, 0.5),
    [C(seeded(lambda: ((x(),), {}))) for _ in range(4)])
run("randn_like, same seed", lambda a: a + torch.randn_like(a), [C(seeded(lambda: ((x(),), {}))) for _ in range(4)])
run("numpy float64 scalar", lambda a, n: a * n,
    [C(lambda: ((x(), 2.0), {})), C(lambda: ((x(), np.float64(2.0)), {})), C(lambda: ((x(), np.float64(3.0)), {})),
     C(lambda: ((x(), 2.0), {}))])
run("numpy int64 scalar", lambda a, n: a * n,
    [C(lambda: ((x(), 2), {})), C(lambda: ((x(), np.int64(2)), {})), C(lambda: ((x(), np.int64(3)), {})),
     C(lambda: ((x(), 2), {}))])
run("IntEnum", lambda a, n: a * n,
    [C(lambda: ((x(), 1), {})), C(lambda: ((x(), Level.ONE), {})), C(lambda: ((x(), Level.TWO), {})),
     C(lambda: ((x(), Level.ONE), {}))])
run("str subclass", lambda a, s: a * 2 if s == "d" else a,
    [C(lambda: ((x(), "d"), {})), C(lambda: ((x(), Name("d")), {})), C(lambda: ((x(), Name("e")), {}))])
run("namedtuple vs tuple", lambda p: p[0] + p[1] * 2,
    [C(lambda: (((x(), T.t(3, seed=1)),), {})), C(lambda: ((Pair(x(), T.t(3, seed=1)),), {})),
     C(lambda: ((Pair(x(), T.t(3, seed=1)),), {})), C(lambda: (((x(), T.t(3, seed=1)),), {}))])
run("namedtuple returned", lambda p: p,
    [C(lambda: ((Pair(x(), T.t(3, seed=1)),), {})), C(lambda: ((Pair(x(), T.t(3, seed=1)),), {})),
     C(lambda: (((x(), T.t(3, seed=1)),), {}))])
run("list vs tuple", lambda s: s[0] - s[1],
    [C(lambda: (([x(), T.t(3, seed=1)],), {})), C(lambda: (([x(), T.t(3, seed=1)],), {})),
     C(lambda: (((x(), T.t(3, seed=1)),), {})), C(lambda: (([x(), T.t(3, seed=1)],), {}))])
run("dict key order", lambda d: torch.cat(list(d.values())),
    [C(lambda: (({"a": x(), "b": T.t(2, seed=1)},), {})), C(lambda: (({"a": x(), "b": T.t(2, seed=1)},), {})),
     C(lambda: (({"b": T.t(2, seed=1), "a": x()},), {})), C(lambda: (({"a": x(), "b": T.t(2, seed=1)},), {}))])
run("dict returned", lambda d: {k: v * 2 for k, v in d.items()},
    [C(lambda: (({"a": x(), "b": T.t(2, seed=1)},), {})), C(lambda: (({"b": T.t(2, seed=1), "a": x()},), {}))])
run("kwargs order, returned", lambda **kw: list(kw),
    [C(lambda: ((), {"a": x(), "b": T.t(2, seed=1)})), C(lambda: ((), {"b": T.t(2, seed=1), "a": x()})),
     C(lambda: ((), {"a": x(), "b": T.t(2, seed=1)}))])
run("global changed", scaled,
    [C(lambda: ((x(),), {})), C(lambda: ((x(),), {})), C(lambda: (set_scale(3.0), ((x(),), {}))[1]),
     C(lambda: ((x(),), {}))])
set_scale(2.0)
run("mutable default changed", with_default,
    [C(lambda: ((x(),), {})), C(lambda: ((x(),), {})), C(lambda: (with_default.__defaults__[0].__setitem__(0, 3.0),
                                                               ((x(),), {}))[1]), C(lambda: ((x(),), {}))])
run("torch.Size argument", lambda a, s: a.reshape(s),
    [C(lambda: ((T.t(6), torch.Size([2, 3])), {})), C(lambda: ((T.t(6), torch.Size([2, 3])), {})),
     C(lambda: ((T.t(6), torch.Size([3, 2])), {})), C(lambda: ((T.t(6), (3, 2)), {}))])
run("complex scalar", lambda a, c: a * c,
    [C(lambda: ((x(), 2j), {})), C(lambda: ((x(), 2j), {})), C(lambda: ((x(), 3j), {}))])
run("0-dim tensor vs number", lambda a, n: a * n,
    [C(lambda: ((x(), torch.tensor(2.0)), {})), C(lambda: ((x(), torch.tensor(3.0)), {})),
     C(lambda: ((x(), 2.0), {})), C(lambda: ((x(), torch.tensor(2.0, dtype=torch.float64)), {}))])
run("meta tensors, two", lambda a, b: a + b,
    [C(lambda: ((torch.empty(3, device="meta"), torch.empty(3, device="meta")), {})) for _ in range(3)])
run("None then tensor kwarg", lambda a, b=None: a if b is None else a + b,
    [C(lambda: ((x(),), {})), C(lambda: ((x(),), {})), C(lambda: ((x(),), {"b": T.t(3, seed=1)})),
     C(lambda: ((x(),), {"b": None}))])
run("bytes/bytearray", lambda a, s: a * len(s),
    [C(lambda: ((x(), b"ab"), {})), C(lambda: ((x(), b"ab"), {})), C(lambda: ((x(), b"abc"), {}))])
run("set argument", lambda a, s: a * len(s),
    [C(lambda: ((x(), {1, 2}), {})), C(lambda: ((x(), {1, 2}), {})), C(lambda: ((x(), {1, 2, 3}), {}))])
run("range argument", lambda a, r: a * sum(r),
    [C(lambda: ((x(), range(3)), {})), C(lambda: ((x(), range(3)), {})), C(lambda: ((x(), range(4)), {}))])
