"""Tests of the grad mode that a jitted call records (``CompileData.is_grad_enabled``), which is kept per thread."""

import sys
import threading

import torch

import thunder


def test_is_grad_enabled_is_per_thread():
    cd = thunder.compile_data(thunder.jit(lambda x: x * 2))
    cd.is_grad_enabled = False
    seen = []

    def other_thread():
        seen.append(cd.is_grad_enabled)  # not set in this thread: the default
        cd.is_grad_enabled = True

    thread = threading.Thread(target=other_thread)
    thread.start()
    thread.join()
    assert seen == [True]
    assert cd.is_grad_enabled is False


def test_grad_mode_entry_compiled_while_another_thread_calls_under_no_grad():
    # One thread keeps calling under no_grad while this thread compiles entries in grad mode: each of them must
    # have a backward, and each call must leave grad mode as it found it. With one is_grad_enabled for all threads,
    # the other thread's calls switch it off while this thread traces.
    def f(x):
        return (x * 2 + 1).sin()

    jf = thunder.jit(f)
    x0 = torch.randn(2, 3)
    with torch.no_grad():
        jf(x0)
    stop = threading.Event()
    no_grad_calls = []

    def call_under_no_grad():
        with torch.no_grad():
            while not stop.is_set():
                out = jf(x0)
                no_grad_calls.append((out.requires_grad, torch.is_grad_enabled()))
                torch.set_grad_enabled(False)

    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    thread = threading.Thread(target=call_under_no_grad)
    thread.start()
    grad_calls = []
    try:
        for n in range(3, 9):  # each shape compiles an entry
            x = torch.randn(n, 3, requires_grad=True)
            out = jf(x)
            grad_calls.append((out.requires_grad, torch.is_grad_enabled()))
            torch.set_grad_enabled(True)
            torch.testing.assert_close(out, f(x))
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(switch_interval)
    assert grad_calls == [(True, True)] * 6
    assert no_grad_calls and set(no_grad_calls) == {(False, False)}
    assert thunder.cache_misses(jf) == 7
