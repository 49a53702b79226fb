"""Cache hit functions and object lifetimes (no reference cycles, no tensors kept) and threads (each thread's grad mode,
exact counters, entries made by one thread serving another)."""

from __future__ import annotations

import contextlib
import gc
import threading
import weakref

import pytest
import torch

import thunder
from thunder.tests.cache_hit_harness import EXECUTORS, hits_misses, served_by_hit_fn, t
from thunder.tests.framework import NOTHING, instantiate


@contextlib.contextmanager
def cycle_collector_off():
    """Collects earlier reference cycles, then keeps the cycle collector off: what is freed inside is freed by
    reference counting alone."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def run_in_threads(n_threads: int, work) -> list[str]:
    """Runs ``work(k)`` in ``n_threads`` threads started together. Returns the exceptions they raised, as reprs."""
    errors, barrier = [], threading.Barrier(n_threads)

    def run(k):
        barrier.wait()
        try:
            work(k)
        except Exception as e:
            errors.append(repr(e))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def jitted_and_called(fastpath, device, executors):
    """A function (with the default cache and "symbolic values") and a module, jitted and called until each hit (the
    module with and without grad, backward included), a module called once, and the module they wrap."""
    a = t(3).to(device)
    linear = torch.nn.Linear(3, 2).to(device)
    fn = thunder.jit(lambda x, y: x * y + 1, fastpath=fastpath, executors=executors)
    symbolic = thunder.jit(lambda x, n: x * n, fastpath=fastpath, executors=executors, cache="symbolic values")
    module = thunder.jit(linear, fastpath=fastpath, executors=executors)
    for n in (2, 3):
        fn(a, a.clone())
        symbolic(a, n)
        with torch.no_grad():
            module(a)
        module(a).sum().backward()
    assert [thunder.cache_hits(f) for f in (fn, symbolic, module)] == [1, 1, 2]
    assert all(served_by_hit_fn(f) is fastpath for f in (fn, symbolic, module))
    called_once = thunder.jit(torch.nn.ReLU(), fastpath=fastpath)
    called_once(a)
    return fn, symbolic, module, called_once, linear


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_jitted_callables_are_freed_by_reference_counting(executor, device, _):
    # As Thunder's test_jit_nn_module_cycle_leak requires of a jitted module: hit functions make no reference cycle
    # that would keep a dropped callable, or the module it wraps, alive until the cycle collector runs.
    freed = {}
    for fastpath in (False, True):
        objects = jitted_and_called(fastpath, device, executor.executors_list())
        refs = [weakref.ref(x) for x in objects]
        with cycle_collector_off():
            del objects
            freed[fastpath] = [r() is None for r in refs]
    assert freed[True] == freed[False] == [True] * 5


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_inputs_and_outputs_are_freed_at_once(executor, device, _):
    # Hit functions are made from an entry's traces: they keep no call's tensors, and a hit keeps none either.
    executors = executor.executors_list()
    calls = [  # (grad mode, kind of `a`, hit)
        (True, "contiguous", False),
        (True, "contiguous", True),
        (True, "strided", True),
        (False, "contiguous", False),
        (False, "strided", True),
        (True, "requires_grad", False),
        (True, "requires_grad", True),
    ]
    freed = {}
    for fastpath in (False, True):
        fn = thunder.jit(lambda a, b: a * b + a, fastpath=fastpath, executors=executors)
        module = thunder.jit(torch.nn.Linear(3, 2).to(device), fastpath=fastpath, executors=executors)
        refs = []
        with cycle_collector_off():
            for grad, kind, hit in calls:
                a = (
                    t(6).to(device)[::2]
                    if kind == "strided"
                    else t(3, requires_grad=kind == "requires_grad").to(device)
                )
                b = t(3, seed=1).to(device)
                with torch.set_grad_enabled(grad):
                    out, module_out = fn(a, b), module(a)
                assert served_by_hit_fn(fn) == served_by_hit_fn(module) == (hit and fastpath)
                refs += [weakref.ref(x) for x in (a, b, out, module_out)]
                del a, b, out, module_out
            freed[fastpath] = [r() is None for r in refs]
        hits = sum(hit for *_, hit in calls)
        assert hits_misses(fn) == hits_misses(module) == (hits, len(calls) - hits)
        for jitted in (fn, module):
            hit_fns = [entry.hit_fn for entry in thunder.compile_stats(jitted).interpreter_cache]
            assert all(f is None for f in hit_fns) if not fastpath else all(hit_fns)
            for hit_fn in filter(None, hit_fns):
                held = [*hit_fn.__globals__.values(), *(c.cell_contents for c in hit_fn.__closure__ or ())]
                assert not any(isinstance(x, torch.Tensor) for x in held)
    assert freed[True] == freed[False] == [True] * 4 * len(calls)


@pytest.mark.parametrize("fastpath", [False, True])
def test_threads_making_the_first_calls_at_once(fastpath):
    # Threads call one function over several shapes from the start, so entries are made while other threads call it.
    # Each call returns eager's result and is counted once; afterwards each call is a hit.
    def f(a, b):
        return a.sin() * b + a.shape[0]

    n_threads, n_calls, sizes = 6, 40, range(2, 6)
    inputs = {n: (t(n, 8, seed=n), t(n, 8, seed=n + 1)) for n in sizes}
    expected = {n: f(*args) for n, args in inputs.items()}
    jitted = thunder.jit(f, fastpath=fastpath)
    outcomes = []

    def work(k):
        for i in range(n_calls):
            n = sizes[(k + i) % len(sizes)]
            outcomes.append(torch.equal(jitted(*inputs[n]), expected[n]))

    assert run_in_threads(n_threads, work) == []
    assert outcomes == [True] * (n_threads * n_calls)
    hits, misses = hits_misses(jitted)
    assert hits + misses == thunder.compile_stats(jitted).calls == n_threads * n_calls
    assert len(sizes) <= misses == len(thunder.compile_stats(jitted).interpreter_cache) <= n_threads * len(sizes)
    for i in range(2 * len(sizes)):
        n = sizes[i % len(sizes)]
        assert torch.equal(jitted(*inputs[n]), expected[n])
        assert served_by_hit_fn(jitted) is fastpath
    assert hits_misses(jitted) == (hits + 2 * len(sizes), misses)


@pytest.mark.parametrize("fastpath", [False, True])
def test_module_called_from_threads_in_both_grad_modes(fastpath):
    # One grad mode per thread, shared by the compile data's is_grad_enabled: a thread under no_grad must not make
    # another thread's entry for grad mode without its backward, nor leave a call with the other's grad mode.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    jitted = thunder.jit(model, fastpath=fastpath)
    inputs = [t(n, 8, seed=n) for n in (1, 3)]
    with torch.no_grad():
        expected = [model(x) for x in inputs]
    outcomes = []

    def work(k):
        for i in range(40):
            grad = (k + i // 2) % 2 == 0
            with torch.set_grad_enabled(grad):
                out = jitted(inputs[(k + i) % 2])
                outcomes.append((torch.allclose(out.detach(), expected[(k + i) % 2]), out.requires_grad == grad))
                assert torch.is_grad_enabled() == grad

    assert run_in_threads(4, work) == []
    assert outcomes == [(True, True)] * 4 * 40
    hits, misses = hits_misses(jitted)
    assert hits + misses == thunder.compile_stats(jitted).calls == 4 * 40 and 4 <= misses <= 4 * 4
    for i in range(12):
        with torch.set_grad_enabled(i % 4 < 2):
            out = jitted(inputs[i % 2])
        assert out.requires_grad == (i % 4 < 2) and served_by_hit_fn(jitted) is fastpath
    assert hits_misses(jitted) == (hits + 12, misses)
