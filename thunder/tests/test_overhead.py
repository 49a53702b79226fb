"""Equivalence of thunder.fastpath with thunder.jit (fast path off), and the switch that chooses between them.

Each differential test jits the same callable twice, ``fastpath=False`` (Thunder) and ``fastpath=True``, feeds both
the same call sequence, and requires after every call: the same outputs bitwise (or the same exception type), the same
``cache_hits``/``cache_misses``, and, where a hit is expected, that the fast callable served it without Thunder's
path (``fastpath_harness.run_differential``). The sibling ``test_*.py`` files apply the same harness by concern.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import warnings

import pytest
import torch

import thunder
import thunder.fastpath

from fastpath_harness import (
    Call,
    assert_bitwise,
    hits_misses,
    run_differential,
    t,
)


def add(a, b):
    return a + b


@pytest.fixture
def restore_switch():
    """A test that changes the process-wide default leaves it as it found it."""
    was = thunder.fastpath.is_enabled()
    yield
    (thunder.fastpath.enable if was else thunder.fastpath.disable)()


def test_switch_enable_disable_and_opt_out(restore_switch):
    thunder.fastpath.disable()
    assert not thunder.fastpath.is_enabled()
    assert not thunder.fastpath.is_fast(thunder.jit(add))
    assert thunder.fastpath.is_fast(thunder.jit(add, fastpath=True))
    thunder.fastpath.enable()
    assert thunder.fastpath.is_enabled()
    fast, up = thunder.jit(add), thunder.jit(add, fastpath=False)
    assert thunder.fastpath.is_fast(fast) and not thunder.fastpath.is_fast(up)
    assert thunder.fastpath.is_fast(thunder.jit(torch.nn.Linear(2, 2)))
    assert not thunder.fastpath.is_fast(thunder.jit(torch.nn.Linear(2, 2), fastpath=False))
    # Side by side: both keep working, each on its own path.
    a = t(3)
    for _ in range(2):
        assert torch.equal(fast(a, a), up(a, a))


@pytest.mark.parametrize(
    "value, expected", [("0", False), ("1", True), ("false", False), ("Off", False), (" NO ", False), ("yes", True)]
)
def test_switch_environment_variable(value, expected):
    env = {**os.environ, "THUNDER_FASTPATH": value}
    code = (
        "import thunder, thunder.fastpath\n"
        "f = thunder.jit(lambda a: a + 1)\n"
        "print(thunder.fastpath.is_enabled(), thunder.fastpath.is_fast(f))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(expected), str(expected)]


@pytest.mark.parametrize("value", ["", "garbage", "2", "enabled"])
def test_switch_environment_variable_warns_about_other_values(value):
    # A value that is not understood is ignored, with a warning: the default is that of a process without it.
    code = "import thunder, thunder.fastpath\nprint(thunder.fastpath.is_enabled())\n"
    unset = {k: v for k, v in os.environ.items() if k != "THUNDER_FASTPATH"}
    default = subprocess.run([sys.executable, "-c", code], env=unset, capture_output=True, text=True, check=True)
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**unset, "THUNDER_FASTPATH": value},
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"UserWarning: THUNDER_FASTPATH={value!r} is not understood" in out.stderr
    assert out.stdout == default.stdout


@pytest.mark.parametrize("value", ["no", 0, 1, "True"])
def test_fastpath_argument_takes_only_booleans_or_none(value):
    with pytest.raises(TypeError, match="fastpath= takes True, False or None"):
        thunder.jit(add, fastpath=value)


def test_transformed_callables_keep_the_choice(restore_switch):
    # add_transform (behind thunder.distributed.ddp/fsdp, thunder.core.transforms.grad, noop, ...) jits the
    # function again: the new callable takes the fast path exactly when the one it transforms does, whatever the
    # switch says when it is made.
    from thunder.core.transforms import grad, noop

    f = lambda a: (a.sin() * 2).sum()
    for switch in (thunder.fastpath.enable, thunder.fastpath.disable):
        for fastpath in (False, True):
            jitted = thunder.jit(f, fastpath=fastpath), thunder.jit(torch.nn.Linear(2, 2), fastpath=fastpath)
            switch()
            for transformed in (noop(jitted[0]), grad(jitted[0]), noop(jitted[1])):
                assert thunder.fastpath.is_fast(transformed) == fastpath
    up, fast = grad(thunder.jit(f, fastpath=False)), grad(thunder.jit(f, fastpath=True))
    a = t(3)
    for _ in range(3):
        assert_bitwise(up(a), fast(a))
        assert hits_misses(up) == hits_misses(fast)
    assert thunder.cache_hits(fast) == 2


def test_jit_signature_lists_upstreams_keywords_and_fastpath():
    # ThunderFX's get_thunder_jit_kwargs keeps only the keywords that inspect.getfullargspec(thunder.jit) lists.
    import inspect

    from thunder.dynamo.utils import get_thunder_jit_kwargs

    keywords = inspect.getfullargspec(thunder.jit).kwonlyargs
    assert "fastpath" in keywords and {"cache", "executors", "transforms", "disable_torch_autograd"} <= set(keywords)
    options = {"cache": "symbolic values", "disable_torch_autograd": True, "fastpath": False}
    assert get_thunder_jit_kwargs(**options, not_a_jit_option=1) == options


def test_uncached_options_keep_upstream_path():
    declined = "not .no caching.; this callable takes Thunder.s path"
    with pytest.warns(thunder.fastpath.FastPathDeclinedWarning, match=declined):
        assert not thunder.fastpath.is_fast(thunder.jit(add, cache="no caching", fastpath=True))
    # Their cache path is Thunder's, but their nvFuser regions follow the callable's choice (nvfuser.py reads it from
    # the compile data when it creates a region): the region call does not depend on the cache.
    for fastpath in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", thunder.fastpath.FastPathDeclinedWarning)
            cd = thunder.compile_data(thunder.jit(add, cache="no caching", fastpath=fastpath))
        assert cd.compile_options["fastpath"] is fastpath


def test_compile_options_are_upstreams_unless_the_fast_path_is_chosen(restore_switch):
    thunder.fastpath.disable()
    assert "fastpath" not in thunder.compile_data(thunder.jit(add)).compile_options
    assert thunder.compile_data(thunder.jit(add, fastpath=False)).compile_options == {"fastpath": False}


def test_fastpath_option_is_used_by_each_compile(capsys):
    fast = thunder.jit(add, fastpath=True)
    for n in (2, 3):  # two compiles: each counts the option as used
        fast(t(n), t(n))
        thunder.last_compile_options(fast)
        printed = capsys.readouterr().out
        assert "\tfastpath. " in printed
        assert printed.split("Unused compile options:")[1].split() == ["No", "unused", "options"]


def test_shapes_and_dtypes():
    calls = [
        Call(lambda: ((t(2, 3), t(2, 3, seed=1)), {})),
        Call(lambda: ((t(2, 3), t(2, 3, seed=1)), {}), expect_fast=True),
        Call(lambda: ((t(4, 3), t(4, 3)), {}), expect_fast=False),  # new shape: miss
        Call(lambda: ((t(2, 3), t(2, 3, seed=1)), {}), expect_fast=True),  # older entry
        Call(lambda: ((t(2, 3, dtype=torch.float64), t(2, 3, dtype=torch.float64)), {}), expect_fast=False),
        Call(lambda: ((t(2, 3, dtype=torch.float64), t(2, 3, dtype=torch.float64)), {}), expect_fast=True),
        Call(lambda: ((t(4, 3), t(4, 3)), {}), expect_fast=True),
    ]
    run_differential(lambda a, b: a * b + a.sin(), calls)


def test_several_outputs_and_pass_through():
    # epilogues that only pass outputs through are skipped on hits: the results must not change
    make = lambda: ((t(3), t(3, seed=1)), {})
    run_differential(lambda a, b: (a + 1, a * b), [Call(make), Call(make, expect_fast=True)])
    run_differential(lambda a, b: (a + b, [b.sin(), {"x": a}], a), [Call(make), Call(make, expect_fast=True)])


def test_strides_do_not_matter_to_the_cache():
    calls = [
        Call(lambda: ((t(3, 3), t(3, 3)), {})),
        Call(lambda: ((t(3, 3).t(), t(3, 3)), {}), expect_fast=True),
        Call(lambda: ((t(3, 6)[:, ::2], t(3, 3)), {}), expect_fast=True),
    ]
    run_differential(lambda a, b: a @ b, calls)


def without_header(trace) -> str:
    return str(trace).split("\n", 1)[1]  # the first line says how long the trace took


def test_statistics_match_upstream():
    f = lambda a: a.cos()
    up, fast = thunder.jit(f, fastpath=False), thunder.jit(f, fastpath=True)
    for shape in [(2,), (2,), (3,), (2,), (3,)]:
        a = t(*shape)
        up(a), fast(a)
        assert thunder.compile_stats(up).calls == thunder.compile_stats(fast).calls
        for traces in (thunder.last_traces, thunder.last_prologue_traces):
            assert without_header(traces(up)[-1]) == without_header(traces(fast)[-1])
        logs = [thunder.compile_stats(f).last_interpreter_log for f in (up, fast)]
        assert (logs[0] is None) == (logs[1] is None)
    assert hits_misses(fast) == (3, 2)


def test_jitted_callable_called_by_another_while_it_is_traced():
    # Tracing the outer function runs the inner jitted callable's Python code in Thunder's interpreter: it must
    # go straight to Thunder's callable (which calls the inner function itself), so that the outer prologue does
    # not come to check the inner callable's changing state (call counters, timers) and miss on every call.
    observed, linear = {}, torch.nn.Linear(3, 3)
    for fastpath in (False, True):
        inner_fn = thunder.jit(lambda a: a.sin() * 2, fastpath=fastpath)
        inner_module = thunder.jit(copy.deepcopy(linear), fastpath=fastpath)
        tensorless = thunder.jit(lambda n: n * 2, fastpath=fastpath)
        a = t(2, 3)
        for inner in (inner_fn, inner_module):
            inner(a), inner(a)  # entries (and guards) exist before the outer function is traced
        tensorless(3), tensorless(3)
        # The lambda reads this iteration's callables (binding them as defaults would change what is traced).
        outer = thunder.jit(lambda a, n: inner_module(inner_fn(a)) * tensorless(n) + 1, fastpath=fastpath)  # noqa: B023
        rows = []
        for n in (3, 3, 4, 3):
            out = outer(a, n)
            rows.append((out, [hits_misses(f) for f in (outer, inner_fn, inner_module, tensorless)]))
        observed[fastpath] = rows
    for (out_up, counts_up), (out_fast, counts_fast) in zip(observed[False], observed[True], strict=False):
        assert_bitwise(out_up, out_fast)
        assert counts_up == counts_fast
    assert observed[True][-1][1][0] == (2, 2)  # the outer function hit twice
