"""The shared harness of the fast path's tests: calls made on Thunder's callable and the fast one side by side, and
the comparisons made after each (outputs bitwise, autograd facts, in-place updates, exceptions, hits and misses).
"""

from __future__ import annotations

import contextlib
import copy
import pathlib
import threading
from contextlib import nullcontext

import torch

import thunder
import thunder.fastpath
from thunder.tests.framework import TorchExecutor, nvFuserExecutor

REPO = pathlib.Path(__file__).resolve().parents[2]


class Call:
    """One call: a factory for fresh (args, kwargs), so both systems get equal but distinct inputs; ``through``, if
    given, wraps the jitted callable for this call (a torch.func transform, say)."""

    def __init__(self, make, ctx=nullcontext, expect_fast=None, through=None):
        self.make, self.ctx, self.expect_fast, self.through = make, ctx, expect_fast, through


def outcome(f, call: Call):
    args, kwargs = call.make()
    with call.ctx():
        try:
            out = (f if call.through is None else call.through(f))(*args, **kwargs)
        except Exception as e:  # the exception type is part of the behaviour
            return ("raised", type(e)), args
    return ("returned", out), args


def assert_bitwise(a, b):
    fa, fb = torch.utils._pytree.tree_flatten(a), torch.utils._pytree.tree_flatten(b)
    assert fa[1] == fb[1], "different output structure"
    for x, y in zip(fa[0], fb[0], strict=False):
        if isinstance(x, torch.Tensor):
            assert isinstance(y, torch.Tensor) and x.dtype == y.dtype and x.shape == y.shape and x.layout == y.layout
            assert x.requires_grad == y.requires_grad
            if x.layout is torch._mkldnn:  # assert_close does not take MKL-DNN tensors
                x, y = x.to_dense(), y.to_dense()
            torch.testing.assert_close(x, y, rtol=0, atol=0, equal_nan=True, msg="outputs differ")
            if x.is_floating_point() and x.layout is torch.strided and not x.is_meta:
                # assert_close counts -0.0 equal to 0.0
                assert torch.equal(torch.signbit(x), torch.signbit(y)), "signs of zeros differ"
        else:
            assert type(x) is type(y) and (x == y or (x != x and y != y))


def took_fast_path(fast) -> bool:
    # Thunder's path stamps the host timers on every call; the fast path's hits do not.
    cs = thunder.compile_stats(fast)
    return cs.last_trace_host_start == took_fast_path.stamp


def hits_misses(f):
    return thunder.cache_hits(f), thunder.cache_misses(f)


# The executors of the tests that run on each device (Thunder's `instantiate(dtypes=NOTHING, executors=EXECUTORS)`):
# the torch executor on the CPU and on CUDA, and nvFuser on CUDA where it is usable (nvFuserExecutor is None without).
EXECUTORS = (TorchExecutor, nvFuserExecutor)


def autograd_facts(out):
    """What grad mode can change about outputs: requires_grad, grad_fn, view-ness and a view's creation mode."""
    get_meta = torch._C._autograd._get_creation_meta
    tensors = [x for x in torch.utils._pytree.tree_leaves(out) if isinstance(x, torch.Tensor)]
    return [
        (x.requires_grad, x.grad_fn is None, x._is_view(), str(get_meta(x)) if x._is_view() else None) for x in tensors
    ]


def compare_call(up, fast, call, i=0) -> bool:
    """Makes call number ``i`` on both callables and compares what it gave and did; returns whether the fast callable
    served it from a guard."""
    took_fast_path.stamp = thunder.compile_stats(fast).last_trace_host_start
    (kind_up, res_up), args_up = outcome(up, call)
    (kind_fast, res_fast), args_fast = outcome(fast, call)
    assert kind_up == kind_fast, f"call {i}: upstream {kind_up} {res_up}, fast {kind_fast} {res_fast}"
    if kind_up == "raised":
        assert res_up is res_fast, f"call {i}: {res_up} vs {res_fast}"
    else:
        assert_bitwise(res_up, res_fast)
        assert autograd_facts(res_up) == autograd_facts(res_fast), f"call {i}: views or autograd history differ"
        assert_bitwise(args_up, args_fast)  # in-place updates of inputs
    assert hits_misses(up) == hits_misses(fast), f"call {i}: {hits_misses(up)} vs {hits_misses(fast)}"
    assert thunder.compile_stats(up).calls == thunder.compile_stats(fast).calls
    return took_fast_path(fast)


def run_differential(fn, calls, *, module=False, **jit_options):
    fn_up, fn_fast = (copy.deepcopy(fn), copy.deepcopy(fn)) if module else (fn, fn)
    up = thunder.jit(fn_up, fastpath=False, **jit_options)
    fast = thunder.jit(fn_fast, fastpath=True, **jit_options)
    assert thunder.fastpath.is_fast(fast) and not thunder.fastpath.is_fast(up)
    for i, call in enumerate(calls):
        took_fast = compare_call(up, fast, call, i)
        if call.expect_fast is not None:
            assert took_fast == call.expect_fast, f"call {i}: fast path taken != {call.expect_fast}"
    return up, fast


def t(*shape, dtype=torch.float32, requires_grad=False, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype).requires_grad_(requires_grad)


def hit_source(fast):
    call = fast._forward_fn if isinstance(fast, torch.nn.Module) else fast
    return call._lc_fastpath_state.hits[0].source


def fusion_regions(jitted):
    trace = thunder.last_traces(jitted)[-1]
    return [v for k, v in trace.python_ctx().items() if k.startswith("nvFusion")]


def run_both(up, fast, *args):
    out_up, out_fast = up(*args), fast(*args)
    assert_bitwise(out_up, out_fast)
    assert hits_misses(up) == hits_misses(fast)
    return out_fast


def newest_hit(jitted):
    call = jitted._forward_fn if isinstance(jitted, torch.nn.Module) else jitted
    return call._lc_fastpath_state.hits[0]


class RegionSpy:
    """Counts the calls of a hit's computation and records grad mode at each of them and at each call of its
    region's executor."""

    def __init__(self, jitted):
        self.hit = newest_hit(jitted)
        self.computation_calls, self.computation_grad_modes, self.grad_modes = 0, [], []
        namespace = self.hit.call.__globals__
        computation = namespace["__computation"]

        def counting(*args):
            self.computation_calls += 1
            self.computation_grad_modes.append(torch.is_grad_enabled())
            return computation(*args)

        namespace["__computation"] = counting

    def watch_executor(self):
        # The region replaces `prepared` on every new layout: wrap the current executor before each call.
        region = self.hit.region_call.region
        if region.prepared is not None and not getattr(region.prepared.execute, "spied", False):
            execute = region.prepared.execute

            def recording(args):
                self.grad_modes.append(torch.is_grad_enabled())
                return execute(args)

            recording.spied = True
            region.prepared = region.prepared._replace(execute=recording)


@contextlib.contextmanager
def float64_default():
    """float64 as the default dtype inside."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def run_in_threads(n_threads: int, work) -> list:
    """Runs ``work(k)`` in ``n_threads`` threads started together; the exceptions they raised, as reprs."""
    errors, barrier = [], threading.Barrier(n_threads)

    def run(k):
        barrier.wait()
        try:
            work(k)
        except Exception as e:  # noqa: BLE001  (reported by the caller, not raised in a thread)
            errors.append(repr(e))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def assert_counts_add_up(jitted):
    """``stats`` counts what happened: no counter below zero, calls = hits + misses, and the hits served by guards are
    exactly the hits that no call through Thunder's path made (those calls less the misses among them)."""
    s = thunder.fastpath.stats(jitted)
    upstream_calls = sum(s.upstream_path_calls.values())
    assert min(s.calls, s.hits, s.misses, s.served_by_guards, upstream_calls, *s.upstream_path_calls.values()) >= 0
    assert s.calls == s.hits + s.misses == thunder.compile_stats(jitted).calls
    assert s.served_by_guards == s.hits - (upstream_calls - s.misses)
    return s


def reasons_after(f, *calls):
    """Makes each call (a function of the jitted callable) and returns the last miss record's entry reasons."""
    for call in calls:
        call(f)
    return [str(verdict) for verdict in thunder.fastpath.recompile_reasons(f)[-1].entries]


def calls_with_an_entry_whose_first_call_raises(requires_grad: bool):
    """A function and its calls: a new shape whose first call raises in the computation (as an out-of-memory error
    would) leaves a cache entry, which gets its guard all the same: the older entry's hits stay fast, and its own hits
    raise as Thunder's do. An error while tracing (a number that the function rejects) leaves no entry and changes
    nothing. Five hits, three misses."""

    def f(x, index, n=1):
        if n > 1:
            raise ValueError("n > 1")
        return torch.index_select(x, 0, index) * 2

    def call(size, index, n=1, expect_fast=None):
        make = lambda: ((t(size, requires_grad=requires_grad), torch.tensor(index), n), {})
        return Call(make, expect_fast=expect_fast)

    calls = [
        call(4, [1, 2], expect_fast=False),  # miss
        call(4, [1, 2], expect_fast=True),
        call(5, [7], expect_fast=False),  # miss: an entry whose computation raises
        call(4, [1, 2], expect_fast=True),  # the older entry
        call(5, [7], expect_fast=True),  # raises again, from its guarded entry
        call(5, [0], expect_fast=True),
        call(4, [1, 2], n=2, expect_fast=False),  # raises while tracing: no entry
        call(4, [1, 2], expect_fast=True),
    ]
    return f, calls
