"""Upstream against the fast path when the jitted function reads Python state (minutes; not in CI).

Six callables read values besides their tensor arguments: module globals (a number, a string, a tensor,
a helper function), closure cells, attributes of an argument object (a SimpleNamespace, a dataclass, a class with
``__slots__``, a class with a property, a class with ``__getattr__``, a class attribute, a nested object), default
arguments, and a module's plain attribute that holds a config object. Between calls, steps change that state:
rebind a global to another value or type, delete it and put it back, update a global tensor in place or rebind it
to a tensor of another shape, dtype or requires_grad, replace a closure cell's value, pass another kind of config
object or one with a missing attribute, change a class attribute, replace ``__defaults__``.

For each callable, random sequences of steps run on a fresh upstream/fast pair sharing the same state (a change
is made once, then both are called with equal fresh arguments). After each call it compares the outcome (the
output bitwise and its requires_grad, or the exception's type) and the hit and miss counts. It counts hits that
upstream's path served although their entry had a guard (too strict), how often upstream's result differs from
calling the function eagerly (upstream's own stale entries, which the fast path must reproduce), and how often
each path read the property (informative: the fast path reads it once more when it builds a guard, and on a miss
both its guards and upstream's prologues read it).

With ``--device cuda`` every tensor is made on the GPU, so thunder.jit's default executors put the computations
through nvFuser regions.


    python tools/python_state.py [--sequences N] [--steps K] [--seed S] [--cache C] [--device D] [--only NAMES]
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import types
import warnings

import torch

import thunder
import thunder.fastpath  # noqa: F401
from thunder.fastpath.explain import fastpath_state
from thunder.fastpath.publication import entry_used_last

# ------------------------------------------------------------------------------------------------ the callables
DEVICE = "cpu"  # where the tensors are made (--device): the search makes them under torch.device(DEVICE)
SCALE = 2.0
MODE = "add"
OFFSET = torch.ones(3)


def helper(x):
    return torch.sin(x)


def reads_globals(x):
    out = x * SCALE + OFFSET if MODE == "add" else (x - OFFSET) * SCALE
    return helper(out)


def reset_globals():
    global SCALE, MODE, OFFSET, helper
    SCALE, MODE, OFFSET, helper = 2.0, "add", torch.ones(3), _sin


_sin = helper


def _cos(x):
    return torch.cos(x)


def _rebind(name, value, label=None):
    """A step that binds the global ``name`` to ``value`` (a fresh one from ``value()`` where a label is given)."""

    def step():
        globals()[name] = value() if label is not None else value

    step.__name__ = f"{name} = {label or getattr(value, '__name__', value)}"
    return step


def _delete_scale():
    globals().pop("SCALE", None)


def _offset_add_():
    if isinstance(OFFSET, torch.Tensor):
        with torch.no_grad():
            OFFSET.add_(1)


GLOBAL_STEPS = [
    _rebind("SCALE", 3.0),
    _rebind("SCALE", 2.0),
    _rebind("SCALE", 2),
    _rebind("SCALE", True),
    _rebind("SCALE", float("nan")),
    _rebind("MODE", "add"),
    _rebind("MODE", "sub"),
    _rebind("MODE", "mul"),  # an unknown mode takes the else branch: same code, other value
    _rebind("OFFSET", lambda: torch.ones(3), "ones(3)"),
    _rebind("OFFSET", lambda: torch.ones(1), "ones(1)"),
    _rebind("OFFSET", lambda: torch.ones(3, dtype=torch.float64), "ones(3) f64"),
    _rebind("OFFSET", lambda: torch.ones(3, requires_grad=True), "ones(3) requiring grad"),
    _rebind("OFFSET", lambda: torch.ones(6)[::2], "ones(6)[::2]"),
    _rebind("OFFSET", lambda: 1.5, "1.5"),  # a number in place of a tensor
    _rebind("helper", _cos),
    _rebind("helper", _sin),
    _delete_scale,
    _offset_add_,
]


def closure_and_setters():
    k, t, flag = 2.0, torch.ones(3), True

    def reads_closure(x):
        return x * k + t if flag else x - t

    def setter(label=None, **values):
        def step():
            nonlocal k, t, flag
            k = values.get("k", k)
            t = values["t"]() if "t" in values else t
            flag = values.get("flag", flag)

        step.__name__ = "set " + (label or ", ".join(f"{key}={value}" for key, value in values.items()))
        return step

    def reset():
        nonlocal k, t, flag
        k, t, flag = 2.0, torch.ones(3), True

    steps = [
        setter(k=3.0),
        setter(k=2.0),
        setter(k=2),
        setter(k=-0.0),
        setter(flag=False),
        setter(flag=True),
        setter(flag=1),  # truthy, but an int: the branch is the same, the checked value's type is not
        setter("t=ones(3)", t=lambda: torch.ones(3)),
        setter("t=zeros(3, 1)", t=lambda: torch.zeros(3, 1)),
        setter("t=ones(3) bf16", t=lambda: torch.ones(3, dtype=torch.bfloat16)),
        setter("t=ones(3).t()", t=lambda: torch.ones(3).t()),
    ]
    return reads_closure, steps, reset


@dataclasses.dataclass
class DataConfig:
    scale: float = 2.0
    mode: str = "add"
    shift: object = None


class SlotsConfig:
    __slots__ = ("scale", "mode", "shift")

    def __init__(self, scale=2.0, mode="add", shift=None):
        self.scale, self.mode, self.shift = scale, mode, shift


class PropertyConfig:
    reads = 0  # how often `scale` was read

    def __init__(self, scale=2.0, mode="add", shift=None):
        self._scale, self.mode, self.shift = scale, mode, shift

    @property
    def scale(self):
        PropertyConfig.reads += 1
        return self._scale


class GetattrConfig:
    def __init__(self, **values):
        self._values = values

    def __getattr__(self, name):
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(name) from None


class ClassAttributeConfig:
    scale = 2.0
    mode = "add"
    shift = None


def reads_config(x, cfg):
    out = x * cfg.scale
    if cfg.mode == "add":
        out = out + 1
    return out if cfg.shift is None else out + cfg.shift


def config_makers():
    """Argument makers: fresh (args, kwargs) each time, over equal values."""
    x = lambda: torch.arange(12.0).reshape(4, 3)
    ns = lambda **kw: lambda: ((x(), types.SimpleNamespace(**{"scale": 2.0, "mode": "add", "shift": None, **kw})), {})
    of = lambda cls, **kw: lambda: ((x(), cls(**kw)), {})
    return [
        ns(),
        ns(scale=3.0),
        ns(scale=3),
        ns(mode="sub"),
        ns(shift=torch.ones(3)),
        ns(shift=torch.ones(4, 1)),
        ns(scale=torch.tensor(2.0)),  # a tensor where a number was
        lambda: ((x(), types.SimpleNamespace(scale=2.0, mode="add")), {}),  # no `shift`: AttributeError
        of(DataConfig),
        of(DataConfig, scale=0.5),
        of(DataConfig, mode="sub"),
        of(SlotsConfig),
        of(SlotsConfig, shift=torch.ones(3)),
        of(PropertyConfig),
        of(PropertyConfig, scale=4.0),
        of(GetattrConfig, scale=2.0, mode="add", shift=None),
        of(GetattrConfig, scale=2.0, mode="add"),
        of(ClassAttributeConfig),
    ]


def class_attribute_steps():
    def set_scale(value):
        def step():
            ClassAttributeConfig.scale = value

        step.__name__ = f"ClassAttributeConfig.scale = {value}"
        return step

    return [set_scale(2.0), set_scale(5.0), set_scale(5)]


def reads_nested(x, cfg):
    return x * cfg.inner.k + cfg.inner.bias


def nested_makers():
    x = lambda: torch.arange(6.0).reshape(2, 3)
    inner = lambda **kw: types.SimpleNamespace(**{"k": 2.0, "bias": torch.ones(3), **kw})
    outer = lambda **kw: lambda: ((x(), types.SimpleNamespace(inner=inner(**kw))), {})
    return [
        outer(),
        outer(k=3.0),
        outer(bias=torch.ones(2, 1)),
        outer(bias=1.0),
        lambda: ((x(), types.SimpleNamespace(inner=None)), {}),
    ]


def reads_defaults(x, k=2.0, *, mode="add"):
    return x * k + 1 if mode == "add" else x * k - 1


def defaults_steps():
    def set_defaults(k, mode):
        def step():
            reads_defaults.__defaults__ = (k,)
            reads_defaults.__kwdefaults__ = {"mode": mode}

        step.__name__ = f"defaults k={k}, mode={mode}"
        return step

    return [set_defaults(2.0, "add"), set_defaults(3.0, "add"), set_defaults(2.0, "sub")]


def reset_defaults():
    reads_defaults.__defaults__, reads_defaults.__kwdefaults__ = (2.0,), {"mode": "add"}


class ConfiguredModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)
        self.cfg = types.SimpleNamespace(scale=2.0, act="tanh")

    def forward(self, x):
        out = self.linear(x) * self.cfg.scale * SCALE
        return torch.tanh(out) if self.cfg.act == "tanh" else torch.relu(out)


def module_steps(model):
    def set_cfg(**values):
        def step():
            for key, value in values.items():
                setattr(model.cfg, key, value)

        step.__name__ = "cfg " + ", ".join(f"{k}={v}" for k, v in values.items())
        return step

    def replace_cfg():
        model.cfg = types.SimpleNamespace(scale=2.0, act="tanh")

    return [
        set_cfg(scale=3.0),
        set_cfg(scale=2.0),
        set_cfg(act="relu"),
        set_cfg(act="tanh"),
        replace_cfg,
        _rebind("SCALE", 3.0),
        _rebind("SCALE", 2.0),
    ]


def reset_module(model):
    model.cfg = types.SimpleNamespace(scale=2.0, act="tanh")
    reset_globals()


# ------------------------------------------------------------------------------------------------ the search
class Callable:
    """A callable to search: its argument makers, the steps that change the state it reads, a reset."""

    def __init__(self, name, fn, makers, steps=(), reset=lambda: None):
        self.name, self.fn, self.makers, self.steps, self.reset = name, fn, makers, list(steps), reset


def callables():
    x43 = lambda: ((torch.arange(12.0).reshape(4, 3),), {})
    x43_grad = lambda: ((torch.arange(12.0).reshape(4, 3).requires_grad_(),), {})
    closure, closure_steps, closure_reset = closure_and_setters()
    x = lambda: torch.arange(6.0).reshape(2, 3)
    model = ConfiguredModule()
    return [
        Callable("reads_globals", reads_globals, [x43, x43_grad], GLOBAL_STEPS, reset_globals),
        Callable("reads_closure", closure, [x43, x43_grad], closure_steps, closure_reset),
        Callable(
            "reads_config",
            reads_config,
            config_makers(),
            class_attribute_steps(),
            lambda: setattr(ClassAttributeConfig, "scale", 2.0),
        ),
        Callable("reads_nested", reads_nested, nested_makers()),
        Callable(
            "reads_defaults",
            reads_defaults,
            [lambda: ((x(),), {}), lambda: ((x(), 3.0), {}), lambda: ((x(),), {"mode": "sub"})],
            defaults_steps(),
            reset_defaults,
        ),
        # Upstream and the fast path jit this one model: they share its cfg, which the steps change.
        Callable("ConfiguredModule", model, [lambda: ((x(),), {})], module_steps(model), lambda: reset_module(model)),
    ]


def outcome(fn, make):
    with torch.device(DEVICE):  # where make's tensor factories put their tensors
        args, kwargs = make()
    try:
        out = fn(*args, **kwargs)
    except Exception as e:
        return ("raised", type(e).__name__)
    return ("returned", out.detach().clone(), out.requires_grad)


def equal(x, y):
    """Bitwise equal, where NaN equals NaN (a NaN read from the state gives NaN outputs on both paths)."""
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if not x.is_floating_point():
        return torch.equal(x, y)
    return torch.equal(x.isnan(), y.isnan()) and torch.equal(x.nan_to_num(0.0), y.nan_to_num(0.0))


def same(a, b):
    if a[0] != b[0] or a[0] == "raised":
        return a == b
    return equal(a[1], b[1]) and a[2] == b[2]


def close(a, b):
    if a[0] != b[0] or a[0] == "raised":
        return a == b
    return a[1].shape == b[1].shape and torch.allclose(a[1].double(), b[1].double(), equal_nan=True) and a[2] == b[2]


def counts(f):
    return thunder.cache_hits(f), thunder.cache_misses(f)


class Tally:
    def __init__(self):
        self.sequences = self.calls = self.differences = self.too_strict = self.stale = self.hits = 0
        self.region_calls = 0  # guarded entries (at the sequences' ends) whose hit calls an nvFuser region directly
        self.property_reads = [0, 0]  # upstream, fast
        self.unsupported = set()


def run_sequence(c: Callable, rng: random.Random, steps: int, cache: str, tally: Tally):
    with torch.device(DEVICE):
        c.reset()
    upstream = thunder.jit(c.fn, fastpath=False, cache=cache)
    fast = thunder.jit(c.fn, cache=cache)
    state = fastpath_state(fast)
    history = []
    for _ in range(steps):
        if c.steps and rng.random() < 0.4:
            change = rng.choice(c.steps)
            with torch.device(DEVICE):
                change()
            history.append(change.__name__)
        index = rng.randrange(len(c.makers))
        history.append(f"call {index}")
        make = c.makers[index]
        torch.manual_seed(len(history))
        reads = PropertyConfig.reads
        a = outcome(upstream, make)
        tally.property_reads[0] += PropertyConfig.reads - reads
        guarded_before, hits_before = {id(hit.entry) for hit in state.hits}, thunder.cache_hits(fast)
        reads = PropertyConfig.reads
        b = outcome(fast, make)
        tally.property_reads[1] += PropertyConfig.reads - reads
        tally.calls += 1
        if not same(a, b) or counts(upstream) != counts(fast):
            tally.differences += 1
            print(f"  {c.name}: {history} differs: {a[0]} {b[0]} {counts(upstream)} {counts(fast)}")
            if a[0] == b[0] == "returned":
                print(f"    upstream {a[1].flatten()[:4].tolist()}, fast {b[1].flatten()[:4].tolist()}")
            break
        if thunder.cache_hits(fast) > hits_before:
            if state.published is None:
                tally.too_strict += id(entry_used_last(thunder.compile_stats(fast))) in guarded_before
            else:
                tally.hits += 1
        reads = PropertyConfig.reads
        eager = outcome(c.fn, make)
        PropertyConfig.reads = reads  # only the jitted calls' reads are counted
        if not close(a, eager):
            tally.stale += 1
            if tally.stale <= 2:  # the first two per callable, to tell what upstream does not check
                print(f"  {c.name}: upstream differs from eager after {history}: {a[0]}, eager {eager[0]}")
    tally.sequences += 1
    tally.region_calls += sum(hit.region_call is not None for hit in state.hits)
    tally.unsupported.update(state.unsupported)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sequences", type=int, default=100)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default="constant values", help="thunder.jit's cache option")
    parser.add_argument("--device", default="cpu", help="where the tensors live (cuda: nvFuser's regions too)")
    parser.add_argument("--only", default=None, help="comma-separated callable names (default: all)")
    opts = parser.parse_args()
    warnings.filterwarnings("ignore")
    rng = random.Random(opts.seed)
    total = Tally()
    global DEVICE
    DEVICE = opts.device
    with torch.device(DEVICE):
        searched = callables()
    for c in searched:
        if opts.only and c.name not in opts.only.split(","):
            continue
        tally = Tally()
        for _ in range(opts.sequences):
            run_sequence(c, rng, opts.steps, opts.cache, tally)
        with torch.device(DEVICE):
            c.reset()
        print(
            f"{c.name}: {tally.sequences} sequences, {tally.calls} calls, {tally.differences} with a difference, "
            f"{tally.too_strict} too-strict hits; {tally.hits} calls served by the guards "
            f"({tally.region_calls} entries calling a region directly); upstream's result "
            f"differs from eager's in {tally.stale} calls; property reads upstream {tally.property_reads[0]}, "
            f"fast {tally.property_reads[1]}; kept upstream's path: {sorted(tally.unsupported) or 'none'}"
        )
        for field in ("sequences", "calls", "differences", "too_strict", "stale", "hits"):
            setattr(total, field, getattr(total, field) + getattr(tally, field))
    print(
        f"all: {total.sequences} sequences, {total.calls} calls, {total.differences} with a difference, "
        f"{total.too_strict} too-strict hits, {total.hits} served by the guards "
        f"(cache={opts.cache!r}, seed {opts.seed}, device {opts.device})"
    )


if __name__ == "__main__":
    main()
