"""Per-step time of whole training steps: eager, upstream thunder.jit and the fast path side by side.

    python thunder/benchmarks/training_steps.py [--device cpu|cuda] [--cases a,b] [--quick] [--json PATH [--update]]
                                                [--rounds R] [--sync-each-step] [--with-compile] [--with-graphs]

A step is what a training loop runs: the loss from a forward with targets, its backward, the optimizer's step (AdamW:
fused on CUDA, foreach on the CPU) and ``zero_grad(set_to_none=True)``; each case also has a row without the
optimizer (forward and backward only). The models are the two that lightning-thunder's tests ship: LLaMA-2 and
nanoGPT scaled down (4 layers, width 256) at a host-bound size, batch 4 x 64 tokens, and nanoGPT at its
shakespeare-char configuration (6 layers, width 384, 6 heads, vocabulary 65, no bias) at 4 x 64 and 16 x 256.

Each system has its own copy of the model, made from one initialization, and its own optimizer; both variants of a
case use the same systems. After a warm-up (compilation and the optimizer's state), every system is timed
``--rounds`` times (at least two), in an order that rotates from round to round, all in this one process, and the
table shows each timing: an effect of the order, of the warm-up or of the other systems' memory use shows there
instead of hiding in one median. A timing is the median per-step time of ``blocks`` blocks of steps, each block ended
by a CUDA synchronization (with ``--sync-each-step``, every step; with ``--interleave-steps``, the systems' steps take
turns one by one, each timed alone). A row's mark: '=' the fast path's parameters after the warm-up steps bitwise equal
to upstream's, '~' upstream's close to eager's, '!' neither. Under the table: how many calls of the fast callables
missed or went through upstream's path while they were timed (0 expected: every timed step a hit), the CUDA caching
allocator's new device allocations per system, and each row where the fast path is slower than upstream beyond the
spread of the rows' timings.

With ``--with-compile``, ``torch.compile`` (default mode) joins them. With ``--with-graphs`` (CUDA), so do CUDA graphs:
upstream and the fast path with Thunder's ``CUDAGraphTransform`` ("thunder+graphs", "fast+graphs", each fast system
marked against its upstream counterpart) and ``torch.compile(mode="reduce-overhead")``; the optimizer runs eagerly in
every system. Under the table, then, the CUDA memory that each system's warm-up left allocated and reserved (its model
copy, the optimizer's state, and the graphs' static buffers and pools).

The systems that capture CUDA graphs each run in a process of their own (``OWN_PROCESS``): Thunder's
``CUDAGraphTransform`` and reduce-overhead's CUDA graphs in one process end it with "CUDA error: an illegal memory
access" once timing starts. Such a system is warmed up and timed alone, its rounds not interleaved with the others'
(``--own-process`` names more systems to run that way). A system that fails, here or in its own process, is a row
with its error, and the others' rows are kept.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field

import torch

import thunder
import thunder.fastpath

import small_graph

SCALED = {
    "llama2": dict(dim=256, n_layers=4, n_heads=4, vocab_size=512, max_seq_len=64),
    "nanogpt": dict(n_layer=4, n_head=4, n_embd=256, block_size=64, vocab_size=512, dropout=0.0),
}
TINY_LLAMA2 = dict(dim=32, n_layers=1, n_heads=2, vocab_size=64, max_seq_len=8)
# nanoGPT's train_shakespeare_char.py configuration.
SHAKESPEARE_CHAR = dict(n_layer=6, n_head=6, n_embd=384, block_size=256, vocab_size=65, dropout=0.0, bias=False)


class WithLoss(torch.nn.Module):
    """A language model and its cross-entropy loss, jitted as one module, as a training loop calls it."""

    def __init__(self, model, returns_loss: bool):
        super().__init__()
        self.model = model
        self.returns_loss = returns_loss  # nanoGPT computes its loss itself, given the targets

    def forward(self, idx, targets):
        if self.returns_loss:
            return self.model(idx, targets)[1]
        logits = self.model(idx, targets)
        return torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


@dataclass
class TrainingCase:
    name: str
    make_model: object  # () -> nn.Module returning the loss
    batch: int
    tokens: int
    vocab: int


def make_cases() -> list[TrainingCase]:
    from thunder.tests import llama2_model, nanogpt_model

    def llama2():
        return WithLoss(llama2_model.Transformer(llama2_model.ModelArgs(**SCALED["llama2"])), returns_loss=False)

    def nanogpt():
        return WithLoss(nanogpt_model.GPT(nanogpt_model.GPTConfig(**SCALED["nanogpt"])), returns_loss=True)

    def shakespeare():
        return WithLoss(nanogpt_model.GPT(nanogpt_model.GPTConfig(**SHAKESPEARE_CHAR)), returns_loss=True)

    def tiny_llama2():
        return WithLoss(llama2_model.Transformer(llama2_model.ModelArgs(**TINY_LLAMA2)), returns_loss=False)

    return [
        TrainingCase("llama2_4x64", llama2, 4, 64, SCALED["llama2"]["vocab_size"]),
        TrainingCase("nanogpt_4x64", nanogpt, 4, 64, SCALED["nanogpt"]["vocab_size"]),
        TrainingCase("nanogpt_shakespeare_4x64", shakespeare, 4, 64, SHAKESPEARE_CHAR["vocab_size"]),
        TrainingCase("nanogpt_shakespeare_16x256", shakespeare, 16, 256, SHAKESPEARE_CHAR["vocab_size"]),
        # A one-layer LLaMA-2 that compiles in seconds (the tests'; run only when named).
        TrainingCase("llama2_tiny_2x8", tiny_llama2, 2, 8, TINY_LLAMA2["vocab_size"]),
    ]


@dataclass
class Row:
    case: str
    variant: str  # "step" (with the optimizer) or "fwd+bwd"
    system: str
    timings_us: list  # one median per-step time per round, in the order the rounds ran
    median_us: float | None = 0.0  # over all blocks of all rounds
    vs_eager: float | None = None
    vs_upstream: float | None = None
    check: str = ""
    samples_us: list = field(default_factory=list)
    failed: str = ""  # the error that ended this system's run (then it has no timings)


# Each fast system's upstream counterpart: its '=' mark and its "/ upstream" ratio are against that system.
UPSTREAM_OF = {"fast": "thunder", "fast+graphs": "thunder+graphs"}
GRAPH_SYSTEMS = ["thunder+graphs", "fast+graphs", "torch.compile reduce-overhead"]
# Systems that run in a process of their own (module docstring).
OWN_PROCESS = frozenset(GRAPH_SYSTEMS)


@dataclass
class Measured:
    """One system's figures for one case: its warm-up (losses, parameters after it, CUDA memory it left), per variant
    its timings, and for a fast system its misses and calls through upstream's path while timed; or why it failed."""

    losses: list = field(default_factory=list)
    params: list = field(default_factory=list)
    memory: dict | None = None
    timings: dict = field(default_factory=dict)  # variant -> one median per round
    samples: dict = field(default_factory=dict)  # variant -> every block's per-step µs
    allocations: dict = field(default_factory=dict)  # variant -> new CUDA device allocations while timed
    while_timed: dict = field(default_factory=dict)  # variant -> {"misses": n, "upstream_calls": n}
    failed: str = ""


def compiled(name: str, model: torch.nn.Module):
    """The callable that system ``name`` trains ``model`` with."""
    if name == "eager":
        return model
    if name == "torch.compile":
        return torch.compile(model)
    if name == "torch.compile reduce-overhead":
        return torch.compile(model, mode="reduce-overhead")
    transforms = []
    if name.endswith("+graphs"):
        from thunder.transforms.cudagraph import CUDAGraphTransform

        transforms.append(CUDAGraphTransform())
    return thunder.jit(model, fastpath=name.startswith("fast"), transforms=transforms)


class System:
    """One system's model copy, jitted or not, its optimizer and data; ``with_optimizer`` picks the variant."""

    def __init__(self, name, model, device, idx, targets):
        self.name, self.idx, self.targets = name, idx, targets
        self.callable = compiled(name, model)
        self.model = model
        fused = {"fused": True} if device == "cuda" else {"foreach": True}
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, **fused)
        self.with_optimizer = True

    def step(self):
        loss = self.callable(self.idx, self.targets)
        loss.backward()
        if self.with_optimizer:
            self.optimizer.step()
        for p in self.model.parameters():  # zero_grad(set_to_none=True), with or without an optimizer
            p.grad = None
        return loss


def system_names(with_compile: bool, with_graphs: bool) -> list[str]:
    names = ["eager", "thunder", "fast"] + (["torch.compile"] if with_compile else [])
    return names + (GRAPH_SYSTEMS if with_graphs else [])


def build(case: TrainingCase, device: str, names: list[str], measured: dict[str, Measured]) -> dict[str, System]:
    """The systems ``names``, each with its copy of one initialization of the case's model; one that fails to build
    gets its error in ``measured``."""
    torch.manual_seed(0)
    model = case.make_model().to(device).train()
    idx = torch.randint(0, case.vocab, (case.batch, case.tokens), device=device)
    targets = torch.randint(0, case.vocab, (case.batch, case.tokens), device=device)
    systems = {}
    for name in names:
        try:
            systems[name] = System(name, copy.deepcopy(model), device, idx, targets)
        except Exception as e:
            measured[name].failed = small_graph.error_line(e)
    return systems


def warm_up(systems: dict[str, System], steps: int, measured: dict[str, Measured]) -> None:
    """Warm-up steps on every system: its losses, its parameters after them, and on CUDA the memory that its warm-up
    left allocated and reserved (bytes). A system that fails leaves ``systems`` with its error in ``measured``."""
    for name, s in list(systems.items()):
        m = measured[name]
        try:
            before = _device_memory()
            m.losses = [s.step().item() for _ in range(steps)]
            after = _device_memory()
        except Exception as e:
            m.failed = small_graph.error_line(e)
            del systems[name]
            continue
        if after is not None:
            m.memory = {"allocated": after[0] - before[0], "reserved": after[1] - before[1]}
        m.params = [p.detach() for p in s.model.parameters()]


def marks_of(measured: dict[str, Measured]) -> dict[str, str]:
    """Each row's mark (module docstring); none for a system that failed, or whose reference failed."""

    def ok(name):
        return name in measured and not measured[name].failed

    def same(a, b):
        pa, pb = measured[a].params, measured[b].params
        equal = len(pa) == len(pb) and all(torch.equal(x.cpu(), y.cpu()) for x, y in zip(pa, pb, strict=True))
        return equal and measured[a].losses == measured[b].losses

    def close_to_eager(name):
        return all(
            torch.allclose(x.float().cpu(), y.float().cpu(), rtol=1e-2, atol=1e-3)
            for x, y in zip(measured[name].params, measured["eager"].params, strict=True)
        )

    marks = {}
    for name in measured:
        reference = UPSTREAM_OF.get(name, "eager")
        if name == "eager" or not ok(name) or not ok(reference):
            marks[name] = ""
        elif name in UPSTREAM_OF:
            marks[name] = "=" if same(name, reference) else "!"
        else:
            marks[name] = "~" if close_to_eager(name) else "!"
    return marks


def checks_after_warm_up(systems: dict[str, System], warm_up_steps: int) -> tuple[dict[str, str], dict]:
    """Warm-up steps on every system, then each row's mark and the CUDA memory that each warm-up left."""
    measured = {name: Measured() for name in systems}
    warm_up(dict(systems), warm_up_steps, measured)
    return marks_of(measured), {name: m.memory for name, m in measured.items() if m.memory is not None}


def _device_memory() -> tuple[int, int] | None:
    if not torch.cuda.is_available():
        return None
    torch.cuda.synchronize()
    return torch.cuda.memory_allocated(), torch.cuda.memory_reserved()


def fast_callable_counts(system: System):
    stats = thunder.fastpath.stats(system.callable)
    return stats.misses, sum(stats.upstream_path_calls.values())


def time_rounds(systems, rounds, blocks, steps, sync, sync_each_step, failed=None) -> tuple[dict, dict, dict]:
    """Per system: the median per-step µs of each round, all block samples, and the CUDA allocator's new device
    allocations while it was timed. Each round times every system in turn, ``blocks`` blocks of ``steps`` steps. With
    ``failed``, a system that raises is left out of the later rounds, its error there; without, the error propagates."""
    timings = {name: [] for name in systems}
    samples = {name: [] for name in systems}
    allocations = dict.fromkeys(systems, 0)
    names = list(systems)
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            if failed is not None and name in failed:
                continue
            system = systems[name]
            before = _device_allocations()
            per_block = []
            try:
                for _ in range(blocks):
                    sync()
                    start = time.perf_counter()
                    for _ in range(steps):
                        system.step()
                        if sync_each_step:
                            sync()
                    sync()
                    per_block.append((time.perf_counter() - start) / steps * 1e6)
            except Exception as e:
                if failed is None:
                    raise
                failed[name] = small_graph.error_line(e)
                continue
            allocations[name] += _device_allocations() - before
            timings[name].append(statistics.median(per_block))
            samples[name] += per_block
    return timings, samples, allocations


def time_interleaved_steps(systems, rounds, blocks, steps, sync, failed) -> tuple[dict, dict, dict]:
    """The same figures, with the systems' steps interleaved one by one (eager, thunder, fast, eager, ...), each step
    timed alone between two synchronizations; round ``r``'s timing is the median of its share of the steps."""
    timings = {name: [] for name in systems}
    samples = {name: [] for name in systems}
    allocations = dict.fromkeys(systems, 0)
    for _ in range(rounds):
        per_step = {name: [] for name in systems}
        for _ in range(blocks * steps):
            for name, system in systems.items():
                if name in failed:
                    continue
                before = _device_allocations()
                try:
                    sync()
                    start = time.perf_counter()
                    system.step()
                    sync()
                except Exception as e:
                    failed[name] = small_graph.error_line(e)
                    continue
                per_step[name].append((time.perf_counter() - start) * 1e6)
                allocations[name] += _device_allocations() - before
        for name in systems:
            if per_step[name]:
                timings[name].append(statistics.median(per_step[name]))
                samples[name] += per_step[name]
    return timings, samples, allocations


def _device_allocations() -> int:
    if not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return 0
    return torch.cuda.memory_stats().get("num_device_alloc", 0)


def measure(case: TrainingCase, device: str, args, names: list[str]) -> dict[str, Measured]:
    """The systems ``names`` of one case in this process: built, warmed up, and timed in both variants (one
    compilation each)."""
    measured = {name: Measured() for name in names}
    systems = build(case, device, names, measured)
    start = time.perf_counter()
    warm_up(systems, args.warm_up, measured)
    elapsed = time.perf_counter() - start
    print(f"{case.name} {', '.join(names)}: warm-up (compilation included) {elapsed:.0f} s", flush=True)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    failed = {}
    for variant in args.variants.split(","):
        for system in systems.values():
            system.with_optimizer = variant == "step"
        fast_systems = [name for name in systems if name in UPSTREAM_OF]
        before = {name: fast_callable_counts(systems[name]) for name in fast_systems}
        if args.interleave_steps:
            timed = time_interleaved_steps(systems, args.rounds, args.blocks, args.steps, sync, failed)
        else:
            timed = time_rounds(systems, args.rounds, args.blocks, args.steps, sync, args.sync_each_step, failed)
        timings, samples, allocations = timed
        for name in systems:
            m = measured[name]
            m.timings[variant], m.samples[variant] = timings[name], samples[name]
            m.allocations[variant] = allocations[name]
            if name in fast_systems:
                after = fast_callable_counts(systems[name])
                m.while_timed[variant] = {
                    "misses": after[0] - before[name][0],
                    "upstream_calls": after[1] - before[name][1],
                }
    for name, error in failed.items():
        measured[name].failed = error
    return measured


def measure_in_own_process(case: TrainingCase, device: str, args, name: str) -> Measured:
    """``measure`` of the one system ``name``, in a child process of this script (``--own-process-child``): its
    figures come back through a file, its parameters as CPU tensors. A child that dies (a CUDA error aborts it)
    gives a ``Measured`` that failed with the last error line it printed."""
    with tempfile.TemporaryDirectory() as folder:
        result = os.path.join(folder, "measured.pt")
        argv = [
            sys.executable,
            os.path.abspath(__file__),
            "--device",
            device,
            "--cases",
            case.name,
            "--variants",
            args.variants,
            "--rounds",
            str(args.rounds),
            "--blocks",
            str(args.blocks),
            "--steps",
            str(args.steps),
            "--warm-up",
            str(args.warm_up),
            "--own-process-child",
            name,
            "--own-process-result",
            result,
        ]
        argv += ["--sync-each-step"] if args.sync_each_step else []
        argv += ["--interleave-steps"] if args.interleave_steps else []
        done = subprocess.run(argv, capture_output=True, text=True)
        print(done.stdout, end="", flush=True)
        if done.returncode == 0 and os.path.exists(result):
            return Measured(**torch.load(result))
    return Measured(failed=f"its process ended with exit status {done.returncode}: {_last_error(done.stderr)}")


def _last_error(stderr: str) -> str:
    """The last line of a dead process's standard error that names an error, else its last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    named = [line for line in lines if "Error" in line or "error" in line]
    return ((named or lines or [""])[-1])[:200]


def run_case(case, device, args) -> tuple[list[Row], dict]:
    """Both variants of one case: the systems in this process, then each of ``args.own_process`` in its own."""
    names = system_names(args.with_compile, args.with_graphs)
    here = [name for name in names if name not in args.own_process]
    measured = measure(case, device, args, here) if here else {}
    for name in names:
        if name in args.own_process:
            measured[name] = measure_in_own_process(case, device, args, name)
    measured = {name: measured[name] for name in names}
    return rows_of(case, measured, args.variants.split(","))


def rows_of(case: TrainingCase, measured: dict[str, Measured], variants: list[str]) -> tuple[list[Row], dict]:
    """The rows of one case's systems, and per variant the figures printed under the table."""
    marks = marks_of(measured)
    rows, extras = [], {}
    for variant in variants:
        variant_rows = []
        for name, m in measured.items():
            if m.failed:
                variant_rows.append(Row(case.name, variant, name, [], None, failed=m.failed))
                continue
            samples = m.samples[variant]
            variant_rows.append(
                Row(case.name, variant, name, m.timings[variant], statistics.median(samples), check=marks[name])
            )
            variant_rows[-1].samples_us = samples
        by_name = {r.system: r for r in variant_rows}
        for r in variant_rows:
            r.vs_eager = _ratio_to(r, by_name.get("eager"))
            r.vs_upstream = _ratio_to(r, by_name.get(UPSTREAM_OF.get(r.system, "thunder")))
        rows += variant_rows
        allocations = {name: m.allocations[variant] for name, m in measured.items() if not m.failed}
        extra = {"device_allocations_while_timed": allocations}
        for name, m in measured.items():
            if variant in m.while_timed:
                extra[f"{name}_misses_while_timed"] = m.while_timed[variant]["misses"]
                extra[f"{name}_upstream_calls_while_timed"] = m.while_timed[variant]["upstream_calls"]
        memory = {name: m.memory for name, m in measured.items() if m.memory is not None}
        if memory:
            extra["device_memory_after_warm_up"] = memory
        extras[(case.name, variant)] = extra
    return rows, extras


def _ratio_to(row: Row, base: Row | None) -> float | None:
    if not row.median_us or base is None or not base.median_us:
        return None
    return row.median_us / base.median_us


def print_table(rows: list[Row], extras: dict) -> None:
    rounds = max(len(r.timings_us) for r in rows)
    heads = "".join(f"{f'timing {i + 1}':>12}" for i in range(rounds))
    print(f"{'case':<28} {'variant':<8} {'system':<14}{heads} {'median':>10} {'/eager':>7} {'/thunder':>9}  out")
    last = None
    for r in rows:
        key = (r.case, r.variant)
        if last is not None and key != last:
            print()
        last = key
        if r.failed:
            print(f"{r.case:<28} {r.variant:<8} {r.system:<14} fails: {r.failed}")
            continue
        cells = "".join(f"{t:>12.1f}" for t in r.timings_us)
        print(
            f"{r.case:<28} {r.variant:<8} {r.system:<14}{cells} {r.median_us:>10.1f} {_ratio(r.vs_eager, 7, 2)}"
            f" {_ratio(r.vs_upstream, 9, 3)}  {r.check}"
        )
    print("\nµs per step. out: '=' parameters after the warm-up bitwise equal to upstream's, '~' close to eager's")
    print("\nwhile timed (fast path: misses, calls through upstream's path; CUDA allocator: new device allocations):")
    for (case, variant), extra in extras.items():
        allocations = ", ".join(f"{k} {v}" for k, v in extra["device_allocations_while_timed"].items())
        fast = ", ".join(
            f"{name} misses {extra[f'{name}_misses_while_timed']}, upstream's path"
            f" {extra[f'{name}_upstream_calls_while_timed']}"
            for name in UPSTREAM_OF
            if f"{name}_misses_while_timed" in extra
        )
        print(f"  {case} {variant}: {fast}; allocations: {allocations}")
    memory = {
        case: extra["device_memory_after_warm_up"]
        for (case, _), extra in extras.items()
        if "device_memory_after_warm_up" in extra
    }
    if memory:
        print("\nCUDA memory after each system's warm-up, MiB allocated / reserved:")
        for case, by_system in memory.items():
            held = ", ".join(
                f"{name} {m['allocated'] / 2**20:.0f} / {m['reserved'] / 2**20:.0f}" for name, m in by_system.items()
            )
            print(f"  {case}: {held}")
    print_slower_than_upstream(rows)


def _ratio(value: float | None, width: int, digits: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def print_slower_than_upstream(rows: list[Row]) -> None:
    """Each row where the fast path is slower than upstream beyond the spread: its fastest timing above upstream's
    slowest."""
    slower = []
    by_key = {}
    for r in rows:
        by_key.setdefault((r.case, r.variant), {})[r.system] = r
    for (case, variant), systems in by_key.items():
        for fast_name, up_name in UPSTREAM_OF.items():
            fast, up = systems.get(fast_name), systems.get(up_name)
            if fast is None or up is None or not fast.timings_us or not up.timings_us:
                continue
            if min(fast.timings_us) > max(up.timings_us):
                slower.append(
                    f"  {case} {variant}: {fast_name} {min(fast.timings_us):.1f} > {up_name} {max(up.timings_us):.1f}"
                )
    print("\nfast slower than upstream beyond the spread:", *(slower or ["  none"]), sep="\n")


def write_json(path, env, argv, rows, extras, earlier=None) -> None:
    """The run's rows; with ``earlier`` (``--update``), that file's other cases first (``small_graph.add_earlier_run``),
    their figures while timed too."""
    data = {
        "environment": env,
        "argv": argv,
        "rows": [asdict(r) for r in rows],
        "while_timed": {f"{c} {v}": e for (c, v), e in extras.items()},
    }
    if earlier is not None:
        run_here = {r.case for r in rows}
        kept = {k: e for k, e in earlier.get("while_timed", {}).items() if k.rsplit(" ", 1)[0] not in run_here}
        data["while_timed"] = {**kept, **data["while_timed"]}
    small_graph.add_earlier_run(data, earlier)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cpu", "cuda"))
    parser.add_argument(
        "--cases", default="", help="comma-separated case names or prefixes (default: all but 16x256 on the CPU)"
    )
    parser.add_argument("--variants", default="step,fwd+bwd")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter blocks")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--blocks", type=int, default=None)
    parser.add_argument("--steps", type=int, default=None, help="steps per block")
    parser.add_argument("--warm-up", type=int, default=3)
    parser.add_argument("--sync-each-step", action="store_true", help="a CUDA synchronization after every step")
    parser.add_argument(
        "--interleave-steps", action="store_true", help="the systems' steps interleaved one by one, each timed alone"
    )
    parser.add_argument("--with-compile", action="store_true", help="add torch.compile")
    parser.add_argument(
        "--with-graphs", action="store_true", help="add CUDA graphs: thunder's CUDAGraphTransform, reduce-overhead"
    )
    parser.add_argument(
        "--own-process",
        default=",".join(sorted(OWN_PROCESS)),
        help="comma-separated systems that each run in a process of their own (default: those with CUDA graphs)",
    )
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--update", action="store_true", help="replace only the cases run here in --json's file")
    # What measure_in_own_process passes to the child process that measures one system.
    parser.add_argument("--own-process-child", metavar="SYSTEM", help=argparse.SUPPRESS)
    parser.add_argument("--own-process-result", metavar="PATH", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.own_process = {name for name in args.own_process.split(",") if name}
    if args.with_graphs and args.device != "cuda":
        parser.error("--with-graphs needs --device cuda (CUDA graphs)")
    args.rounds = max(args.rounds, 2)
    args.blocks = args.blocks or (3 if args.quick else 7)
    args.steps = args.steps or (3 if args.quick else 10)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    cases = make_cases()
    if args.cases:
        cases = [c for c in cases if any(c.name.startswith(w) for w in args.cases.split(","))]
    else:
        cases = [c for c in cases if "tiny" not in c.name]
        if args.device == "cpu":
            cases = [c for c in cases if not c.name.endswith("16x256")]  # seconds per step on a small CPU
    if args.own_process_child:
        (case,) = cases
        (m,) = measure(case, args.device, args, [args.own_process_child]).values()
        m.params = [p.cpu() for p in m.params]
        torch.save(vars(m), args.own_process_result)
        return 0
    env = small_graph.environment(args.device)
    print(
        " | ".join(f"{k} {v}" for k, v in env.items()),
        f"| rounds {args.rounds}, blocks {args.blocks} x"
        f" {args.steps} steps" + (", sync each step" if args.sync_each_step else ""),
        flush=True,
    )
    earlier = small_graph.read_earlier_run(args.json, env) if args.update else None
    rows, extras = [], {}
    for case in cases:
        case_rows, case_extras = run_case(case, args.device, args)
        rows += case_rows
        extras.update(case_extras)
        if args.json:  # after every case: a run cut short by a time limit keeps the cases it finished
            write_json(args.json, env, sys.argv[1:] if argv is None else argv, rows, extras, earlier)
    print_table(rows, extras)
    return 1 if any(r.check == "!" or r.failed for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
