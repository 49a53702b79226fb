"""Where a ThunderFX call's time goes, stage by stage, beside eager PyTorch, torch.compile and Dynamo's eager backend.

    python thunder/benchmarks/thunderfx_breakdown.py [--device cpu|cuda] [--cases ...] [--repeats N] [--json PATH]

ThunderFX (``thunder.dynamo.thunderfx``) hands the graphs that Dynamo captures to a backend that splits each into
regions, jits the regions that Thunder supports and returns the split graph's call. A call then runs Dynamo's frame
and guards, the split module's generated ``forward``, and for each region the jitted callable's call (its prologue and
computation). This benchmark times, in one process with the systems interleaved repeat by repeat, under
``torch.no_grad()`` (medians of the per-call time, µs):

* eager, ``torch.compile`` (inductor), ``torch.compile(backend="eager")`` (Dynamo with its own graph as it is), and
  ThunderFX without the fast path (``fastpath=False``) and with it;
* the stages of ThunderFX's call: "around the graph", ThunderFX's call less the time that its graph (what its backend
  returned to Dynamo) takes inside the same call, timed from inside it: Dynamo's frame, guards and handling of the
  graph's inputs and outputs, and ThunderFX's wrapper; beside it "Dynamo's own", the same for
  ``torch.compile(backend="eager")`` and its graph's ``forward``; the graph called directly with the arguments that
  Dynamo passes it ("graph", and "eager backend's graph"); the regions called one after another with the arguments that
  the split module passes them ("regions"), those that Thunder jitted ("thunder regions") and those left to inductor
  ("inductor regions").

Derived: "graph less its regions" (the split module's ``forward`` and its calls), the median over the repeats of the
graph's time less the regions' in the same repeat. Each system is compiled through a function of its own, so that
Dynamo's cache for one is not searched by another's calls. The cases: two ``nn.Linear`` (``two_linear_4x16``) and,
where ``transformers`` is installed, hf_models.py's GPT-2 and Llama at 1 x 16 tokens.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import statistics
import sys
import time

import torch

from thunder.benchmarks.small_graph import calibrate, environment, sampler
from thunder.dynamo import ThunderCompiler, thunderfx
from thunder.dynamo.compiler import ThunderFXCompiledObject


class TwoLinear(torch.nn.Module):
    """Two ``nn.Linear(16, 16)`` with ReLU and GELU between them."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(16, 16)
        self.b = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.nn.functional.gelu(self.b(torch.relu(self.a(x))))


def make_cases(device: str, names: str) -> dict[str, tuple[torch.nn.Module, torch.Tensor]]:
    torch.manual_seed(0)
    cases = {"two_linear_4x16": (TwoLinear().to(device), torch.randn(4, 16, device=device))}
    if importlib.util.find_spec("transformers") is not None:
        from thunder.benchmarks.hf_models import TOKENS, VOCAB, make_model

        idx = torch.randint(0, VOCAB, (1, TOKENS), device=device)
        for model in ("gpt2", "llama"):
            cases[f"{model}_1x16"] = (make_model(model).to(device).eval(), idx)
    return {name: case for name, case in cases.items() if not names or name.startswith(tuple(names.split(",")))}


def own_entry(module: torch.nn.Module):
    """``module``'s call through a function with a code object of its own: Dynamo keeps what it compiles on the code
    object of the frame it starts from, so each system compiled from such a function has a cache of its own."""

    def call_module(x):
        return module(x)

    call_module.__code__ = call_module.__code__.replace()
    return call_module


def recorded_graph(module: torch.nn.Module, x: torch.Tensor, backend):
    """What ``backend`` returns to Dynamo for ``module``'s graph (the first that it compiles) and the arguments that
    Dynamo passes it on the first call."""
    recorded = {}

    def recording_backend(gm, sample_args):
        graph = backend(gm, sample_args)

        def call(*args):
            recorded.setdefault("graph", (graph, args))
            return graph(*args)

        return call

    torch.compile(own_entry(copy.deepcopy(module)), backend=recording_backend)(x)
    return recorded["graph"]


class AroundTheGraph:
    """Calls of ``module`` compiled by Dynamo with ``backend``, each timed less the time that its graph takes inside
    it: the graph's calls are timed from inside the same calls. ``wrap`` wraps the compiled callable as ``thunderfx``
    wraps it."""

    def __init__(self, module: torch.nn.Module, x: torch.Tensor, backend, wrap=None):
        self.backend = backend
        self.graph_ns = 0
        compiled = torch.compile(own_entry(copy.deepcopy(module)), backend=self.timed_backend)
        compiled = wrap(compiled) if wrap else compiled
        self.call = lambda: compiled(x)

    def timed_backend(self, gm, sample_args):
        graph = self.backend(gm, sample_args)

        def timed_graph(*args):
            start = time.perf_counter_ns()
            try:
                return graph(*args)
            finally:
                self.graph_ns += time.perf_counter_ns() - start

        return timed_graph

    def sampler(self, budget_s: float):
        number = calibrate(self.call, budget_s)

        def sample() -> float:
            self.graph_ns = 0
            start = time.perf_counter_ns()
            for _ in range(number):
                self.call()
            return (time.perf_counter_ns() - start - self.graph_ns) / number / 1e3

        return sample


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


def in_order(calls) -> callable:
    """One callable that makes the calls ``(fn, args, kwargs)`` one after another."""
    calls = list(calls)

    def run():
        for fn, args, kwargs in calls:
            fn(*args, **kwargs)

    return run


def systems_of(module: torch.nn.Module, x: torch.Tensor) -> dict:
    """What is timed for one case: callables that take no arguments, and the calls timed less their graph."""
    thunder_compiler = ThunderCompiler()
    graph, graph_args = recorded_graph(module, x, thunder_compiler)
    split = thunder_compiler.subgraph_infos[0].split_graph_module
    eager_graph, eager_graph_args = recorded_graph(module, x, lambda gm, sample_args: gm.forward)
    regions = {name: (getattr(split, name), a, k) for name, (a, k) in region_calls(split, graph_args).items()}

    def own_copy():
        return own_entry(copy.deepcopy(module))

    def call(f):
        return lambda: f(x)

    thunder_fx_backend = ThunderCompiler()

    def thunderfx_object(compiled):
        return ThunderFXCompiledObject(thunder_fx_backend, compiled)

    # Each call that a derived figure subtracts is timed right after the one it is subtracted from (paired_difference)
    calls = {
        "eager": lambda: module(x),
        "torch.compile": call(torch.compile(own_copy())),
        "thunderfx no fastpath": call(thunderfx(own_copy(), fastpath=False)),
        "torch.compile eager backend": call(torch.compile(own_copy(), backend="eager")),
        "eager backend's graph": lambda: eager_graph(*eager_graph_args),
        "thunderfx": call(thunderfx(own_copy())),
        "around the graph": AroundTheGraph(module, x, thunder_fx_backend, wrap=thunderfx_object),
        "Dynamo's own": AroundTheGraph(module, x, lambda gm, sample_args: gm.forward),
        "graph": lambda: graph(*graph_args),
    }
    # The regions are timed as the split module calls them, one after another: a region called alone, over and over,
    # runs faster than within the sequence.
    calls["regions"] = in_order(regions.values())
    for kind in ("thunder", "inductor"):
        of_kind = [r for name, r in regions.items() if name.startswith(f"{kind}_")]
        if of_kind:
            calls[f"{kind} regions"] = in_order(of_kind)
    return calls


def time_interleaved(calls: dict, repeats: int, seconds_per_repeat: float) -> dict[str, list[float]]:
    """Per-call µs of each callable, one repeat of each in turn, each repeat about ``seconds_per_repeat`` long."""
    samplers = {
        name: f.sampler(seconds_per_repeat)
        if isinstance(f, AroundTheGraph)
        else sampler(f, calibrate(f, seconds_per_repeat))
        for name, f in calls.items()
    }
    times = {name: [] for name in calls}
    for _ in range(repeats):
        for name, sample in samplers.items():
            times[name].append(sample())
    return times


def paired_difference(a: list[float], b: list[float]) -> float:
    """The median, over the repeats, of ``a``'s time less ``b``'s in the same repeat: the two were timed one right
    after the other, so that a slower stretch of the machine weighs on both."""
    return statistics.median(x - y for x, y in zip(a, b))


def run(device: str, cases: str, repeats: int, seconds_per_repeat: float) -> list[dict]:
    rows = []
    for case, (module, x) in make_cases(device, cases).items():
        with torch.no_grad():
            times = time_interleaved(systems_of(module, x), repeats, seconds_per_repeat)
        derived = {"graph less its regions": paired_difference(times["graph"], times["regions"])}
        for name, ts in times.items():
            median = statistics.median(ts)
            rows.append({"case": case, "stage": name, "median_us": median, "min_us": min(ts), "max_us": max(ts)})
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
    parser.add_argument("--cases", default="", help="comma-separated case names or prefixes (default: all)")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--seconds-per-repeat", type=float, default=0.2)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    env = environment(args.device, None)
    del env["thunder_main"]
    print(" | ".join(f"{k} {v}" for k, v in env.items()))
    rows = run(args.device, args.cases, args.repeats, args.seconds_per_repeat)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"argv": sys.argv[1:] if argv is None else argv, "environment": env, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
