"""Differential tests of cache hit functions (NOTE: Cache hits in ``thunder/__init__.py``).

A callable is jitted twice, without the fast path (``fastpath=False``: every call takes the cache lookup) and with it,
and both are given the same calls. After each call they must agree: outputs bitwise (or the type of the exception),
autograd facts, in-place updates of the inputs, hits, misses and calls. A call was served by a hit function when
``thunder.compile_stats(jitted).last_cache_hit`` is set right after it.
"""

from __future__ import annotations

import copy
from contextlib import nullcontext

import torch

import thunder
from thunder.tests.framework import TorchExecutor, nvFuserExecutor

# The executors of the tests instantiated per device: torch on each device, nvFuser on CUDA where it is available.
EXECUTORS = (TorchExecutor, nvFuserExecutor)


class Call:
    """One call.

    Args:
        make: returns fresh ``(args, kwargs)``, so that both callables get equal but distinct inputs.
        ctx: a context manager factory that the call runs in.
        expect_fast: whether a hit function of the callable jitted with the fast path must serve the call.
        through: wraps the jitted callable for this call (a ``torch.func`` transform, say).
    """

    def __init__(self, make, ctx=nullcontext, expect_fast=None, through=None):
        self.make, self.ctx, self.expect_fast, self.through = make, ctx, expect_fast, through


def t(*shape, dtype=torch.float32, requires_grad=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype).requires_grad_(requires_grad)


def served_by_hit_fn(jitted) -> bool:
    """Whether a cache entry's hit function served the last call of ``jitted``."""
    return thunder.compile_stats(jitted).last_cache_hit is not None


def hits_misses(jitted) -> tuple[int, int]:
    return thunder.cache_hits(jitted), thunder.cache_misses(jitted)


def assert_bitwise(a, b):
    fa, fb = torch.utils._pytree.tree_flatten(a), torch.utils._pytree.tree_flatten(b)
    assert fa[1] == fb[1], "different output structure"
    for x, y in zip(fa[0], fb[0], strict=True):
        if not isinstance(x, torch.Tensor):
            assert type(x) is type(y) and (x == y or (x != x and y != y)), (x, y)
            continue
        assert isinstance(y, torch.Tensor) and (x.dtype, x.shape, x.layout) == (y.dtype, y.shape, y.layout)
        assert x.requires_grad == y.requires_grad
        if x.layout is torch._mkldnn:  # assert_close does not take MKL-DNN tensors
            x, y = x.to_dense(), y.to_dense()
        torch.testing.assert_close(x, y, rtol=0, atol=0, equal_nan=True, msg="outputs differ")
        if x.is_floating_point() and x.layout is torch.strided and not x.is_meta:
            # assert_close counts -0.0 equal to 0.0
            assert torch.equal(torch.signbit(x), torch.signbit(y)), "signs of zeros differ"


def autograd_facts(out) -> list:
    """What grad mode changes about outputs: requires_grad, grad_fn, view-ness and a view's creation meta."""
    get_meta = torch._C._autograd._get_creation_meta
    return [
        (x.requires_grad, x.grad_fn is None, x._is_view(), str(get_meta(x)) if x._is_view() else None)
        for x in torch.utils._pytree.tree_leaves(out)
        if isinstance(x, torch.Tensor)
    ]


def outcome(f, call: Call):
    args, kwargs = call.make()
    with call.ctx():
        try:
            out = (f if call.through is None else call.through(f))(*args, **kwargs)
        except Exception as e:
            return ("raised", type(e)), args
    return ("returned", out), args


def compare_call(ref, fast, call: Call, i: int = 0) -> bool:
    """Makes call ``i`` on ``ref`` (jitted without the fast path) and on ``fast`` and compares them.

    Returns:
        Whether a hit function of ``fast`` served the call.
    """
    (kind_ref, res_ref), args_ref = outcome(ref, call)
    (kind_fast, res_fast), args_fast = outcome(fast, call)
    assert not served_by_hit_fn(ref), f"call {i}: served by a hit function without the fast path"
    assert kind_ref == kind_fast, f"call {i}: {kind_ref} {res_ref} without the fast path, {kind_fast} {res_fast} with"
    if kind_ref == "raised":
        assert res_ref is res_fast, f"call {i}: {res_ref} vs {res_fast}"
    else:
        assert_bitwise(res_ref, res_fast)
        assert autograd_facts(res_ref) == autograd_facts(res_fast), f"call {i}: views or autograd history differ"
        assert_bitwise(args_ref, args_fast)  # in-place updates of the inputs
    assert hits_misses(ref) == hits_misses(fast), f"call {i}: {hits_misses(ref)} vs {hits_misses(fast)}"
    assert thunder.compile_stats(ref).calls == thunder.compile_stats(fast).calls
    return served_by_hit_fn(fast)


def run_differential(fn, calls, *, module=False, every_hit_served=True, **jit_options):
    """Jits ``fn`` (for a module, a copy each) without and with the fast path and makes ``calls`` on both.

    Args:
        every_hit_served: a call without ``expect_fast`` must be served by a hit function exactly if it is a hit.

    Returns:
        The callables jitted without and with the fast path.
    """
    ref = thunder.jit(copy.deepcopy(fn) if module else fn, fastpath=False, **jit_options)
    fast = thunder.jit(copy.deepcopy(fn) if module else fn, **jit_options)
    for i, call in enumerate(calls):
        hits = thunder.cache_hits(fast)
        served = compare_call(ref, fast, call, i)
        expected = call.expect_fast
        if expected is None and every_hit_served:
            expected = thunder.cache_hits(fast) > hits
        assert expected is None or served == expected, f"call {i}: served by a hit function: {served}"
    return ref, fast


def calls_with_an_entry_whose_first_call_raised(requires_grad: bool):
    """A function and its calls: an entry whose first call raised in the computation (as an out-of-memory error would)
    is an entry all the same, whose hits raise as well; an error while tracing makes no entry. Five hits, three
    misses."""

    def f(x, index, n=1):
        if n > 1:
            raise ValueError("n > 1")
        return torch.index_select(x, 0, index) * 2

    def call(size, index, expect_fast, n=1):
        return Call(
            lambda: ((t(size, requires_grad=requires_grad), torch.tensor(index), n), {}), expect_fast=expect_fast
        )

    calls = [
        call(4, [1, 2], False),
        call(4, [1, 2], True),
        call(5, [7], False),  # an entry whose computation raises
        call(4, [1, 2], True),  # the older entry
        call(5, [7], True),  # raises again
        call(5, [0], True),
        call(4, [1, 2], False, n=2),  # raises while tracing: no entry
        call(4, [1, 2], True),
    ]
    return f, calls
