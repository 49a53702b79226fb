"""Object lifetimes and threads: a jitted callable, its inputs and outputs are freed as Thunder's are (no reference
cycle, nothing kept); threads that call one jitted callable each keep their own grad mode, and the entries they make
get their guards and serve later hits (NOTE "Threads" in thunder/fastpath/publication.py).
"""

from __future__ import annotations

import contextlib
import gc
import threading
import weakref

import pytest
import torch

import thunder
import thunder.fastpath
from thunder.tests.framework import NOTHING, instantiate

from fastpath_harness import (
    EXECUTORS,
    assert_counts_add_up,
    hits_misses,
    run_in_threads,
    t,
)


@contextlib.contextmanager
def cycle_collector_off():
    """Collects what earlier code left in reference cycles (Thunder's tracing leaves some that hold the module it
    traced), then keeps the cycle collector off: what is freed inside was freed by reference counting alone, as
    soon as its last reference went."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _jitted_and_called(fastpath, device, executors):
    """A function (default cache and "symbolic values") and a module, jitted and called until each hits (the module
    with and without grad, backward included), and the module they wrap."""
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
    assert (thunder.cache_hits(fn), thunder.cache_hits(symbolic), thunder.cache_hits(module)) == (1, 1, 2)
    return fn, symbolic, module, linear


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_jitted_callables_are_freed_without_the_cycle_collector_like_upstream(executor, device, _):
    # The fast callable, its guards and the module's weak reference must not keep a dropped callable (and the module
    # it wraps, with its parameters) alive where Thunder's is freed. Thunder's callables make no reference cycle
    # (its test_jit_nn_module_cycle_leak checks that a jitted CUDA module's memory is freed as soon as the last
    # reference goes): the fast path's guards, generated hit functions and state must not make one either, or the
    # module would live on until the cycle collector ran. (Freed at once implies collected: this test replaces
    # test_jitted_callables_are_collected_like_upstream, which called gc.collect() first.)
    executors = executor.executors_list()
    freed = {}
    for fastpath in (False, True):
        objects = _jitted_and_called(fastpath, device, executors)
        refs = [weakref.ref(x) for x in objects]
        with cycle_collector_off():
            del objects
            freed[fastpath] = [r() is None for r in refs]
    assert freed[True] == freed[False] == [True] * 4


@instantiate(dtypes=NOTHING, executors=EXECUTORS)
def test_inputs_and_outputs_are_freed_at_once_like_upstream(executor, device, _):
    # Guards and nvFuser regions are built from the call that used an entry (its arguments, its outputs): they must
    # keep neither, nor may hits keep later calls' tensors, while the jitted callables live on. Thunder frees each
    # call's tensors as soon as the last reference goes, so the cycle collector is off here. The strided calls hit
    # Thunder's cache with a layout that an nvFuser region has not seen (it prepares another definition); the calls
    # with an input that requires grad keep tensors for backward in their outputs' graph, freed with the outputs.
    executors = executor.executors_list()
    calls = [  # (grad mode, kind of `a`, hit): misses compile, hits reuse
        (True, "contiguous", False),
        (True, "contiguous", True),
        (True, "strided", True),
        (False, "contiguous", False),
        (False, "strided", True),
        (False, "contiguous", True),
        (True, "requires_grad", False),
        (True, "requires_grad", True),
    ]
    n_hits = sum(hit for *_, hit in calls)
    freed = {}
    for fastpath in (False, True):
        fn = thunder.jit(lambda a, b: a * b + a, fastpath=fastpath, executors=executors)
        module = thunder.jit(torch.nn.Linear(3, 2).to(device), fastpath=fastpath, executors=executors)
        refs = []
        with cycle_collector_off():
            for grad, kind, _ in calls:
                a = (
                    t(6).to(device)[::2]
                    if kind == "strided"
                    else t(3, requires_grad=kind == "requires_grad").to(device)
                )
                b = t(3, seed=1).to(device)
                with torch.set_grad_enabled(grad):
                    out, module_out = fn(a, b), module(a)
                refs += [weakref.ref(x) for x in (a, b, out, module_out)]
                del a, b, out, module_out
            freed[fastpath] = [r() is None for r in refs]
        assert hits_misses(fn) == hits_misses(module) == (n_hits, len(calls) - n_hits)
    assert freed[True] == freed[False] == [True] * 4 * len(calls)


def test_each_thread_hits_with_its_own_grad_mode():
    # Grad mode is thread-local: a hit must be decided by the calling thread's state. (Thunder's own path may not
    # pass this: each call ends with set_grad_enabled(cd.is_grad_enabled), a field that every thread's call
    # writes, so a thread under no_grad can leave a call with grad mode on. The fast path's hits do not write
    # or restore grad mode, so only the fast callable is checked here, against eager semantics.)
    def f(a, b):
        return a * b

    a, b = t(2, 3, requires_grad=True), t(2, 3)
    fast = thunder.jit(f, fastpath=True)
    fast(a, b)
    with torch.no_grad():
        fast(a, b)  # one entry per grad mode, made in this thread
    seen = {}

    def worker(grad):
        with torch.set_grad_enabled(grad):
            seen[grad] = [(fast(a, b).requires_grad, torch.is_grad_enabled()) for _ in range(300)]

    threads = [threading.Thread(target=worker, args=(g,)) for g in (False, True, False, True)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert seen[True] == [(True, True)] * 300 and seen[False] == [(False, False)] * 300
    assert thunder.cache_misses(fast) == 2  # no call in the threads compiled


def test_threads_making_the_first_calls_at_once_like_upstream():
    # Six threads call one jitted function with four shapes in turn from the start, so entries are made and get their
    # guards while other threads dispatch. Each call returns eager's result and the statistics count every call once,
    # on both paths.
    def f(a, b):
        return a.sin() * b + a.shape[0]

    n_threads, n_calls = 6, 40
    for fastpath in (False, True):
        jitted = thunder.jit(f, fastpath=fastpath)
        outcomes = []

        def work(k, jitted=jitted, outcomes=outcomes):
            for i in range(n_calls):
                n = 2 + (k + i) % 4
                a, b = t(n, seed=i), t(n, seed=i + 1)
                outcomes.append(torch.equal(jitted(a, b), f(a, b)))

        assert run_in_threads(n_threads, work) == []
        assert outcomes == [True] * (n_threads * n_calls)
        hits, misses = hits_misses(jitted)
        assert hits + misses == thunder.compile_stats(jitted).calls == n_threads * n_calls
        assert misses >= 4  # one entry per shape at least (two threads may compile one shape at once)


@pytest.mark.parametrize("calls", [1, 3])
def test_a_module_is_freed_after_its_first_calls_like_upstream(calls):
    # The call that makes an entry also builds its guard, whose builder holds the jitted module while it works: the
    # builder must make no reference cycle, or the module would live on until the cycle collector ran
    # (lightning-thunder's test_thunder_optimized_module_is_freed). The collector is off from before the module exists.
    freed = {}
    gc.collect()
    gc.disable()
    try:
        for fastpath in (False, True):
            jitted = thunder.jit(torch.nn.ReLU(), fastpath=fastpath)
            ref = weakref.ref(jitted)
            for i in range(calls):
                jitted(t(5 if i == 2 else 4))  # the third call another shape: a miss, explained by the fast path
            del jitted
            freed[fastpath] = ref() is None
    finally:
        gc.enable()
    assert freed == {False: True, True: True}


def test_entries_made_by_threads_serve_later_hits():
    # Eight threads call one function over twelve shapes at once: Thunder's cache may get two entries for a shape
    # (two threads compile it at once), as it does without the fast path. Each entry's guard is built from a call that
    # its lookup returned, so every entry gets one, and afterwards the calls of one thread over the same shapes are
    # served by guards (the guards of entries attributed to the wrong call would fail or decline for good).
    def f(x, y):
        return torch.sin(x) * y + x.sum()

    shapes = [(n, 8) for n in range(1, 13)]
    inputs = [(t(*shape, seed=i), t(*shape, seed=i + 1)) for i, shape in enumerate(shapes)]
    expected = [f(x, y) for x, y in inputs]
    misses = {}
    for fastpath in (False, True):
        jitted = thunder.jit(f, fastpath=fastpath)
        outcomes = []

        def work(k, jitted=jitted, outcomes=outcomes):
            for i in range(120):
                j = (k + i) % len(shapes)
                outcomes.append(torch.equal(jitted(*inputs[j]), expected[j]))

        assert run_in_threads(8, work) == []
        assert outcomes == [True] * 8 * 120
        misses[fastpath] = thunder.cache_misses(jitted)
    # Each thread misses a shape at most once; two threads may compile one shape at once.
    assert all(len(shapes) <= m <= 8 * len(shapes) for m in misses.values())
    fast = jitted
    after_threads = assert_counts_add_up(fast)
    assert after_threads.guarded_entries == after_threads.entries == misses[True]
    for i in range(240):
        j = i % len(shapes)
        assert torch.equal(fast(*inputs[j]), expected[j])
    after = assert_counts_add_up(fast)
    assert after.misses == after_threads.misses
    assert after.served_by_guards - after_threads.served_by_guards >= 0.95 * 240


def test_calls_while_another_thread_recompiles_and_a_third_drops_the_callable():
    # One thread hits an entry over and over while a second compiles a new shape and a third drops its reference to
    # the jitted callable (the last but the test's own, dropped afterwards). Every call returns eager's result, the
    # new shape is one miss, the counts add up, both entries serve later hits, and once the test drops it the
    # callable is freed at once. (While the new entry has no guard yet, the first thread's calls take Thunder's path:
    # Thunder would try the new entry first.)
    def f(x):
        return x.cos() * 2

    x, y = t(4, 4), t(6, 4, seed=1)
    jitted = thunder.jit(f, fastpath=True)
    jitted(x)
    references = dict.fromkeys(range(3), jitted)  # each thread takes its own, and the third drops it at once
    outcomes = []

    def work(k):
        mine = references.pop(k)
        if k == 0:
            outcomes.extend(torch.equal(mine(x), f(x)) for _ in range(400))
        elif k == 1:
            outcomes.extend(torch.equal(mine(y), f(y)) for _ in range(20))

    assert run_in_threads(3, work) == []
    assert outcomes == [True] * 420
    s = assert_counts_add_up(jitted)
    assert (s.misses, s.entries, s.guarded_entries) == (2, 2, 2)
    for z in (x, y) * 10:
        assert torch.equal(jitted(z), f(z))
    assert assert_counts_add_up(jitted).served_by_guards == s.served_by_guards + 20
    ref = weakref.ref(jitted)
    with cycle_collector_off():
        del jitted
        assert ref() is None


def test_a_guard_whose_call_changed_is_built_again_later(monkeypatch):
    # A guard that cannot be built from its call because that call's arguments no longer pass the entry's checks (a
    # thread changed them after the lookup) is not remembered as "no guard": the entry's next call builds it.
    def f(x):
        return x + 1

    fast = thunder.jit(f, fastpath=True)
    build = thunder.fastpath.dispatch.build_guard

    def changed_meanwhile(*args, **kwargs):
        raise thunder.fastpath.guard_steps.NotThisCall("the entry's own call does not pass its guard")

    monkeypatch.setattr(thunder.fastpath.dispatch, "build_guard", changed_meanwhile)
    fast(t(3))
    state = fast._lc_fastpath_state
    assert state.hits == () and state.unsupported == []
    monkeypatch.setattr(thunder.fastpath.dispatch, "build_guard", build)
    fast(t(3))
    assert len(state.hits) == 1
    fast(t(3))
    assert thunder.fastpath.stats(fast).served_by_guards == 1
