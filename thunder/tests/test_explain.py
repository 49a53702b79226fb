"""Why a call missed (``thunder.fastpath.recompile_reasons``), the per-callable statistics (``stats``) and the
``thunder.fastpath`` logger: one test per kind of miss that the guards decide, each naming the argument and both
values; misses, hits and counts as Thunder's."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest
import torch

import thunder
import thunder.fastpath
from thunder.fastpath import recompile_reasons, stats

from fastpath_harness import (
    float64_default,
    hits_misses,
    reasons_after,
    t,
)


def test_first_call_and_record_numbers():
    f = thunder.jit(lambda a: a * 2, fastpath=True)
    f(t(3)), f(t(3)), f(t(4))
    records = recompile_reasons(f)
    assert [r.call for r in records] == [1, 3]
    assert str(records[0]) == "call 1: no cache entry yet"
    assert records[1].entries[0].entry == 0 and records[1].entries[0].outcome == "failed"


def test_shape():
    f = thunder.jit(lambda x, y: x + y, fastpath=True)
    assert reasons_after(f, lambda f: f(t(8, 8), t(8, 8)), lambda f: f(t(16, 8), t(16, 8))) == [
        "entry 0 failed: args[0] (x): shape (8, 8) expected, (16, 8) given"
    ]


def test_dtype_device_and_requires_grad():
    f = thunder.jit(lambda x: x * 2, fastpath=True)
    assert reasons_after(f, lambda f: f(t(3)), lambda f: f(t(3, dtype=torch.bfloat16))) == [
        "entry 0 failed: args[0] (x): dtype torch.float32 expected, torch.bfloat16 given"
    ]
    assert reasons_after(f, lambda f: f(torch.empty(3, device="meta")))[-1] == (
        "entry 0 failed: args[0] (x): device cpu expected, meta given"
    )
    assert reasons_after(f, lambda f: f(t(3, requires_grad=True)))[-1] == (
        "entry 0 failed: args[0] (x): requires_grad False expected, True given"
    )


def test_strides_are_no_miss():
    # Thunder's cache does not key on strides: another layout hits (nvFuser regions pick their definition inside).
    f = thunder.jit(lambda x: x * 2, fastpath=True)
    f(t(3, 3)), f(t(3, 3).t()), f(t(3, 6)[:, ::2])
    assert len(recompile_reasons(f)) == 1 and hits_misses(f) == (2, 1)


def test_grad_mode_autocast_and_default_dtype():
    f = thunder.jit(lambda x: x + torch.ones(3), fastpath=True)
    f(t(3))
    with torch.no_grad():
        assert reasons_after(f, lambda f: f(t(3))) == ["entry 0 failed: grad mode: enabled expected, disabled given"]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert reasons_after(f, lambda f: f(t(3)))[-1] == (
            "entry 0 failed: autocast: off expected, on for cpu (torch.bfloat16) given"
        )
    with float64_default():
        assert reasons_after(f, lambda f: f(t(3)))[-1] == (
            "entry 0 failed: default dtype: torch.float32 expected, torch.float64 given"
        )


def test_an_entry_made_under_autocast():
    f = thunder.jit(lambda a, b: a @ b, fastpath=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        f(t(2, 2), t(2, 2))
    assert reasons_after(f, lambda f: f(t(2, 2), t(2, 2))) == [
        "entry 0 failed: autocast: on for cpu (torch.bfloat16) expected, off given"
    ]


def test_python_values_under_constant_values():
    f = thunder.jit(lambda x, n, s: x * n if s == "mul" else x + n, fastpath=True)
    f(t(3), 3, "mul")
    assert reasons_after(f, lambda f: f(t(3), 4, "mul")) == [
        "entry 0 failed: args[1] (n): value 3 expected, 4 given (cache=constant values)"
    ]
    assert reasons_after(f, lambda f: f(t(3), 3.0, "mul"))[-1] == (
        "entry 0 failed: args[1] (n): value 3 (int) expected, 3.0 (float) given (cache=constant values)"
    )
    assert reasons_after(f, lambda f: f(t(3), 3, "add"))[-1] == (
        "entry 0 failed: args[2] (s): value 'mul' expected, 'add' given (cache=constant values)"
    )


def test_arity_and_keyword_arguments():
    f = thunder.jit(lambda *xs, **kw: sum(xs) * len(kw), fastpath=True)
    f(t(3), t(3), k=1)
    assert reasons_after(f, lambda f: f(t(3), t(3), t(3), k=1)) == [
        "entry 0 failed: number of positional arguments: 2 expected, 3 given"
    ]


def test_aliasing_between_arguments():
    f = thunder.jit(lambda a, b: a * b, fastpath=True)
    f(t(4), t(4, seed=1))
    x = t(4)
    assert reasons_after(f, lambda f: f(x, x)) == [
        "entry 0 failed: aliasing among the arguments (Thunder's alias_tensor_indices: positions that share a"
        " storage): '' expected, '0,1' given"
    ]


SCALE = 2.0


def uses_a_global(x):
    return x * SCALE


def test_a_changed_global():
    global SCALE
    f = thunder.jit(uses_a_global, fastpath=True)
    f(t(3))
    try:
        SCALE = 3.0
        assert reasons_after(f, lambda f: f(t(3))) == [
            "entry 0 failed: global SCALE: value 2.0 expected, 3.0 given (cache=constant values)"
        ]
    finally:
        SCALE = 2.0


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state:UserWarning")
def test_declined_and_unguarded_entries_are_said_so():
    # A tensor of another type than the entry's: the guard cannot tell, Thunder's path decides.
    f = thunder.jit(lambda x: x * 2, fastpath=True)
    f(t(3))
    f(t(3, dtype=torch.float64))  # a miss
    reasons = [str(v) for v in recompile_reasons(f)[-1].entries]
    assert reasons == ["entry 0 failed: args[0] (x): dtype torch.float32 expected, torch.float64 given"]
    f(torch.nn.Parameter(t(3), requires_grad=False))  # the first entry, decided by Thunder's path: a hit
    assert hits_misses(f) == (1, 2) and "declined" in str(stats(f))
    assert any("Parameter" in why for why in stats(f).decline_reasons)
    # An entry without a guard: the record says why it has none.
    g = thunder.jit(lambda x: x * 2, fastpath=True)
    g(torch.eye(3).to_sparse_csr())
    g(t(3))
    assert [v.outcome for v in recompile_reasons(g)[-1].entries] == ["no guard"]
    assert "without strides" in recompile_reasons(g)[-1].entries[0].reason


def test_stats_count_what_the_callable_did():
    f = thunder.jit(lambda x: x * 2, fastpath=True)
    for n in (3, 3, 3, 4, 3):
        f(t(n))
    s = stats(f)
    assert (s.calls, s.hits, s.misses, s.entries, s.guarded_entries) == (5, 3, 2, 2, 2)
    assert s.served_by_guards == 3 and s.upstream_path_calls == {"cache changed": 1, "miss": 1}
    assert repr(s).startswith("FastPathStats(calls=5, hits=3 (3 served by guards), misses=2, entries=2 (2 guarded)")
    up = thunder.jit(lambda x: x * 2, fastpath=False)
    with pytest.raises(TypeError, match="does not take the fast path"):
        stats(up)


def test_a_miss_is_logged_at_info(caplog):
    f = thunder.jit(lambda x: x * 2, fastpath=True)
    with caplog.at_level(logging.INFO, logger="thunder.fastpath"):
        f(t(3)), f(t(3)), f(t(4))
    messages = [r.getMessage() for r in caplog.records if r.name == "thunder.fastpath"]
    assert len(messages) == 2 and "args[0] (x): shape (3,) expected, (4,) given" in messages[1]


@pytest.mark.slow
def test_environment_variable_switches_the_log_on():
    code = (
        "import torch, thunder, thunder.fastpath\n"
        "f = thunder.jit(lambda x: x * 2)\n"
        "f(torch.ones(3)); f(torch.ones(3)); f(torch.ones(4))\n"
    )
    for value, logged, warned in (
        ("recompiles", True, False),
        ("", False, False),
        ("RECOMPILES", True, False),
        (" Recompiles,graphs", True, True),
        ("recompile", False, True),
    ):
        env = {**os.environ, "THUNDER_FASTPATH_LOGS": value}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert ("[thunder.fastpath] <lambda> recompiled: call 3: entry 0 failed" in out.stderr) is logged, out.stderr
        assert (f"THUNDER_FASTPATH_LOGS={value!r}: " in out.stderr) is warned, out.stderr
        if warned:
            assert "unknown (known: recompiles)" in out.stderr


def test_hits_run_no_explaining_code():
    # The explaining form is compiled on the first miss that needs it, never for a hit.
    f = thunder.jit(lambda x: x * 2, fastpath=True)
    for _ in range(3):
        f(t(3))
    guard = f._lc_fastpath_state.hits[0].guard
    assert "explain" not in guard.__dict__ and "__say" not in f._lc_fastpath_state.hits[0].source
    f(t(4))
    assert "explain" in guard.__dict__
