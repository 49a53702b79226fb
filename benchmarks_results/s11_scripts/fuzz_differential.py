"""A longer differential search than test_overhead.py's hypothesis test (not part of CI: minutes, not seconds).

Each example jits one of several functions twice (upstream, fast path) under "constant values" or "symbolic values",
calls both with a generated kind of call, then with a variation of it per field (that field redrawn: the call meets
the entry that the first made unless the guard tells the difference), then with some of these again. Fields:
shape, dtype, requires_grad, layout (contiguous, column-major, a strided slice of a larger tensor), aliasing
(independent, the same tensor twice, two views of one storage), a Python number, grad mode, the default dtype.
With FUZZ_AUTOCAST=1 (session 45), also autocast (off, or bfloat16 on the tensors' device type) and a function with a
matmul, which autocast casts; off by default, so that earlier seeds replay as recorded.
After every call, as test_overhead.py's `run_differential`: outputs bitwise, their autograd facts (requires_grad,
grad_fn, view-ness, creation meta), in-place updates of the inputs, exception types, hits, misses and call counts.

Usage: python fuzz_differential.py [max_examples] [seed]
"""

import contextlib
import functools
import importlib.util
import os
import pathlib
import sys
import time

import hypothesis
import hypothesis.strategies as st
import torch

import thunder

REPO = pathlib.Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("test_overhead", REPO / "thunder/tests/test_overhead.py")
test_overhead = importlib.util.module_from_spec(spec)
spec.loader.exec_module(test_overhead)
Call, t = test_overhead.Call, test_overhead.t


def scaled_and_reshaped(a, b, n):
    return a * n + b, a.reshape(-1)


def in_place(a, b, n):
    a.add_(b, alpha=n)
    return a * 2


def transposed_view(a, b, n):
    return a.t(), (a + b).sum(0) * n


def branch_on_number(a, b, n):
    if n > 1:
        return (a - b).exp()
    return a.mT.contiguous() * b.mT


def identity_and_new(a, b, n):
    return a, b + n


def matmul_scaled(a, b, n):
    return (a @ b.mT) * n


FUNCTIONS = [scaled_and_reshaped, in_place, transposed_view, branch_on_number, identity_and_new]
AUTOCAST = os.environ.get("FUZZ_AUTOCAST") == "1"
if AUTOCAST:
    FUNCTIONS.append(matmul_scaled)


# Where the tensors are made (s13_scripts/fuzz_differential_cuda.py sets a CUDA device).
DEVICE = torch.device("cpu")


def make_inputs(shape, dtype, requires_grad, layout, aliasing, n, seed):
    # Each tensor reaches DEVICE before it is sliced, transposed or viewed (moving a strided slice would make it
    # contiguous) and before it is marked as requiring grad (so that it is a leaf); on the CPU `.to` is a no-op.
    def on_device(*size, seed):
        return t(*size, dtype=dtype, seed=seed).to(DEVICE)

    def tensor(s):
        if layout == "contiguous":
            x = on_device(*shape, seed=s)
        elif layout == "column_major":
            x = on_device(*reversed(shape), seed=s).t()
        else:  # a strided slice of a larger tensor
            x = on_device(shape[0], 2 * shape[1], seed=s)[:, ::2]
        return x.requires_grad_(requires_grad) if requires_grad else x

    if aliasing == "same":
        a = tensor(seed)
        return (a, a, n), {}
    if aliasing == "views":
        base = on_device(2 * shape[0] * shape[1], seed=seed).requires_grad_(requires_grad)
        a, b = base[: shape[0] * shape[1]].view(shape), base[shape[0] * shape[1]:].view(shape)
        return (a, b, n), {}
    return (tensor(seed), tensor(seed + 1), n), {}


def context(grad, default_dtype, autocast=None):
    @contextlib.contextmanager
    def ctx():
        previous = torch.get_default_dtype()
        torch.set_default_dtype(default_dtype)
        amp = torch.autocast(DEVICE.type, dtype=autocast) if autocast else contextlib.nullcontext()
        try:
            with torch.set_grad_enabled(grad), amp:
                yield
        finally:
            torch.set_default_dtype(previous)

    return ctx


FIELDS = [
    st.sampled_from([(2, 3), (3, 3)]),
    st.sampled_from([torch.float32, torch.float64]),
    st.booleans(),  # requires_grad
    st.sampled_from(["contiguous", "column_major", "sliced"]),
    st.sampled_from(["independent", "same", "views"]),
    st.sampled_from([1, 2, 2.0, -1]),
    st.booleans(),  # grad mode
    st.sampled_from([torch.float32, torch.float64]),  # default dtype
] + ([st.sampled_from([None, torch.bfloat16])] if AUTOCAST else [])  # autocast


@st.composite
def call_pool(draw):
    """A kind of call and, for each field, a variation of it with that field redrawn (often to another value): each
    variation meets the entry that the first call made unless the guard tells the one difference."""
    base = draw(st.tuples(*FIELDS))
    return [base] + [base[:i] + (draw(field),) + base[i + 1:] for i, field in enumerate(FIELDS)]


examples = {"count": 0, "calls": 0, "fast": 0, "autocast": 0, "autocast_fast": 0}  # and calls under autocast


def check(function, cache, pool, order):
    # Each kind once, in order (the base makes the first entry, each variation then meets it), then repeats.
    sequence = pool + [pool[i % len(pool)] for i in order]
    calls = [
        Call(functools.partial(make_inputs, shape, dtype, rg, layout, aliasing, n, i), ctx=context(grad, default, *amp))
        for i, (shape, dtype, rg, layout, aliasing, n, grad, default, *amp) in enumerate(sequence)
    ]
    # run_differential's comparisons, one call at a time, to count the calls that the guards served.
    up = thunder.jit(function, fastpath=False, cache=cache)
    fast = thunder.jit(function, fastpath=True, cache=cache)
    for i, call in enumerate(calls):
        served = test_overhead.compare_call(up, fast, call, i)
        examples["fast"] += served
        if AUTOCAST and sequence[i][-1] is not None:
            examples["autocast"] += 1
            examples["autocast_fast"] += served
    examples["count"] += 1
    examples["calls"] += len(calls)


def main():
    max_examples = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    test = hypothesis.seed(seed)(
        hypothesis.settings(deadline=None, max_examples=max_examples, suppress_health_check=list(hypothesis.HealthCheck),
                            database=None)(
            hypothesis.given(
                st.sampled_from(FUNCTIONS),
                st.sampled_from(["constant values", "symbolic values"]),
                call_pool(),
                st.lists(st.integers(0, len(FIELDS)), max_size=6),
            )(check)
        )
    )
    start = time.time()
    test()
    print(f"{examples['count']} examples, {examples['calls']} calls, {examples['fast']} of them served by the guards, "
          f"no difference from upstream; {time.time() - start:.0f} s, torch {torch.__version__}, seed {seed}"
          + (f"; {examples['autocast']} calls under autocast, {examples['autocast_fast']} of them served"
             if AUTOCAST else ""))


if __name__ == "__main__":
    main()
