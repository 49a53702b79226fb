"""A differential search over kinds of calls: upstream ``thunder.jit`` against the fast path, call by call.

    python tools/fuzz_differential.py [--examples N] [--seed S] [--device cpu|cuda] [--autocast] [--no-shrink]

Each example jits one of several small functions twice (upstream, fast path) under "constant values" or "symbolic
values", calls both with a generated kind of call, then with a variation of it per field (that field redrawn: the
call meets the entry that the first made unless the guard tells the difference), then with some of these again.
Fields: shape, dtype, requires_grad, layout (contiguous, column-major, a strided slice of a larger tensor), aliasing
(independent, the same tensor twice, two views of one storage), a Python number, grad mode, the default dtype, and
with ``--autocast`` also autocast (off, or bfloat16 on the tensors' device type) and a function with a matmul.
On CUDA, Thunder's default executors put the functions' ops into nvFuser regions, so the search also compares the
fast path's ``FusionRegion`` with upstream's wrapper.

After every call, as the tests' ``compare_call``: outputs bitwise, their autograd facts (requires_grad, grad_fn,
view-ness, creation meta), in-place updates of the inputs, exception types, hits, misses and call counts. The
tests run a shorter search of the same kind (``test_generated_sequences.py``); this one runs for minutes.
"""

import argparse
import contextlib
import functools
import pathlib
import sys
import time

import hypothesis
import hypothesis.strategies as st
import torch

import thunder

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "thunder" / "tests"))
from fastpath_harness import Call, compare_call, t  # noqa: E402


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


# Where the tensors are made (--device).
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
        a, b = base[: shape[0] * shape[1]].view(shape), base[shape[0] * shape[1] :].view(shape)
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


def fields(autocast: bool) -> list:
    """One strategy per field of a kind of call, in ``make_inputs``' and ``context``'s order."""
    return [
        st.sampled_from([(2, 3), (3, 3)]),
        st.sampled_from([torch.float32, torch.float64]),
        st.booleans(),  # requires_grad
        st.sampled_from(["contiguous", "column_major", "sliced"]),
        st.sampled_from(["independent", "same", "views"]),
        st.sampled_from([1, 2, 2.0, -1]),
        st.booleans(),  # grad mode
        st.sampled_from([torch.float32, torch.float64]),  # default dtype
    ] + ([st.sampled_from([None, torch.bfloat16])] if autocast else [])


@st.composite
def call_pool(draw, fields):
    """A kind of call and, for each field, a variation of it with that field redrawn (often to another value): each
    variation meets the entry that the first call made unless the guard tells the one difference."""
    base = draw(st.tuples(*fields))
    return [base] + [base[:i] + (draw(field),) + base[i + 1 :] for i, field in enumerate(fields)]


class Tally:
    def __init__(self):
        self.examples = self.calls = self.served = self.under_autocast = self.served_under_autocast = 0
        self.regions = 0  # FusionRegions made (CUDA)


def check(function, cache, pool, order, tally: Tally):
    # Each kind once, in order (the base makes the first entry, each variation then meets it), then repeats.
    sequence = pool + [pool[i % len(pool)] for i in order]
    calls = [
        Call(functools.partial(make_inputs, shape, dtype, rg, layout, aliasing, n, i), ctx=context(grad, default, *amp))
        for i, (shape, dtype, rg, layout, aliasing, n, grad, default, *amp) in enumerate(sequence)
    ]
    up = thunder.jit(function, fastpath=False, cache=cache)
    fast = thunder.jit(function, fastpath=True, cache=cache)
    for i, call in enumerate(calls):
        try:
            served = compare_call(up, fast, call, i)
        except Exception as e:
            print(f"failed: {function.__name__}, {cache}, call {i}: {type(e).__name__}: {str(e)[:300]}", flush=True)
            raise
        tally.served += served
        if len(sequence[i]) > 8 and sequence[i][8] is not None:
            tally.under_autocast += 1
            tally.served_under_autocast += served
    tally.examples += 1
    tally.calls += len(calls)


def count_regions(tally: Tally) -> None:
    """Counts the FusionRegions made (the fast path's nvFuser regions), so that a CUDA run shows it exercised them."""
    from thunder.fastpath import nvfuser

    init = nvfuser.FusionRegion.__init__

    def counting_init(self, *args, **kwargs):
        tally.regions += 1
        init(self, *args, **kwargs)

    nvfuser.FusionRegion.__init__ = counting_init


def main() -> None:
    global DEVICE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--autocast", action="store_true", help="add autocast to the fields, and a matmul")
    parser.add_argument("--no-shrink", action="store_true", help="report the first failing example as found")
    opts = parser.parse_args()
    DEVICE = torch.device(opts.device)
    functions = FUNCTIONS + ([matmul_scaled] if opts.autocast else [])
    strategies = fields(opts.autocast)
    tally = Tally()
    count_regions(tally)
    phases = [hypothesis.Phase.generate] if opts.no_shrink else list(hypothesis.Phase)
    settings = hypothesis.settings(
        deadline=None,
        max_examples=opts.examples,
        suppress_health_check=list(hypothesis.HealthCheck),
        database=None,
        phases=phases,
    )
    test = hypothesis.seed(opts.seed)(
        settings(
            hypothesis.given(
                st.sampled_from(functions),
                st.sampled_from(["constant values", "symbolic values"]),
                call_pool(strategies),
                st.lists(st.integers(0, len(strategies)), max_size=6),
            )(lambda function, cache, pool, order: check(function, cache, pool, order, tally))
        )
    )
    start = time.time()
    test()
    print(
        f"{tally.examples} examples, {tally.calls} calls, {tally.served} of them served by the guards, no difference"
        f" from upstream; {tally.regions} FusionRegions; {time.time() - start:.0f} s, torch {torch.__version__},"
        f" seed {opts.seed}, device {DEVICE}"
        + (
            f"; {tally.under_autocast} calls under autocast, {tally.served_under_autocast} of them served"
            if opts.autocast
            else ""
        )
    )


if __name__ == "__main__":
    main()
