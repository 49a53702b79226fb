"""Which cache entry a call meets, and what a hit or a miss leaves behind: Python values under "constant values" and
"symbolic values", arities and containers, calls that raise, entries whose guard cannot be built, and the index that
lets a call skip the guards of entries made for other shapes.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import sys
import types

import pytest
import torch

import thunder
import thunder.fastpath
from thunder.fastpath import GuardBuildWarning
from thunder.fastpath.explain import NOT_USED_YET

from fastpath_harness import (
    Call,
    assert_bitwise,
    calls_with_an_entry_whose_first_call_raises,
    compare_call,
    hits_misses,
    run_differential,
    t,
)


def test_computation_that_raises_on_a_hit():
    # An index out of range is found only when the computation runs: on a hit, the same exception as Thunder, the
    # same counts, and grad mode as the caller had it, on the guard's layout (no switch) and on another (switched).
    def f(x, index):
        return x[index] * 2

    @contextlib.contextmanager
    def grad_mode_kept(enabled):
        with torch.set_grad_enabled(enabled):
            yield
            assert torch.is_grad_enabled() is enabled, "the call changed grad mode"

    contiguous, strided = (lambda: t(6)), (lambda: t(12)[::2])
    calls = [
        Call(lambda make=make, i=i: ((make(), torch.tensor(i)), {}), ctx=functools.partial(grad_mode_kept, grad))
        for grad in (True, False)
        for make in (contiguous, strided)
        for i in ([0, 5], [7, 1], [2, 3])  # fits, out of range, fits
    ]
    up, fast = run_differential(f, calls)
    assert hits_misses(fast) == (10, 2)  # an entry per grad mode


def test_entry_whose_first_call_raised_gets_its_guard():
    up, fast = run_differential(*calls_with_an_entry_whose_first_call_raises(requires_grad=False))
    assert hits_misses(fast) == (5, 3)


class ScaledByBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.full((4,), 2.0))

    def forward(self, x):
        return x * self.scale


@pytest.mark.parametrize("converted", ["model", "thunder_module"])
def test_entry_whose_prologue_failed_on_its_first_call_gets_no_guard(converted):
    # After `jitted.double()` (or `jitted._model.double()`) Thunder traces the buffer as float64 but its prologue
    # reads the ThunderModule's float32 copy (`_overrides_buffers`), so each call with float64 inputs compiles an
    # entry whose prologue then raises. No lookup returns such an entry, so none gets a guard (one built from such a
    # call would pin the float32 buffer it saw and hit where the prologue fails), and each call raises as Thunder's.
    up = thunder.jit(ScaledByBuffer(), fastpath=False)
    fast = thunder.jit(ScaledByBuffer(), fastpath=True)
    x = lambda dtype: Call(lambda: ((t(4, dtype=dtype),), {}))
    state = fast._forward_fn._lc_fastpath_state
    compare_call(up, fast, x(torch.float32))
    for m in (up, fast):
        (m if converted == "thunder_module" else m._model).double()
    for i in range(1, 4):
        compare_call(up, fast, x(torch.float64), i)
        assert state.hits == ()
    assert hits_misses(fast) == (0, 4)
    with pytest.raises(AssertionError, match="expected tensor"):
        fast(t(4, dtype=torch.float64))
    assert state.unsupported == []
    assert thunder.fastpath.stats(fast).upstream_entries == (NOT_USED_YET,) * 4


def test_call_that_raised_keeps_its_exception_when_the_guard_cannot_be_built(monkeypatch):
    def f(x, index):
        return torch.index_select(x, 0, index) * 2

    fast = thunder.jit(f, fastpath=True)
    monkeypatch.setattr(thunder.fastpath.dispatch, "build_guard", lambda *a, **k: 1 / 0)
    with pytest.raises(IndexError), pytest.warns(GuardBuildWarning, match="ZeroDivisionError"):
        fast(t(4), torch.tensor([7]))
    monkeypatch.undo()
    # The entry keeps Thunder's path, with Thunder's exceptions and results, and is not tried again.
    state = fast._lc_fastpath_state
    assert state.hits == () and "ZeroDivisionError while building the guard" in state.unsupported[0]
    with pytest.raises(IndexError):
        fast(t(4), torch.tensor([7]))
    assert_bitwise(fast(t(4), torch.tensor([1])), f(t(4), torch.tensor([1])))
    assert state.hits == () and len(state.unsupported) == 1
    assert hits_misses(fast) == (2, 1)


def test_guard_that_cannot_be_built_leaves_the_entry_on_upstreams_path(monkeypatch):
    # An unexpected error while the guard is built (a generator bug) must not cost the caller Thunder's result.
    def f(x, y):
        return x * y + 1

    up, fast = thunder.jit(f, fastpath=False), thunder.jit(f, fastpath=True)
    same_shape = lambda n: Call(lambda: ((t(n), t(n)), {}))
    monkeypatch.setattr(thunder.fastpath.dispatch, "build_guard", lambda *a, **k: 1 / 0)
    with pytest.warns(GuardBuildWarning, match="keeps Thunder's path"):
        compare_call(up, fast, same_shape(3))
    monkeypatch.undo()
    # The newer entry (shape 4) gets its guard; the failed one does not, and calls of shape 3 take Thunder's path.
    served = [compare_call(up, fast, same_shape(n), i) for i, n in enumerate([3, 3, 4, 4, 3, 4], start=1)]
    assert served == [False, False, False, True, False, True]
    state = fast._lc_fastpath_state
    assert len(state.unsupported) == 1 and len(state.hits) == 1
    assert sorted(known.hit is None for known in state.known.values()) == [False, True]
    assert hits_misses(fast) == (5, 2)


def test_constant_values_numbers_and_strings():
    def f(a, n, s, flag=True):
        out = a * n
        if s == "double":
            out = out * 2
        return out if flag else -out

    calls = [
        Call(lambda: ((t(3), 2, "double"), {})),
        Call(lambda: ((t(3), 2, "double"), {}), expect_fast=True),
        Call(lambda: ((t(3), 3, "double"), {}), expect_fast=False),
        Call(lambda: ((t(3), 2.0, "double"), {}), expect_fast=False),  # same value, other type
        Call(lambda: ((t(3), 2, "single"), {}), expect_fast=False),
        Call(lambda: ((t(3), 2, "double"), {"flag": False}), expect_fast=False),
        Call(lambda: ((t(3), 2, "double"), {"flag": False}), expect_fast=True),
        Call(lambda: ((t(3), float("nan"), "x"), {}), expect_fast=False),
        Call(lambda: ((t(3), float("nan"), "x"), {}), expect_fast=True),
        Call(lambda: ((t(3), 3, "double"), {}), expect_fast=True),
    ]
    run_differential(f, calls)


def test_bools_ints_and_signed_zeros_as_upstream():
    # True == 1 and -0.0 == 0.0 in Python. The prologue checks a number's exact type, so a bool does not hit an int's
    # entry, nor an int a bool's (an isinstance check would let True in: bool is an int); and it compares the value
    # with ==, so -0.0 hits the entry made for 0.0, whose outputs have the signs of 0.0's products: Thunder's, which
    # the fast path gives too (assert_bitwise compares the signs of zeros).
    def f(a, n):
        return a * n

    calls = [
        Call(lambda: ((t(3), 1), {}), expect_fast=False),
        Call(lambda: ((t(3), True), {}), expect_fast=False),
        Call(lambda: ((t(3), 1), {}), expect_fast=True),
        Call(lambda: ((t(3), True), {}), expect_fast=True),
        Call(lambda: ((t(3), 0.0), {}), expect_fast=False),
        Call(lambda: ((t(3), -0.0), {}), expect_fast=True),
    ]
    _, fast = run_differential(f, calls)
    assert thunder.cache_misses(fast) == 3


def test_slices_passed_as_arguments():
    # The prologue compares a slice argument by value (check_slice_value); so does the guard.
    def f(x, index):
        return x[index] * 2

    def call(index, expect_fast):
        return Call(lambda: ((t(6, 4), index), {}), expect_fast=expect_fast)

    calls = [
        call(slice(1, 3), False),
        call(slice(1, 3), True),
        call(slice(0, 2), False),  # same output shape, other values
        call(slice(1, 3), True),  # the older entry
        call(slice(1, 3, 1), False),  # step 1 is not step None to ==
        call((slice(None), slice(2, None)), False),  # slices inside a tuple
        call((slice(None), slice(2, None)), True),
        call((slice(None), slice(1, None)), False),
    ]
    up, fast = run_differential(f, calls)
    assert fast._lc_fastpath_state.unsupported == []


def test_symbolic_values():
    def f(a, n):
        return a * n + a.shape[0]

    calls = [
        Call(lambda: ((t(3), 2), {})),
        Call(lambda: ((t(3), 5), {})),
        Call(lambda: ((t(7), 5), {})),
        Call(lambda: ((t(7, dtype=torch.float64), 1), {})),
        Call(lambda: ((t(2), 9), {})),
    ]
    up, fast = run_differential(f, calls, cache="symbolic values")
    assert thunder.cache_hits(fast) >= 2
    # Under "symbolic values" Thunder's prologue does not check a torch.Size argument's values either: reshaping to
    # (3, 2) after (2, 3) hits the first entry and returns (2, 3).
    calls = [
        Call(lambda s=s: ((t(6), torch.Size(s)), {}), expect_fast=expect)
        for s, expect in [((2, 3), False), ((2, 3), True), ((3, 2), True)]
    ]
    up, _ = run_differential(lambda a, s: a.reshape(s), calls, cache="symbolic values")
    assert up(t(6), torch.Size([3, 2])).shape == (2, 3)  # Thunder's stale entry; when this fails, Thunder changed


def test_symbolic_values_check_the_types_of_numbers():
    # Under "symbolic values" a prologue with check_instance checks a number's type; one without checks nothing.
    # Either way the fast path decides as Thunder's lookup does.
    calls = [Call(lambda n=n: ((t(3), n), {})) for n in (2, 3, 2.5, 2.5, True, 4)]
    up, fast = run_differential(lambda a, n: a * n, calls, cache="symbolic values")
    assert fast._lc_fastpath_state.unsupported == []
    first_prologue = thunder.compile_stats(fast).interpreter_cache[0].prologue_traces[-1]
    if any(b.sym.id == "check_instance" for b in first_prologue.bound_symbols):
        reasons = [str(r) for r in thunder.fastpath.recompile_reasons(fast)]
        assert reasons[1] == "call 3: entry 0 failed: args[1] (n): an instance of int expected, float given"


def test_containers_kwargs_and_varying_arity():
    def f(*args, scale=1.0, extra=None, **kwargs):
        out = args[0] * scale
        for x in args[1:]:
            out = out + x
        if extra is not None:
            out = out + extra["w"][0] * extra["w"][1] + extra["list"][0] * extra["list"][1]
        for k in sorted(kwargs):
            out = out + kwargs[k]
        return out, len(args)

    extra = lambda: {"w": (t(3, seed=5), 2.0), "list": [t(3, seed=6), t(3, seed=7)]}
    calls = [
        Call(lambda: ((t(3),), {})),
        Call(lambda: ((t(3),), {}), expect_fast=True),
        Call(lambda: ((t(3), t(3)), {}), expect_fast=False),
        Call(lambda: ((t(3), t(3), t(3)), {"scale": 2.0}), expect_fast=False),
        Call(lambda: ((t(3), t(3), t(3)), {"scale": 2.0}), expect_fast=True),
        Call(lambda: ((t(3),), {"extra": extra()}), expect_fast=False),
        Call(lambda: ((t(3),), {"extra": extra()}), expect_fast=True),
        # Thunder's prologue does not check the length of a list it reads from: a hit, for both
        Call(lambda: ((t(3),), {"extra": {**extra(), "list": [t(3), t(3), t(3)]}}), expect_fast=True),
        Call(lambda: ((t(3),), {"z": t(3), "y": t(3, seed=2)}), expect_fast=False),
        Call(lambda: ((t(3),), {"y": t(3, seed=2), "z": t(3)}), expect_fast=True),
        Call(lambda: ((t(3),), {}), expect_fast=True),
    ]
    run_differential(f, calls)


def test_bad_input_raises_like_upstream():
    calls = [
        Call(lambda: ((t(3), t(3)), {})),
        Call(lambda: ((t(3),), {})),  # wrong arity
        Call(lambda: ((t(3), None), {})),  # None where a tensor was
        Call(lambda: ((t(3), "x"), {})),
        Call(lambda: ((t(3), t(3, dtype=torch.int64)), {})),  # new dtype: recompiles
        Call(lambda: ((t(3), t(3)), {}), expect_fast=True),
    ]
    run_differential(lambda a, b: a + b, calls)


def test_device_argument():
    with_device = lambda d: lambda: ((t(3), torch.device(d)), {})
    calls = [
        Call(with_device("cpu")),
        Call(with_device("cpu"), expect_fast=True),
        Call(with_device("meta"), expect_fast=False),
    ]
    run_differential(lambda a, d: a.to(d) * 2, calls)


def test_external_cache_clear_is_noticed():
    f = lambda a: a * 3
    fast = thunder.jit(f, fastpath=True)
    a = t(2)
    fast(a), fast(a)
    thunder.compile_stats(fast).interpreter_cache.clear()
    fast(a)
    assert thunder.cache_misses(fast) == 2


def test_calls_by_shape_picks_the_position_with_most_shapes_and_keeps_entries_without_one_in_order():
    from thunder.fastpath.dispatch import calls_by_shape

    def hit(name, shapes):  # shapes: {position: shape}, a position being an index into args or a keyword
        return types.SimpleNamespace(call=name, guard=types.SimpleNamespace(arg_shapes=shapes))

    # Newest first, as the dispatcher holds them. Position 0 has two shapes, position 1 and "k" one each.
    hits = [
        hit("a1", {0: (2, 3), 1: (7,)}),
        hit("n1", {1: (7,)}),  # no shape required of args[0]
        hit("b", {0: (4,), 1: (7,)}),
        hit("a2", {0: (2, 3), "k": (1,)}),
        hit("n2", {}),
    ]
    position, by_shape, unshaped = calls_by_shape(hits)
    assert position == 0
    assert by_shape == {(2, 3): ("a1", "n1", "a2", "n2"), (4,): ("n1", "b", "n2")}
    assert unshaped == ("n1", "n2")
    # A keyword with more shapes than any index.
    keyword = [hit("x1", {"x": (1,), 0: (5,)}), hit("x2", {"x": (2,), 0: (6,)}), hit("x3", {"x": (3,), 0: (5,)})]
    position, by_shape, unshaped = calls_by_shape(keyword)
    assert (position, by_shape[(2,)], unshaped) == ("x", ("x2",), ())
    # A tie goes to the position found first (newest entry first, each in its prologue's order).
    assert calls_by_shape(keyword[:2])[0] == "x"
    # One shape per position: nothing for an older entry's hit to skip, so no index.
    assert calls_by_shape(hits[:2] + hits[3:]) is None
    assert calls_by_shape([]) is None


def hit_functions_run(f, *args, **kwargs) -> int:
    """How many generated hit functions (guards with their hits) one call of the fast callable ``f`` ran."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        code = frame.f_code
        count += event == "call" and code.co_filename == "thunder.fastpath.hit" and code.co_name == "hit"

    sys.setprofile(profile)
    try:
        f(*args, **kwargs)
    finally:
        sys.setprofile(None)
    return count


def test_older_entries_hit_without_the_guards_of_other_shapes():
    def f(a, b):
        return a * b if isinstance(a, torch.Tensor) else b + a

    shapes = [(2, 3), (3, 3), (4,), (2, 3)]
    calls = [Call(lambda s=s: ((t(*s), t(*s)), {})) for s in shapes]  # three entries
    calls += [Call(lambda: ((t(2, 3, dtype=torch.float64), t(2, 3)), {}))]  # the same shape again, other dtype
    calls += [Call(lambda: ((2.0, t(3)), {})), Call(lambda: ((2.0, t(3)), {}))]  # no tensor first: no shape required
    calls += [Call(lambda s=s: ((t(*s), t(*s)), {}), expect_fast=True) for s in shapes]
    calls += [
        Call(lambda: ((t(2, 3, dtype=torch.float64), t(2, 3)), {}), expect_fast=True),
        Call(lambda: ((t(5), t(5)), {}), expect_fast=False),  # a shape no entry requires: a miss
        Call(lambda: ((t(5), t(5)), {}), expect_fast=True),
        Call(lambda: ((t(2, 3), None), {})),  # raises like Thunder
        Call(lambda: ((), {"a": t(3, 3), "b": t(3, 3)}), expect_fast=False),  # keywords: a new entry
        Call(lambda: ((), {"a": t(3, 3), "b": t(3, 3)}), expect_fast=True),
        Call(lambda: ((t(3, 3), t(3, 3)), {}), expect_fast=True),
    ]
    up, fast = run_differential(f, calls)
    state = fast._lc_fastpath_state
    # Newest first: (3, 3) by keywords, (5,), the float first argument, (2, 3) float64, (4,), (3, 3), (2, 3).
    # args[1] has five shapes (the float entry's (3,) too), args[0] four: the index is by args[1].
    assert len(state.hits) == 7 and state.shape_index[0] == 1
    # A hit of an older entry skips the guards that require another shape of args[1], not those of the entries
    # that require none (the keywords).
    hits, misses = hits_misses(fast)
    assert hit_functions_run(fast, t(2, 3), t(2, 3)) == 3  # keywords, (2, 3) float64, then the hit
    assert hit_functions_run(fast, t(4), t(4)) == 2
    assert hit_functions_run(fast, 2.0, t(3)) == 2
    assert hits_misses(fast) == (hits + 3, misses)
    # No entry requires (6,): only the guards of those that require no shape, then Thunder's path (a miss).
    assert hit_functions_run(fast, t(6), t(6)) == 1
    assert hits_misses(fast) == (hits + 3, misses + 1)


def test_the_index_follows_the_argument_whose_shape_changes():
    # The shape that tells entries apart may come with a keyword or as another argument than the first: the index
    # is by the position where the entries require the most shapes.
    def f(a, b=None):
        return a + 1 if b is None else a * b.sum()

    sizes = [1, 2, 3, 4]
    for by_keyword in (False, True):

        def make(n, by_keyword=by_keyword):
            return ((), {"a": t(2), "b": t(n)}) if by_keyword else ((t(2), t(n)), {})

        calls = [Call(functools.partial(make, n)) for n in sizes]
        calls += [Call(lambda: ((t(2),), {}), expect_fast=False)]  # no b: requires no shape there
        calls += [Call(functools.partial(make, n), expect_fast=True) for n in sizes]
        calls += [Call(lambda: ((t(2),), {}), expect_fast=True), Call(functools.partial(make, 5), expect_fast=False)]
        up, fast = run_differential(f, calls)
        state = fast._lc_fastpath_state
        # Newest first: b of size 5, no b, 4, 3, 2, 1.
        assert state.shape_index[0] == ("b" if by_keyword else 1)
        args, kwargs = make(1)
        assert hit_functions_run(fast, *args, **kwargs) == 2  # the entry without b, then the oldest entry's hit
        assert hit_functions_run(fast, t(2)) == 2  # no b: every entry in turn up to the hit
        args, kwargs = make(7)
        hits, misses = hits_misses(fast)
        assert hit_functions_run(fast, *args, **kwargs) == 1  # a shape that no entry requires: a miss
        assert hits_misses(fast) == (hits, misses + 1)

    # A module called with a keyword: the same index (the fast module call passes the keywords on).
    linear = torch.nn.Linear(4, 2).requires_grad_(False)
    calls = [Call(lambda n=n: ((), {"input": t(n, 4)})) for n in sizes]
    calls += [Call(lambda n=n: ((), {"input": t(n, 4)}), expect_fast=True) for n in sizes]
    up, fast = run_differential(linear, calls, module=True)
    assert fast._forward_fn._lc_fastpath_state.shape_index[0] == "input"
    assert hit_functions_run(fast._forward_fn, input=t(1, 4)) == 1


def _thunder_transforms():
    from thunder.transforms.constant_folding import ConstantFolding
    from thunder.transforms.prune_prologue_checks import PrunePrologueChecks

    return {
        "prune_module_checks": lambda: [PrunePrologueChecks()],
        "prune_all_checks": lambda: [PrunePrologueChecks(prune_all_checks=True)],
        "constant_folding": lambda: [ConstantFolding()],
    }


@pytest.mark.parametrize("transform", ["prune_module_checks", "prune_all_checks", "constant_folding"])
@pytest.mark.parametrize("subject", ["function", "module"])
def test_thunder_transforms_that_change_the_prologue_or_the_computation(transform, subject):
    # Transforms rewrite the prologue (fewer checks: Thunder then reuses entries for inputs that do not fit them, and
    # so must the fast path) or the computation; the guard is built from the prologue as transformed.
    same = lambda n: lambda: ((t(3, n), t(3, n, seed=1), 2), {})
    calls = [
        Call(same(4)),
        Call(same(4)),
        Call(same(5)),
        Call(lambda: ((t(3, 4, dtype=torch.float64), t(3, 4), 3), {})),
        Call(same(4)),
    ]
    if subject == "function":
        fn = lambda a, b, n: a * n + b
    else:
        torch.manual_seed(0)
        fn = torch.nn.Linear(4, 3).requires_grad_(False)
        calls = [Call(lambda m=make: (m()[0][:1], {})) for make in (c.make for c in calls)]
    up, fast = run_differential(fn, calls, module=subject == "module", transforms=_thunder_transforms()[transform]())
    state = (fast._forward_fn if subject == "module" else fast)._lc_fastpath_state
    assert state.unsupported == [] and thunder.cache_hits(fast) >= 2


def test_materialization_transform_of_a_module_made_on_the_meta_device():
    from thunder.transforms.materialization import MaterializationTransform

    torch.manual_seed(0)
    with torch.device("meta"):
        meta_linear = torch.nn.Linear(4, 3)
    state_dict = torch.nn.Linear(4, 3).state_dict()
    inits = [
        MaterializationTransform.init_from_original_module_init(),
        MaterializationTransform.init_from_original_state_dict(state_dict),
    ]
    calls = [
        Call(lambda n=n, d=d: ((t(n, 4, dtype=d),), {}))
        for n, d in [(2, torch.float32), (2, torch.float32), (5, torch.float32), (2, torch.float64), (2, torch.float32)]
    ]
    for init in inits:
        jitted = {}
        for fastpath in (False, True):
            torch.manual_seed(1)  # the module's own init draws from the global generator
            transforms = [MaterializationTransform("cpu", init=init)]
            jitted[fastpath] = thunder.jit(copy.deepcopy(meta_linear), fastpath=fastpath, transforms=transforms)
        for i, call in enumerate(calls):
            compare_call(jitted[False], jitted[True], call, i)
        assert thunder.cache_hits(jitted[True]) == 2
