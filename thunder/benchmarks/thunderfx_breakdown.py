"""Where a ThunderFX call's time goes, stage by stage, beside eager PyTorch, torch.compile and thunder.jit.

    python thunder/benchmarks/thunderfx_breakdown.py [--device cpu|cuda] [--json PATH]

ThunderFX (``thunder.dynamo.thunderfx``) hands the graphs that Dynamo captures to a backend that splits each into
regions, jits the regions that Thunder supports and returns the split ``GraphModule``. A call then runs Dynamo's frame
and guards, the split module's generated ``forward``, and for each region the jitted callable's call (its guard and
computation). This benchmark times, in one process with the systems interleaved repeat by repeat (medians of the
per-call time, µs):

* eager, ``torch.compile`` (inductor), ``torch.compile(backend="eager")`` (Dynamo with its own graph as it is),
  ``thunder.jit`` without and with the fast path, and ThunderFX without and with it;
* the stages of the fast ThunderFX call: what ThunderFX's backend returned to Dynamo for the graph (on the fast path
  the split module's lean call, NOTE "The split module's call" in ``thunder/fastpath/thunderfx.py``) called directly
  with the arguments that Dynamo passes it ("graph"); the regions called directly, one after another, with the
  arguments that the split module passes them ("regions"): those that Thunder jitted ("thunder regions", and their
  cache entries' computations alone, as small_graph.py's "computation") and those left to inductor ("inductor
  regions"). ThunderFX minus the graph is what Dynamo and ThunderFX's wrapper cost around it; the graph minus its
  regions is the split module's generated ``forward`` and its calls.

The cases are small modules under ``torch.no_grad()``, where Python's cost per call decides, and, where
``transformers`` is installed, hf_models.py's GPT-2 in inference (a system that fails on it, as ``thunder.jit`` does,
is reported and left out).
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import statistics
import sys
import time
import types

import torch

import thunder
import thunder.fastpath  # noqa: F401  (on lightning-thunder 0.2.6, installs the fast path; each system below chooses)
from thunder.dynamo import ThunderCompiler, thunderfx

from small_graph import computation_only, error_line


class TwoLinear(torch.nn.Module):
    """Two ``nn.Linear(16, 16)`` with ReLU and GELU between them."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(16, 16)
        self.b = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.nn.functional.gelu(self.b(torch.relu(self.a(x))))


class SinSumGt(torch.nn.Module):
    """Lightning-AI/lightning-thunder#1657's graph: ``sin``, ``sum``, ``gt``."""

    def forward(self, x):
        return torch.sin(x).sum(0) > 0


def make_cases(device: str) -> dict[str, tuple[torch.nn.Module, torch.Tensor]]:
    from small_graph import RMSNorm

    torch.manual_seed(0)
    cases = {
        "two_linear_4x16": (TwoLinear().to(device), torch.randn(4, 16, device=device)),
        "issue1657_400x400": (SinSumGt().to(device), torch.randn(400, 400, device=device)),
        "rmsnorm_1x2880": (RMSNorm(2880).to(device), torch.randn(1, 2880, device=device)),
    }
    if importlib.util.find_spec("transformers") is not None:
        # hf_models.py's GPT-2, inference at 1 x 16 tokens: ThunderFX splits its graph into many regions, some of
        # them inductor's (operators that Thunder does not take).
        from hf_models import TOKENS, VOCAB, make_model

        idx = torch.randint(0, VOCAB, (1, TOKENS), device=device)
        cases["gpt2_1x16"] = (make_model("gpt2").to(device).eval(), idx)
    return cases


class RecordingCompiler(ThunderCompiler):
    """ThunderCompiler that keeps what it returns to Dynamo and the arguments of its first call."""

    def __call__(self, gm, sample_args):
        graph = super().__call__(gm, sample_args)
        self.graph, self.args = graph, None

        def first_call_recorded(*args):
            if self.args is None:
                self.args = args
            return graph(*args)

        return first_call_recorded


def region_calls(split, args) -> dict[str, tuple]:
    """The arguments that the split module passes to each region on one call: those that Thunder jitted
    (``thunder_*`` submodules) and those that it left to inductor (``inductor_*``)."""
    recorded = {}

    class Recorder(torch.fx.Interpreter):
        def call_module(self, target, args, kwargs):
            if target.startswith(("thunder_", "inductor_")):
                recorded[target] = (args, kwargs)
            return super().call_module(target, args, kwargs)

    Recorder(split).run(*args)
    return recorded


def with_own_forward(module: torch.nn.Module) -> torch.nn.Module:
    """A copy of ``module`` whose class has its own copy of ``forward``'s code object. Dynamo keeps what it compiles
    for a frame on the frame's code object: systems compiled from such copies each have a cache of their own, as in a
    process that compiles the module one way only."""
    cls, forward = type(module), type(module).forward
    own = types.FunctionType(
        forward.__code__.replace(), forward.__globals__, forward.__name__, forward.__defaults__, forward.__closure__
    )
    module = copy.deepcopy(module)
    module.__class__ = type(cls.__name__, (cls,), {"forward": own, "__doc__": cls.__doc__})
    return module


def systems_of(module, x) -> dict:
    """The callables timed for one case, each taking no arguments."""
    recording = RecordingCompiler(fastpath=True)
    through_recording = torch.compile(with_own_forward(module), backend=recording)
    through_recording(x)
    graph, graph_args = recording.graph, recording.args
    split = recording.subgraph_infos[-1].split_graph_module
    regions = {name: (getattr(split, name), a, k) for name, (a, k) in region_calls(split, graph_args).items()}
    systems = {
        "eager": lambda: module(x),
        "torch.compile": torch.compile(with_own_forward(module)),
        "torch.compile eager backend": torch.compile(with_own_forward(module), backend="eager"),
        "thunder.jit upstream": thunder.jit(module, fastpath=False),
        "thunder.jit fast": thunder.jit(module, fastpath=True),
        "thunderfx upstream": thunderfx(with_own_forward(module), fastpath=False),
        "thunderfx fast": thunderfx(with_own_forward(module), fastpath=True),
    }
    calls = {name: (lambda f=f: f(x)) if name != "eager" else f for name, f in systems.items()}
    calls["graph"] = lambda: graph(*graph_args)
    # The regions are timed as the split module calls them, one after another: a region called alone, over and over,
    # runs faster than within the sequence, so regions timed one by one do not add up to what the graph spends on them.
    thunder_regions = {name: r for name, r in regions.items() if name.startswith("thunder_")}
    inductor_regions = {name: r for name, r in regions.items() if name.startswith("inductor_")}
    computations = [computation_only(fn)(*a) for fn, a, k in thunder_regions.values() if not k]
    calls["regions"] = in_order(regions.values())
    calls["thunder regions"] = in_order(thunder_regions.values())
    if len(computations) == len(thunder_regions):
        calls["their computations"] = in_order((c, (), {}) for c in computations)
    if inductor_regions:
        calls["inductor regions"] = in_order(inductor_regions.values())
    return calls


def in_order(calls) -> callable:
    """One callable that makes the calls ``(fn, args, kwargs)`` one after another."""
    calls = list(calls)

    def run():
        for fn, args, kwargs in calls:
            fn(*args, **kwargs)

    return run


def working(calls: dict) -> dict:
    """The callables that run; each one that raises (``thunder.jit`` on a model it cannot trace) is reported."""
    kept = {}
    for name, f in calls.items():
        try:
            f()
            kept[name] = f
        except Exception as e:
            print(f"  {name} fails: {error_line(e)}")
    return kept


def time_interleaved(calls: dict, repeats: int, seconds_per_repeat: float) -> dict[str, list[float]]:
    """Per-call µs of each callable, one repeat of each in turn, each repeat about ``seconds_per_repeat`` long."""
    numbers = {}
    for name, f in calls.items():
        for _ in range(20):
            f()
        start, n = time.perf_counter(), 0
        while time.perf_counter() - start < 0.05:
            f()
            n += 1
        numbers[name] = max(10, int(n * seconds_per_repeat / 0.05))
    times = {name: [] for name in calls}
    for _ in range(repeats):
        for name, f in calls.items():
            n = numbers[name]
            start = time.perf_counter()
            for _ in range(n):
                f()
            if torch.cuda.is_available():
                torch.cuda.synchronize()
            times[name].append((time.perf_counter() - start) / n * 1e6)
    return times


def run(device: str, repeats: int, seconds_per_repeat: float) -> list[dict]:
    rows = []
    for case, (module, x) in make_cases(device).items():
        with torch.no_grad():
            calls = working(systems_of(module, x))
            times = time_interleaved(calls, repeats, seconds_per_repeat)
        medians = {name: statistics.median(ts) for name, ts in times.items()}

        derived = {
            "around the graph": medians["thunderfx fast"] - medians["graph"],
            "graph less its regions": medians["graph"] - medians["regions"],
        }
        for name, ts in times.items():
            rows.append({"case": case, "stage": name, "median_us": medians[name], "min_us": min(ts), "max_us": max(ts)})
        for name, value in derived.items():
            rows.append({"case": case, "stage": name, "median_us": value, "derived": True})
        print(f"\n{case}")
        for row in rows:
            if row["case"] == case:
                spread = "" if row.get("derived") else f"  ({row['min_us']:.2f} - {row['max_us']:.2f})"
                print(f"  {row['stage']:<32} {row['median_us']:>9.2f} µs{spread}")
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--seconds-per-repeat", type=float, default=0.2)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    from small_graph import environment

    env = environment(args.device)
    print(" | ".join(f"{k} {v}" for k, v in env.items()))
    rows = run(args.device, args.repeats, args.seconds_per_repeat)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"argv": sys.argv[1:] if argv is None else argv, "environment": env, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
