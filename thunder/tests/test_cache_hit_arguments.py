"""Cache hit functions with arguments of each kind: slices, containers and keyword arguments, arguments that the
entries' prologues reject, values that they do not check, tensors checked after the cache info, and a computation
that raises on a hit (``thunder.tests.cache_hit_harness``)."""

from __future__ import annotations

import contextlib
import functools

import torch

from thunder.core import prims
from thunder.core.transform_common import Transform
from thunder.tests.cache_hit_harness import Call, hits_misses, run_differential, t


def same_shape(*shape, dtype=torch.float32):
    return lambda: ((t(*shape, dtype=dtype), t(*shape, dtype=dtype, seed=1)), {})


def test_slices_passed_as_arguments():
    def call(index, expect_fast):
        return Call(lambda: ((t(6, 4), index), {}), expect_fast=expect_fast)

    calls = [
        call(slice(1, 3), False),
        call(slice(1, 3), True),
        call(slice(0, 2), False),  # the same output shape, other values
        call(slice(1, 3), True),
        call(slice(1, 3, 1), False),  # step 1 is not step None
        call((slice(None), slice(2, None)), False),
        call((slice(None), slice(2, None)), True),
        call((slice(None), slice(1, None)), False),
    ]
    run_differential(lambda x, index: x[index] * 2, calls)


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
        Call(lambda: ((t(3),), {}), expect_fast=False),
        Call(lambda: ((t(3),), {}), expect_fast=True),
        Call(lambda: ((t(3), t(3)), {}), expect_fast=False),
        Call(lambda: ((t(3), t(3), t(3)), {"scale": 2.0}), expect_fast=False),
        Call(lambda: ((t(3), t(3), t(3)), {"scale": 2.0}), expect_fast=True),
        Call(lambda: ((t(3),), {"extra": extra()}), expect_fast=False),
        Call(lambda: ((t(3),), {"extra": extra()}), expect_fast=True),
        # The prologue does not check the length of a list that it reads from: a hit
        Call(lambda: ((t(3),), {"extra": {**extra(), "list": [t(3), t(3), t(3)]}}), expect_fast=True),
        Call(lambda: ((t(3),), {"z": t(3), "y": t(3, seed=2)}), expect_fast=False),
        Call(lambda: ((t(3),), {"y": t(3, seed=2), "z": t(3)}), expect_fast=True),
        Call(lambda: ((t(3),), {}), expect_fast=True),
    ]
    run_differential(f, calls)


def test_bad_inputs_and_device_arguments():
    calls = [
        Call(same_shape(3)),
        Call(lambda: ((t(3),), {})),  # wrong arity
        Call(lambda: ((t(3), None), {})),  # None where a tensor was
        Call(lambda: ((t(3), "x"), {})),
        Call(lambda: ((t(3), t(3, dtype=torch.int64)), {}), expect_fast=False),
        Call(same_shape(3), expect_fast=True),
    ]
    run_differential(lambda a, b: a + b, calls)
    with_device = lambda d: lambda: ((t(3), torch.device(d)), {})
    calls = [Call(with_device("cpu")), Call(with_device("cpu"), expect_fast=True), Call(with_device("meta"))]
    run_differential(lambda a, d: a.to(d) * 2, calls)


def test_computation_that_raises_on_a_hit_leaves_grad_mode_as_it_was():
    # An index out of range is found only when the computation runs, with grad mode switched off around it.
    @contextlib.contextmanager
    def grad_mode_kept(enabled):
        with torch.set_grad_enabled(enabled):
            yield
            assert torch.is_grad_enabled() is enabled, "the call changed grad mode"

    calls = [
        Call(lambda make=make, i=i: ((make(), torch.tensor(i)), {}), ctx=functools.partial(grad_mode_kept, grad))
        for grad in (True, False)
        for make in (lambda: t(6), lambda: t(12)[::2])
        for i in ([0, 5], [7, 1], [2, 3])  # fits, out of range, fits
    ]
    ref, fast = run_differential(lambda x, index: x[index] * 2, calls)
    assert hits_misses(fast) == (10, 2)  # an entry per grad mode


class ChecksTensorsLast(Transform):
    """Moves the prologue's tensor checks just before its return, after the cache info checks, where transforms such
    as thunder/transforms/quantization.py add their own."""

    def transform_traces_pre_prologue(self, prologue_trace, computation_trace, epilogue_trace, **kwargs):
        is_check = lambda bsym: bsym.sym is prims.check_tensor_shape_and_metadata
        *rest, ret = [bsym for bsym in prologue_trace.bound_symbols if not is_check(bsym)]
        checks = [bsym for bsym in prologue_trace.bound_symbols if is_check(bsym)]
        prologue_trace.bound_symbols = [*rest, *checks, ret]
        return prologue_trace, computation_trace, epilogue_trace


def test_tensor_checks_after_the_cache_info():
    calls = [
        Call(same_shape(3)),
        Call(same_shape(3), expect_fast=True),
        Call(same_shape(2, 5)),  # other shapes
        Call(same_shape(3, dtype=torch.float64)),
        Call(lambda: ((t(3), t(3, requires_grad=True)), {})),
        Call(same_shape(2, 5), expect_fast=True),
        Call(same_shape(3), expect_fast=True),
    ]
    ref, fast = run_differential(lambda a, b: a * b, calls, transforms=[ChecksTensorsLast()])
    assert hits_misses(fast) == (3, 4)


def test_values_that_the_prologue_does_not_check():
    # The prologue does not check a dtype argument's value (Lightning-AI/lightning-thunder#406), an argument compared
    # only with `is None`, an index that is None or Ellipsis, nor the contents of a bytes, set or range argument or the
    # order of a dict's keys: each later call hits the first call's entry, served by its hit function.
    n_times = lambda a, s: a * len(s)
    b, c = t(1, seed=1), t(1, seed=2)
    cases = [
        (lambda a, d: a.to(d), (3,), [torch.float64, torch.float16]),
        (lambda a, o: a if o is None else a + o, (3,), [None, t(3, seed=1)]),
        (lambda a, k: a[k], (3, 4), [Ellipsis, 0, None]),
        (n_times, (3,), [b"ab", b"abc"]),
        (n_times, (3,), [{1, 2}, {1, 2, 3}]),
        (lambda a, r: a * sum(r), (3,), [range(3), range(4)]),
        (lambda a, d: torch.cat([a, *d.values()]), (1,), [{"b": b, "c": c}, {"c": c, "b": b}]),
    ]
    for fn, shape, values in cases:
        calls = [Call(lambda v=v, s=shape: ((t(*s), v), {})) for v in values]
        _, fast = run_differential(fn, calls)
        assert hits_misses(fast) == (len(values) - 1, 1)
