"""Where a ThunderFX call's time goes, stage by stage, beside eager PyTorch, torch.compile and Dynamo's eager backend.

    python thunder/benchmarks/thunderfx_breakdown.py [--device cpu|cuda] [--cases ...] [--repeats N] [--json PATH]

ThunderFX (``thunder.dynamo.thunderfx``) hands the graphs that Dynamo captures to a backend that splits each into
regions, jits the regions that Thunder supports and returns the split graph's call. A call then runs Dynamo's frame
and guards, the split module's generated ``forward``, and for each region the jitted callable's call (its prologue and
computation). This benchmark times, in one process with the systems interleaved repeat by repeat, under
``torch.no_grad()`` (medians of the per-call time, µs):

* eager, ``torch.compile`` (inductor), ``torch.compile(backend="eager")`` (Dynamo with its own graph as it is), and
  ThunderFX without the fast path (``fastpath=False``) and with it;
* the stages of ThunderFX's call: what its backend returned to Dynamo for the (first) graph, called directly with
  the arguments that Dynamo passes it ("graph"); the regions called one after another with the arguments that the split
  module passes them ("regions"), those that Thunder jitted ("thunder regions") and those left to inductor
  ("inductor regions").

Derived: "around the graph" (ThunderFX less its graph: Dynamo's frame, guards and handling of the graph's inputs and
outputs, and ThunderFX's wrapper), beside "Dynamo's own" (the same for ``torch.compile(backend="eager")``: less its
graph's ``forward``, "eager backend's graph", called directly), and "graph less its regions" (the split module's
``forward`` and its calls). Each system is compiled through a function of its own, so that Dynamo's cache for one is
not searched by another's calls. The cases: two ``nn.Linear`` (``two_linear_4x16``) and, where ``transformers`` is
installed, hf_models.py's GPT-2 and Llama at 1 x 16 tokens.
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

from small_graph import environment
from thunder.dynamo import ThunderCompiler, thunderfx


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
        from hf_models import TOKENS, VOCAB, make_model

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
    """The callables timed for one case, each taking no arguments."""
    thunder_compiler = ThunderCompiler()
    graph, graph_args = recorded_graph(module, x, thunder_compiler)
    split = thunder_compiler.subgraph_infos[0].split_graph_module
    eager_graph, eager_graph_args = recorded_graph(module, x, lambda gm, sample_args: gm.forward)
    regions = {name: (getattr(split, name), a, k) for name, (a, k) in region_calls(split, graph_args).items()}
    compiled = {
        "torch.compile": torch.compile(own_entry(copy.deepcopy(module))),
        "torch.compile eager backend": torch.compile(own_entry(copy.deepcopy(module)), backend="eager"),
        "thunderfx no fastpath": thunderfx(own_entry(copy.deepcopy(module)), fastpath=False),
        "thunderfx": thunderfx(own_entry(copy.deepcopy(module))),
    }
    calls = {"eager": lambda: module(x), **{name: (lambda f=f: f(x)) for name, f in compiled.items()}}
    calls["graph"] = lambda: graph(*graph_args)
    calls["eager backend's graph"] = lambda: eager_graph(*eager_graph_args)
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


def run(device: str, cases: str, repeats: int, seconds_per_repeat: float) -> list[dict]:
    rows = []
    for case, (module, x) in make_cases(device, cases).items():
        with torch.no_grad():
            times = time_interleaved(systems_of(module, x), repeats, seconds_per_repeat)
        medians = {name: statistics.median(ts) for name, ts in times.items()}
        derived = {
            "around the graph": medians["thunderfx"] - medians["graph"],
            "Dynamo's own": medians["torch.compile eager backend"] - medians["eager backend's graph"],
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
