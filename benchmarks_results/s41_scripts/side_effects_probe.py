"""Session 41: functions with side effects on their arguments, globals and module attributes, upstream
(fastpath=False) against the fast path, with test_overhead.py's harness. For each case, prints per system the
results, the side effect's state after every call, and the hits and misses; the two lines of a case should read the
same.

    .venv/bin/python benchmarks_results/s41_scripts/side_effects_probe.py
"""
import os
import sys
import types

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "thunder", "tests"))
import test_overhead as T  # noqa: E402  (imports thunder.fastpath)
import thunder  # noqa: E402


def show(v):
    if isinstance(v, torch.Tensor):
        return [round(e, 4) for e in v.flatten()[:2].tolist()]
    if isinstance(v, (list, tuple)):
        return type(v)([show(e) for e in v])
    if isinstance(v, dict):
        return {k: show(e) for k, e in v.items()}
    if isinstance(v, types.SimpleNamespace):
        return show(vars(v))
    return v


def outcome(call):
    try:
        return show(call())
    except Exception as e:
        return f"raised {type(e).__name__}: {str(e)[:80]}"


LOG = []


def append_global(a):
    LOG.append(a * 2)
    return a + 1


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.lin(x) * self.calls


class Caching(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.last = None

    def forward(self, x):
        self.last = x * 2
        return self.lin(x)


cases = {
    "list.append on argument": (lambda a, lst: (lst.append(a * 2), a + 1)[1], lambda: (T.t(3), [])),
    "dict setitem on argument": (lambda a, d: (d.__setitem__("k", a * 3), a + 1)[1], lambda: (T.t(3), {})),
    "setattr on argument": (lambda a, o: (setattr(o, "v", a * 4), a + 1)[1], lambda: (T.t(3), types.SimpleNamespace())),
    "list item replaced": (lambda a, lst: (lst.__setitem__(0, a * 5), a + 1)[1], lambda: (T.t(3), [None])),
    "global list append": (append_global, lambda: (T.t(3),)),
}
for name, (fn, make) in cases.items():
    for fastpath in (False, True):
        LOG.clear()
        j = thunder.jit(fn, fastpath=fastpath)
        seen = []
        for _ in range(3):
            args = make()
            res = outcome(lambda: j(*args))
            seen.append((res, show(args[1:]) if len(args) > 1 else show(LOG)))
        print(f"{name:26s} fastpath={fastpath!s:5s} {seen} {T.hits_misses(j)}")
for name, cls in [("module counter attribute", Counter), ("module tensor attribute", Caching)]:
    for fastpath in (False, True):
        torch.manual_seed(0)
        m = thunder.jit(cls(), fastpath=fastpath)
        seen = []
        for _ in range(3):
            res = outcome(lambda: m(T.t(2, 3)))
            attr = m._model.calls if cls is Counter else show(m._model.last)
            seen.append((res, attr))
        print(f"{name:26s} fastpath={fastpath!s:5s} {seen} {T.hits_misses(m)}")
