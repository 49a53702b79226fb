"""Cache hit functions of callables that Thunder's transforms change, and of jitted callables that another one calls
(NOTE: Cache hits in ``thunder/__init__.py``); the harness of ``test_overhead.py``."""

from __future__ import annotations

import pytest
import torch

import thunder
from thunder.tests.cache_hit_harness import Call, assert_bitwise, hits_misses, run_differential, served_by_hit_fn, t


def hit_fns(jitted) -> list:
    return [entry.hit_fn for entry in thunder.compile_stats(jitted).interpreter_cache]


def _transforms(name):
    from thunder.transforms.constant_folding import ConstantFolding
    from thunder.transforms.prune_prologue_checks import PrunePrologueChecks

    return {
        "prune_module_checks": [PrunePrologueChecks()],
        "prune_all_checks": [PrunePrologueChecks(prune_all_checks=True)],
        "constant_folding": [ConstantFolding()],
    }[name]


@pytest.mark.parametrize("transform", ["prune_module_checks", "prune_all_checks", "constant_folding"])
@pytest.mark.parametrize("subject", ["function", "module"])
def test_transforms_that_change_the_prologue_or_the_computation(transform, subject):
    # With fewer checks, entries are reused for inputs that do not fit them, by the hit functions too.
    same = lambda n: lambda: ((t(3, n), t(3, n, seed=1), 2), {})
    makes = [same(4), same(4), same(5), lambda: ((t(3, 4, dtype=torch.float64), t(3, 4), 3), {}), same(4)]
    if subject == "function":
        fn, calls = (lambda a, b, n: a * n + b), [Call(make) for make in makes]
    else:
        torch.manual_seed(0)
        fn = torch.nn.Linear(4, 3).requires_grad_(False)
        calls = [Call(lambda m=make: (m()[0][:1], {})) for make in makes]
    # A prologue without checks does not pin the grad mode that a hit function would run in: no hit functions
    every_hit_served = transform != "prune_all_checks"
    ref, fast = run_differential(
        fn, calls, module=subject == "module", every_hit_served=every_hit_served, transforms=_transforms(transform)
    )
    assert thunder.cache_hits(fast) >= 2
    assert all(hit_fn is None for hit_fn in hit_fns(fast)) is not every_hit_served


def test_jitted_callables_called_while_another_is_traced():
    # The inner callables run as Python inside the outer trace (their cache is not consulted): the outer prologue
    # does not come to check their state, and the outer function hits.
    observed, linear = {}, torch.nn.Linear(3, 3)
    for fastpath in (False, True):
        inner_fn = thunder.jit(lambda a: a.sin() * 2, fastpath=fastpath)
        inner_module = thunder.jit(linear, fastpath=fastpath)
        tensorless = thunder.jit(lambda n: n * 2, fastpath=fastpath)
        a = t(2, 3)
        inner_fn(a), inner_fn(a), inner_module(a), inner_module(a), tensorless(3), tensorless(3)
        outer = thunder.jit(lambda a, n: inner_module(inner_fn(a)) * tensorless(n) + 1, fastpath=fastpath)
        rows = []
        for n in (3, 3, 4, 3):
            out = outer(a, n)
            rows.append((out, served_by_hit_fn(outer), [hits_misses(f) for f in (outer, inner_fn, inner_module)]))
        observed[fastpath] = rows
    for (out_ref, _, counts_ref), (out_fast, _, counts_fast) in zip(observed[False], observed[True], strict=True):
        assert_bitwise(out_ref, out_fast)
        assert counts_ref == counts_fast
    assert [served for _, served, _ in observed[True]] == [False, True, False, True]
    assert observed[True][-1][2][0] == (2, 2)


def test_transformed_callables_keep_the_choice():
    # thunder.core.transforms.grad jits the function again with its compile options, fastpath among them.
    from thunder.core.transforms import grad

    f = lambda a: (a.sin() * 2).sum()
    ref, fast = grad(thunder.jit(f, fastpath=False)), grad(thunder.jit(f))
    a = t(3)
    for i in range(3):
        assert_bitwise(ref(a), fast(a))
        assert hits_misses(ref) == hits_misses(fast)
        assert served_by_hit_fn(fast) == (i > 0) and not served_by_hit_fn(ref)
