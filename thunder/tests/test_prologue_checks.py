"""Tests of the prologue checks that the Python executor prints as their condition inline (NOTE: Checks printed
inline in thunder/executors/pythonex.py): each printed check passes exactly where the check's implementation passes,
and fails with the implementation's error."""

import dataclasses
import math

import pytest
import thunder
import torch
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from thunder.core.baseutils import build_callable
from thunder.core.proxies import IntegerProxy, Proxy
from thunder.core.symbol import default_python_printer
from thunder.core.trace import TraceCtx, from_trace, tracectx
from thunder.executors import pythonex

SETTINGS = settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


# What the checks and their conditions raise on the values below
CHECK_ERRORS = (RuntimeError, AssertionError, TypeError, ValueError, LookupError, NameError, AttributeError)


def outcome(fn, *args):
    """None where ``fn(*args)`` returns, else the type and message of what it raised."""
    try:
        fn(*args)
    except CHECK_ERRORS as e:
        return type(e), str(e)
    return None


class ConditionFailed(Exception):
    pass


def _condition_failed(*args):
    raise ConditionFailed


def printed_check(check, *static_args, dims: int = 0):
    """The check of ``x`` against ``static_args`` as the Python executor prints it into a prologue, as a function of
    ``x`` and of the values of the ``dims`` symbolic dimensions among ``static_args`` (see ``symbolic_shape``); and
    its printed condition alone: the same code, where the call of the check raises ``ConditionFailed``."""
    with tracectx(TraceCtx()):
        x = Proxy(name="x")
        bsym = check.bind(x, *(a(x) if callable(a) else a for a in static_args), output=None)
    lines = bsym.python(indent=1)
    import_ctx, call_ctx, object_ctx = bsym.gather_ctxs()
    ctx = {"torch": torch, **import_ctx, **object_ctx}
    source = "\n".join([f"def printed({', '.join(['x', *(f'i{k}' for k in range(dims))])}):", *lines])
    printed = build_callable("printed", source, "prologue_check", {**ctx, **call_ctx})
    condition = build_callable("printed", source, "prologue_check", {**ctx, **call_ctx, check.name: _condition_failed})
    return printed, condition, lines


def condition_passes(condition, *args) -> bool:
    try:
        condition(*args)
    except (ConditionFailed, *CHECK_ERRORS):
        return False
    return True


def symbolic_shape(shape, symbolic):
    """``shape`` with the dimensions at the positions in ``symbolic`` as the symbolic dimensions i0, i1, ..."""

    def make(_):
        proxies = iter(IntegerProxy(name=f"i{k}", value=shape[i]) for k, i in enumerate(sorted(symbolic)))
        return tuple(next(proxies) if i in symbolic else d for i, d in enumerate(shape))

    return make


numbers = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(allow_nan=True, allow_infinity=True),
)
# A few kinds of objects, numbers close to each other in value or type among them
values = st.one_of(
    numbers,
    st.sampled_from([0, 0.0, -0.0, 1, 1.0, True, False, 1 + 0j, math.nan, complex(math.nan, 1), math.inf, -math.inf]),
    st.text(max_size=4),
    st.none(),
    st.lists(st.integers(), max_size=4),
    st.tuples(st.integers(), st.integers()),
    st.sampled_from([torch.float32, torch.float64, torch.device("cpu"), torch.device("meta"), torch.zeros(2)]),
)


def assert_printed_as_impl(check, impl, x, *static_args):
    """The printed check raises what its implementation raises, and its condition passes where the implementation
    passes."""
    printed, condition, _ = printed_check(check, *static_args)
    expected = outcome(impl, x, *static_args)
    assert outcome(printed, x) == expected
    assert condition_passes(condition, x) == (expected is None)


# A number of the same value in another type, or the same value in a new object
CONVERSIONS = {"int": int, "float": float, "complex": complex, "bool": bool, "copy": lambda v: type(v)(v)}


@SETTINGS
@given(v=numbers, conversion=st.sampled_from([None, *CONVERSIONS]), other=values)
@example(v=math.nan, conversion="copy", other=0)
@example(v=complex(math.nan, 1), conversion="copy", other=0)
@example(v=-math.inf, conversion="float", other=0)
@example(v=-0.0, conversion="int", other=0)
@example(v=True, conversion="int", other=0)
@example(v=1, conversion="bool", other=0)
@example(v=2, conversion="float", other=0)
@example(v=2**70, conversion="copy", other=0)
def test_check_number_type_and_value(v, conversion, other):
    x = other
    if conversion is not None:
        try:
            x = CONVERSIONS[conversion](v)
        except (TypeError, ValueError, OverflowError):
            pass
    assert_printed_as_impl(pythonex.check_number_type_and_value, pythonex._check_number_type_and_value_impl, x, v)


@SETTINGS
@given(x=st.one_of(values, st.text()), value=st.text(), same=st.booleans())
def test_check_string_value(x, value, same):
    impl = pythonex._check_string_value_impl
    assert_printed_as_impl(pythonex.check_string_value, impl, value if same else x, value)


@SETTINGS
@given(x=values, length=st.integers(min_value=0, max_value=4))
def test_check_len(x, length):
    assert_printed_as_impl(pythonex.check_len, pythonex._check_len_impl, x, length)


@SETTINGS
@given(x=values)
def test_check_none(x):
    assert_printed_as_impl(pythonex.check_none, pythonex._check_none_impl, x)


@SETTINGS
@given(x=values, v=st.sampled_from([torch.float32, torch.int64, torch.device("cpu"), torch.device("meta")]))
def test_check_literal_like(x, v):
    assert_printed_as_impl(pythonex.check_literal_like, pythonex._check_literal_like_impl, x, v)


@pytest.mark.parametrize(
    "check, static_args, condition",
    (
        (pythonex.check_len, (3,), "__len(x) == 3"),
        (pythonex.check_none, (), "x is None"),
        (pythonex.check_string_value, ("a'b",), 'x == "a\'b"'),
        (pythonex.check_literal_like, (torch.float32,), "x == torch.float32"),
        (pythonex.check_literal_like, (torch.device("cpu"),), "x == __device_literals['cpu']"),
        (pythonex.check_number_type_and_value, (True,), "x is True"),
        (pythonex.check_number_type_and_value, (2,), "__type(x) is __int and x == 2"),
        (pythonex.check_number_type_and_value, (math.nan,), "__type(x) is __float and x != x"),
        (
            pythonex.check_tensor_shape_and_metadata,
            (symbolic_shape((2, 3), {0}), "cpu", torch.float32, False),
            (
                "__isinstance(x, torch.Tensor) and __len(x.shape) == 2 and x.shape[1] == 3 and __str(x.device) == 'cpu' "
                "and x.dtype == torch.float32 and x.requires_grad == False"
            ),
        ),
    ),
    ids=lambda v: v.name if hasattr(v, "name") else None,
)
def test_checks_are_printed_inline(check, static_args, condition):
    _, _, (line,) = printed_check(check, *static_args)
    assert line.startswith(f"  if not ({condition}): {check.name}(x")


DTYPES = (torch.float32, torch.float64, torch.int64, torch.bool)


@SETTINGS
@given(
    shape=st.lists(st.integers(min_value=0, max_value=3), max_size=3).map(tuple),
    symbolic=st.sets(st.integers(min_value=0, max_value=2)),
    device=st.sampled_from(["cpu", "meta"]),
    dtype=st.sampled_from(DTYPES),
    requires_grad=st.booleans(),
    change=st.sampled_from([None, "dim", "ndim", "dtype", "device", "requires_grad", "not_a_tensor"]),
    dim=st.integers(min_value=0, max_value=2),
    other=values,
)
@example(
    shape=(2, 3), symbolic={0}, device="cpu", dtype=torch.float32, requires_grad=False, change=None, dim=0, other=0
)
@example(
    shape=(2, 3), symbolic={0}, device="cpu", dtype=torch.float32, requires_grad=False, change="dim", dim=1, other=0
)
@example(
    shape=(2, 3), symbolic={1}, device="cpu", dtype=torch.float32, requires_grad=True, change="dim", dim=0, other=0
)
@example(
    shape=(2, 3), symbolic={0, 1}, device="meta", dtype=torch.int64, requires_grad=False, change="ndim", dim=0, other=0
)
@example(shape=(), symbolic=set(), device="cpu", dtype=torch.bool, requires_grad=False, change=None, dim=0, other=0)
def test_check_tensor_metadata(shape, symbolic, device, dtype, requires_grad, change, dim, other):
    symbolic = {i for i in symbolic if i < len(shape)}
    check = pythonex.check_tensor_shape_and_metadata
    static_args = (symbolic_shape(shape, symbolic), device, dtype, requires_grad)
    printed, condition, _ = printed_check(check, *static_args, dims=len(symbolic))
    # A tensor with the metadata that the check requires, but for one property
    x_shape = list(shape)
    if change == "dim" and shape:
        x_shape[dim % len(shape)] += 1
    elif change == "ndim":
        x_shape.append(1)
    x_dtype = DTYPES[(DTYPES.index(dtype) + 1) % len(DTYPES)] if change == "dtype" else dtype
    x_device = {"cpu": "meta", "meta": "cpu"}[device] if change == "device" else device
    x = torch.zeros(x_shape, dtype=x_dtype, device=x_device)
    if x_dtype.is_floating_point:
        x.requires_grad_(requires_grad != (change == "requires_grad"))
    if change == "not_a_tensor":
        x = other
    # As in a prologue, the symbolic dimensions are read from the tensor's shape (where it has them)
    dims = [x.shape[i] if isinstance(x, torch.Tensor) and i < x.ndim else None for i in sorted(symbolic)]
    values_of_dims = iter(dims)
    runtime_shape = tuple(next(values_of_dims) if i in symbolic else d for i, d in enumerate(shape))
    expected = outcome(pythonex._check_tensor_shape_and_metadata_impl, x, runtime_shape, device, dtype, requires_grad)
    assert outcome(printed, x, *dims) == expected
    assert condition_passes(condition, x, *dims) == (expected is None)


INLINE_CHECKS = {
    "check_len",
    "check_number_type_and_value",
    "check_string_value",
    "check_literal_like",
    "check_none",
    "check_tensor_metadata",
}


def printed_as_calls(prologue_trace):
    """The prologue with each check printed as a call of the check, as other symbols are printed."""
    trace = from_trace(prologue_trace)
    trace.bound_symbols = [
        b.from_bsym(sym=dataclasses.replace(b.sym, python_printer=default_python_printer))
        if b.sym.id in INLINE_CHECKS
        else b
        for b in prologue_trace.bound_symbols
    ]
    return trace.python_callable(include_decorators=False)


def prologue_outcome(prologue, *args):
    """``outcome`` of a prologue, with what the cache lookup records before it calls one (none of the arguments
    share a storage)."""
    cache_info = {
        "default_dtype": torch.get_default_dtype(),
        "default_device": torch.get_default_device(),
        "is_autocast_enabled": False,
        "alias_tensor_indices": "",
        "is_grad_enabled": torch.is_grad_enabled(),
        "no_grad_sync": False,
    }
    token = thunder._cache_info_ctx.set(cache_info)
    try:
        return outcome(prologue, *args)
    finally:
        thunder._cache_info_ctx.reset(token)


def g(x, n, s):
    return x * n if s == "mul" else x + n


@settings(max_examples=25, deadline=None, database=None)
@given(
    n=st.one_of(st.booleans(), st.integers(-3, 3), st.floats(-2, 2), st.sampled_from([math.nan, math.inf, 1j])),
    s=st.sampled_from(["mul", "add", 'a"\n\\b']),
    cache=st.sampled_from(["constant values", "symbolic values"]),
    other_x=st.sampled_from(["same", "other", "shape", "dtype", "requires_grad", "ndim"]),
    other_n=st.sampled_from(["same", 1, 1.0, True, 2, -0.0, math.nan, 1j]),
    other_s=st.sampled_from(["same", "mul", "add", 1]),
)
def test_jitted_hits_and_misses(n, s, cache, other_x, other_n, other_s):
    # With symbolic values, a string is checked for its type only, on main too: g(x, n, "add") hits the entry
    # made for g(x, n, "mul") and returns its result
    assume(cache == "constant values" or other_s == "same")
    x = torch.randn(2, 3)
    jf = thunder.jit(g, cache=cache)
    jf(x, n, s)
    entry = thunder.compile_stats(jf).interpreter_cache[0]
    other_x = {
        "same": x,
        "other": torch.randn(2, 3),
        "shape": torch.randn(3, 3),
        "dtype": x.double(),
        "requires_grad": torch.randn(2, 3, requires_grad=True),
        "ndim": torch.randn(6),
    }[other_x]
    args = (other_x, n if other_n == "same" else other_n, s if other_s == "same" else other_s)
    expected = prologue_outcome(printed_as_calls(entry.prologue_traces[-1]), *args)
    assert prologue_outcome(entry.prologue_fn, *args) == expected
    hits = thunder.cache_hits(jf)
    results = []
    error = outcome(lambda: results.append(jf(*args)))
    if error is not None:
        # Compiling a new entry can fail (a string times a tensor), as the function fails; never on a hit
        assert expected is not None and thunder.cache_hits(jf) == hits
        assert outcome(g, *args)[0] is error[0]
        return
    torch.testing.assert_close(results[0], g(*args), equal_nan=True)
    assert thunder.cache_hits(jf) == hits + (expected is None)


@pytest.mark.parametrize(
    "args, error",
    (
        ((torch.randn(2, 3), 3, "mul", 7), (RuntimeError, "Expected seq=")),
        ((torch.randn(2, 4), 3, "mul"), (AssertionError, "expected tensor with (2, 3)")),
        ((torch.randn(2, 3), 3.0, "mul"), (RuntimeError, "Expected 3.0 to be equal to and have the type of 3")),
        ((torch.randn(2, 3), 3, "add"), (RuntimeError, "Expected 'add' to be equal to 'mul'")),
    ),
)
def test_failing_check_raises_its_error(args, error):
    jf = thunder.jit(g)
    jf(torch.randn(2, 3), 3, "mul")
    entry = thunder.compile_stats(jf).interpreter_cache[0]
    error_type, message = prologue_outcome(entry.prologue_fn, *args)
    assert error_type is error[0] and message.startswith(error[1])
    assert prologue_outcome(printed_as_calls(entry.prologue_traces[-1]), *args) == (error_type, message)


def test_parameters_named_after_builtins():
    # The printed conditions call the builtins by names of their own: a parameter may be named type, len or str
    def f(x, type, len, str, n):
        return x * type + len * str * n

    jf = thunder.jit(f)
    args = [torch.randn(3, generator=torch.Generator().manual_seed(i)) for i in range(4)]
    for n in (2, 2, 3):
        torch.testing.assert_close(jf(*args, n), f(*args, n), rtol=0, atol=0)
    assert (thunder.cache_hits(jf), thunder.cache_misses(jf)) == (1, 2)
