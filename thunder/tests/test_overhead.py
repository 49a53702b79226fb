"""Cache hit functions (NOTE: Cache hits in ``thunder/__init__.py``) decide and compute as the cache lookup does.

Each differential test jits a callable without the fast path (``fastpath=False``) and with it, makes the same calls on
both and compares them after each (``thunder.tests.cache_hit_harness.run_differential``). The ``test_cache_hit_*.py``
modules apply the same harness to other kinds of calls.
"""

from __future__ import annotations

import pytest
import torch

import thunder
import thunder.core.cache_hit as cache_hit
from thunder.tests.cache_hit_harness import (
    Call,
    assert_bitwise,
    calls_with_an_entry_whose_first_call_raised,
    hits_misses,
    run_differential,
    served_by_hit_fn,
    t,
)


def hit_fns(jitted) -> list:
    return [entry.hit_fn for entry in thunder.compile_stats(jitted).interpreter_cache]


def same_shape(*shape, dtype=torch.float32):
    return lambda: ((t(*shape, dtype=dtype), t(*shape, dtype=dtype, seed=1)), {})


def test_hit_functions_are_made_with_the_fast_path_and_a_cache():
    f = lambda a, b: a * b + a.sin()
    calls = [Call(same_shape(2, 3)), Call(same_shape(2, 3), expect_fast=True)]
    ref, fast = run_differential(f, calls)
    assert hit_fns(ref) == [None] and callable(hit_fns(fast)[0])
    linear = torch.nn.Linear(3, 2)
    ref, fast = run_differential(linear, [Call(lambda: ((t(2, 3),), {}))] * 2, module=True)
    assert hit_fns(ref) == [None] and callable(hit_fns(fast)[0])
    # Without a cache lookup there are no hit functions (thunder.jit rejects "same input" when it traces).
    for cache in ("no caching", "same input"):
        calls = [Call(same_shape(2, 3), expect_fast=False)] * 3
        ref, fast = run_differential(f, calls, cache=cache)
        assert hit_fns(fast) == hit_fns(ref)


def test_an_execution_file_holds_mains_prologue(tmp_path, monkeypatch):
    # set_execution_callback_file writes each program for the user to edit before it runs: the prologue is main's
    path, programs = tmp_path / "program.py", []
    monkeypatch.setattr("builtins.input", lambda *_: programs.append(path.read_text()))
    thunder.set_execution_callback_file(str(path))
    try:
        jitted, x = thunder.jit(lambda x: x * 2), t(3)
        outs = [jitted(x), jitted(x)]
    finally:
        thunder.set_execution_callback_file(None)
    assert_bitwise(outs, [x * 2, x * 2])
    (prologue,) = [p for p in programs if "def prologue" in p]
    assert "_get_cache_info()" in prologue and hit_fns(jitted) == [None] and hits_misses(jitted) == (1, 1)


@pytest.mark.parametrize(
    "fn",
    [lambda a, b: a * b + a.sin(), lambda a, b: (a + 1, a * b), lambda a, b: (a + b, [b.sin(), {"x": a}], a)],
    ids=["one_output", "two_outputs", "nested_outputs_and_an_input"],  # epilogues that only pass outputs through
)
def test_shapes_dtypes_strides_and_older_entries(fn):
    calls = [
        Call(same_shape(2, 3)),
        Call(same_shape(2, 3), expect_fast=True),
        Call(same_shape(4, 3), expect_fast=False),
        Call(same_shape(2, 3), expect_fast=True),  # the older entry
        Call(same_shape(2, 3, dtype=torch.float64), expect_fast=False),
        Call(same_shape(2, 3, dtype=torch.float64), expect_fast=True),
        Call(same_shape(4, 3), expect_fast=True),
        Call(lambda: ((t(3, 2).t(), t(2, 3)), {}), expect_fast=True),  # strides are not part of the cache key
        Call(lambda: ((t(2, 6)[:, ::2], t(2, 3)), {}), expect_fast=True),
    ]
    ref, fast = run_differential(fn, calls)
    assert hits_misses(fast) == (6, 3)


def test_numbers_strings_bools_and_signed_zeros():
    # The prologue checks a number's exact type (True is not 1) and compares its value with == (-0.0 is 0.0).
    def f(a, n, s="double", flag=True):
        out = a * n
        if s == "double":
            out = out * 2
        return out if flag else -out

    def call(*args, expect_fast, **kwargs):
        return Call(lambda: ((t(3), *args), kwargs), expect_fast=expect_fast)

    calls = [
        call(2, expect_fast=False),
        call(2, expect_fast=True),
        call(3, expect_fast=False),
        call(2.0, expect_fast=False),
        call(True, expect_fast=False),
        call(1, expect_fast=False),
        call(True, expect_fast=True),
        call(2, "single", expect_fast=False),
        call(2, flag=False, expect_fast=False),
        call(2, flag=False, expect_fast=True),
        call(float("nan"), "x", expect_fast=False),
        call(float("nan"), "x", expect_fast=True),
        call(0.0, expect_fast=False),
        call(-0.0, expect_fast=True),
        call(3, expect_fast=True),
    ]
    run_differential(f, calls)


def test_symbolic_values():
    calls = [Call(lambda n=n, s=s: ((t(s), n), {})) for s, n in [(3, 2), (3, 5), (7, 5), (3, 2.5), (3, True), (2, 9)]]
    ref, fast = run_differential(lambda a, n: a * n + a.shape[0], calls, cache="symbolic values")
    assert thunder.cache_hits(fast) >= 4  # other sizes and numbers of the same type hit
    # The prologue does not check a torch.Size argument's values either: (3, 2) after (2, 3) hits the first entry.
    calls = [
        Call(lambda s=s: ((t(6), torch.Size(s)), {}), expect_fast=expect)
        for s, expect in [((2, 3), False), ((2, 3), True), ((3, 2), True)]
    ]
    run_differential(lambda a, s: a.reshape(s), calls, cache="symbolic values")


def test_entry_whose_first_call_raised():
    ref, fast = run_differential(*calls_with_an_entry_whose_first_call_raised(requires_grad=False))
    assert hits_misses(fast) == (5, 3)


def test_an_entry_without_a_hit_function_sends_later_calls_to_the_cache_lookup(monkeypatch):
    # fn_ tries hit functions newest first up to an entry without one, as the lookup tries the prologues in that order:
    # an older entry's hit function must not serve a call that the newer entry would take.
    f = lambda a, n: a * n
    ref, fast = thunder.jit(f, fastpath=False), thunder.jit(f)
    make_hit_fn = cache_hit.make_hit_fn
    calls = [(t(3), 2), (t(3), 2), (t(4), 2)]  # the third call's entry gets no hit function
    served = []
    for i, args in enumerate(calls + calls):
        if i == 2:
            monkeypatch.setattr(cache_hit, "make_hit_fn", lambda *a, **k: None)
        assert_bitwise(ref(*args), fast(*args))
        monkeypatch.setattr(cache_hit, "make_hit_fn", make_hit_fn)
        served.append(served_by_hit_fn(fast))
        assert hits_misses(ref) == hits_misses(fast)
    assert served == [False, True, False, False, False, False]
    assert hits_misses(fast) == (4, 2)
    # Asked for explicitly, the fast path says where it is not taken
    monkeypatch.setattr(cache_hit, "make_hit_fn", lambda *a, **k: None)
    with pytest.warns(UserWarning, match="has no hit function"):
        thunder.jit(f, fastpath=True)(t(3), 2)


def test_statistics_and_traces():
    f = lambda a: a.cos()
    ref, fast = thunder.jit(f, fastpath=False), thunder.jit(f)
    without_header = lambda trace: str(trace).split("\n", 1)[1]  # the first line says how long tracing took
    for shape in [(2,), (2,), (3,), (2,), (3,)]:
        a = t(*shape)
        ref(a), fast(a)
        assert thunder.compile_stats(ref).calls == thunder.compile_stats(fast).calls
        assert [without_header(tr) for tr in thunder.last_traces(ref)] == [
            without_header(tr) for tr in thunder.last_traces(fast)
        ]
        # The fast path's prologue traces are main's, then the prologue made the entry's guard
        *prologue_traces, guard = thunder.last_prologue_traces(fast)
        assert [without_header(tr) for tr in thunder.last_prologue_traces(ref)] == [
            without_header(tr) for tr in prologue_traces
        ]
        assert "_get_cache_info()" not in guard.python() and "_get_cache_info()" in prologue_traces[-1].python()
        logs = [thunder.compile_stats(f).last_interpreter_log for f in (ref, fast)]
        assert (logs[0] is None) == (logs[1] is None)
    assert hits_misses(fast) == (3, 2) and served_by_hit_fn(fast)
    # A hit takes no timestamps, and leaves none of an earlier call
    assert thunder.compile_stats(fast).last_trace_host_start == -1
