"""Session 23: what the dispatcher's index lookup costs, session 22's form (args[0] only) against this session's
(an index into args or a keyword; first as three attributes, as at 89f4208, then as the one tuple that the state
holds since), each as the lines that run before the loop over hit functions, on a stand-in state with two shapes. Interleaved repeats, minima and medians, ns per lookup (this CPU; not in CI).

    .venv/bin/python benchmarks_results/s23_scripts/lookup_forms.py
"""

import statistics
import timeit
import types

import torch

a, b = torch.randn(8, 8), torch.randn(8, 8)
state = types.SimpleNamespace(calls=("n", "o"), unshaped_calls=(), shape_position=0,
                              calls_by_shape={(8, 8): ("n",), (8, 9): ("o",)})
kw_state = types.SimpleNamespace(**{**vars(state), "shape_position": "a"})
state.shape_index = (0, state.calls_by_shape, ())
kw_state.shape_index = ("a", state.calls_by_shape, ())


def session22(args, kwargs):
    calls = state.calls
    if state.calls_by_shape is not None and args and isinstance(args[0], torch.Tensor):
        try:
            calls = state.calls_by_shape.get(args[0].shape, state.unshaped_calls)
        except Exception:
            pass
    return calls


def session23(args, kwargs, state=state):
    calls = state.calls
    position = state.shape_position
    if position is not None:
        if type(position) is str:
            x = kwargs.get(position)
        else:
            x = args[position] if position < len(args) else None
        if isinstance(x, torch.Tensor):
            try:
                calls = state.calls_by_shape.get(x.shape, state.unshaped_calls)
            except Exception:
                pass
    return calls


def session23_one_attribute(args, kwargs, state=state):
    calls = state.calls
    index = state.shape_index
    if index is not None:
        position, by_shape, unshaped = index
        if type(position) is str:
            x = kwargs.get(position)
        else:
            x = args[position] if position < len(args) else None
        if isinstance(x, torch.Tensor):
            try:
                calls = by_shape.get(x.shape, unshaped)
            except Exception:
                pass
    return calls


def no_index(args, kwargs):
    calls = state.calls
    if state.calls_by_shape is None:  # the one read that every hit makes without an index
        pass
    return calls


forms = {
    "no index (one read)": lambda: no_index((a, b), {}),
    "session 22, args[0]": lambda: session22((a, b), {}),
    "session 23, args[0]": lambda: session23((a, b), {}),
    "session 23, keyword": lambda: session23((), {"a": a, "b": b}, kw_state),
    "one attribute, args[0]": lambda: session23_one_attribute((a, b), {}),
    "one attribute, keyword": lambda: session23_one_attribute((), {"a": a, "b": b}, kw_state),
}
assert session22((a, b), {}) == session23((a, b), {}) == session23((), {"a": a}, kw_state) == ("n",)
assert session23_one_attribute((a, b), {}) == session23_one_attribute((), {"a": a}, kw_state) == ("n",)
samples = {k: [] for k in forms}
for _ in range(21):
    for name, f in forms.items():
        samples[name].append(timeit.timeit(f, number=200_000) / 200_000 * 1e9)
for name, v in samples.items():
    print(f"{name:<24} min {min(v):7.1f}  median {statistics.median(v):7.1f} ns")
