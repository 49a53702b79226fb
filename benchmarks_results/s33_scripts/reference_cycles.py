"""Session 33: what a dropped jitted callable leaves to Python's cycle collector, upstream against the fast path.

    .venv/bin/python benchmarks_results/s33_scripts/reference_cycles.py

Six callables (a function with keywords and nested outputs, a module trained and run under no_grad, BatchNorm in
train and eval, a view, an in-place update of aliased inputs, "symbolic values"), called until they hit. The
garbage of their compilation is collected while they are alive; then the cycle collector is switched off and they
are dropped. Prints, per path: whether each callable and the two modules were freed at once, how many objects a
collection then finds, and which of them are the fast path's own (types and functions of thunder.fastpath,
generated hit functions). Logs: logs/reference_cycles.log (this session's fix) and logs/reference_cycles_02ae19f.log
(session 32's runtime code: the fast path's two modules were not freed at once; run with the editable install's
MAPPING["thunder.fastpath"] pointed at a worktree of 02ae19f before the import).
"""

import collections
import gc
import weakref

import torch

import thunder
import thunder.fastpath  # noqa: F401


def jit_and_call(fastpath):
    a = torch.randn(3)
    mlp = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    bn = torch.nn.BatchNorm1d(3)
    f = thunder.jit(lambda x, y, *, s=1.0, d=None: (x * y * s, [x.sin(), {"k": y}]), fastpath=fastpath)
    for _ in range(3):
        f(a, a.clone(), s=2.0, d={"z": a})
    m = thunder.jit(mlp, fastpath=fastpath)
    for _ in range(3):
        m(a).sum().backward()
        with torch.no_grad():
            m(a)
    b = thunder.jit(bn, fastpath=fastpath)
    for train in (True, False, True, False):
        bn.train(train)
        b(torch.randn(4, 3))
    view = thunder.jit(lambda x: x.view(3) + 0, fastpath=fastpath)
    for _ in range(3):
        view(a)
    inplace = thunder.jit(lambda x, y: x.add_(y), fastpath=fastpath)
    for _ in range(3):
        c = torch.randn(3)
        inplace(c, c[:])
    symbolic = thunder.jit(lambda x, n: x * n, fastpath=fastpath, cache="symbolic values")
    for n in range(3):
        symbolic(a, n)
    jitted = [f, m, b, view, inplace, symbolic]
    hits = [thunder.cache_hits(x) for x in jitted]
    refs = [weakref.ref(x) for x in jitted] + [weakref.ref(mlp), weakref.ref(bn)]
    gc.collect()
    gc.disable()
    return refs, hits


def fastpath_objects(garbage):
    found = collections.Counter()
    for o in garbage:
        if (type(o).__module__ or "").startswith("thunder.fastpath"):
            found[type(o).__qualname__] += 1
        elif type(o).__name__ == "function" and (
            (o.__module__ or "").startswith("thunder.fastpath") or o.__code__.co_filename.startswith("thunder.fastpath")
        ):
            found[o.__qualname__] += 1
    return dict(found)


for fastpath in (False, True):
    try:
        refs, hits = jit_and_call(fastpath)
        freed = [r() is None for r in refs]
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        gc.set_debug(0)
        print(f"fastpath={fastpath}: hits {hits}; freed at once (6 callables, 2 modules) {freed}; "
              f"then collected {len(gc.garbage)} objects, the fast path's: {fastpath_objects(gc.garbage)}")
        gc.garbage.clear()
    finally:
        gc.enable()
