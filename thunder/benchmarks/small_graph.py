"""Per-call host overhead of thunder.jit on small graphs: eager, thunder.jit and another Thunder side by side.

    python thunder/benchmarks/small_graph.py --main DIR [--device cpu|cuda] [--cases a,b] [--quick] [--repeats N]
        [--json PATH [--update]] [--plot PATH] [--with-no-fastpath] [--with-compile] [--with-thunderfx]

DIR is a folder holding another Thunder to compare with, for example a release
(``pip install --no-deps --target DIR lightning-thunder``) or a checkout of main. Its ``thunder.jit`` is measured as
``main`` in a worker process (this script, run by the same interpreter with DIR first on ``PYTHONPATH``), which builds
the same cases from the same seeds. The systems in this process are interleaved repeat by repeat with the worker's, on
the same inputs: each repeat times every system in turn, so that all of them run under the same conditions (clocks,
caches, other load).

A row gives the median, min and max of the per-call time over the repeats (each repeat is many calls after a warm-up;
CUDA is synchronized by torch.utils.benchmark around each repeat), its ratio to eager and to main, and a mark for its
outputs: '=' bitwise equal to main's (to thunder-no-fastpath's without --main), '~' close to eager within the
dtype's tolerance, '!' neither.

Systems: eager; thunder (``thunder.jit`` as installed: with the fast path, cache hits served by the cache entries' hit
functions); main (``--main``); thunder-no-fastpath (``thunder.jit(fn, fastpath=False)``, with --with-no-fastpath);
torch.compile (--with-compile); thunderfx and, with --main, main-thunderfx (``thunder.dynamo.thunderfx``, whose mark
compares it with main's, --with-thunderfx); with nvFuser on CUDA, nvfuser-fd.execute and nvfuser-fec.execute (the
FusionDefinition that Thunder built, called directly).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import functools
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field

import torch
import torch.utils.benchmark as tbench
from torch.testing import make_tensor

import thunder


# ------------------------------------------------------------------------------------------------ the cases
class Issue1657(torch.nn.Module):
    """The graph of Lightning-AI/lightning-thunder#1657, as Dynamo hands it to Thunder."""

    def forward(self, x):
        y = torch.sin(x)
        return (y, y.sum() > 0)


class RMSNorm(torch.nn.Module):
    """RMSNorm as in Hugging Face's GPT-OSS (Lightning-AI/lightning-thunder#2775)."""

    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return (self.weight * x).to(dtype)


class ManyParameters(torch.nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.ps = torch.nn.ParameterList(torch.nn.Parameter(torch.full((8,), 1.0 + i / n)) for i in range(n))

    def forward(self, x):
        for p in self.ps:
            x = x * p
        return x


def two_inputs(a, b):
    return a * b + a


def n_inputs(*ts):
    out = ts[0]
    for t in ts[1:]:
        out = out + t
    return out


def train_step_fn(x, w):
    return torch.tanh(x @ w).sum()


@dataclass
class Case:
    name: str
    fn: object  # a function or an nn.Module
    args: tuple
    inference: bool = False  # calls run under torch.no_grad()
    autocast: torch.dtype | None = None  # calls run under torch.autocast with this dtype
    backward: bool = False  # each call also runs .backward() on the output
    count: int | None = None  # number of inputs or parameters, for the scaling plot
    kind: str = ""


def make_cases(device: str) -> list[Case]:
    """All the cases, their inputs drawn after ``torch.manual_seed(0)``: the worker builds the same ones."""
    torch.manual_seed(0)
    dev = torch.device(device)
    lowp = torch.bfloat16 if dev.type == "cuda" else torch.float32
    x1657 = make_tensor((319999,), dtype=torch.int64, device=dev, low=3, high=9).as_strided((400, 400), (800, 2))
    cases = [Case("issue1657", Issue1657(), (x1657,))]
    for batch in (1, 128):
        norm = RMSNorm(2880).to(dev, lowp)
        cases.append(
            Case(
                f"rmsnorm_{batch}x2880",
                norm,
                (torch.randn(batch, 2880, device=dev, dtype=lowp),),
                inference=True,
            )
        )
    cases.append(
        Case(
            "two_8x8",
            two_inputs,
            (torch.randn(8, 8, device=dev), torch.randn(8, 8, device=dev)),
        )
    )
    for n in (1, 16, 64):
        ts = tuple(torch.randn(8, device=dev) for _ in range(n))
        cases.append(Case(f"inputs_{n}", n_inputs, ts, count=n, kind="inputs"))
    for n in (1, 32, 128):
        module = ManyParameters(n).to(dev)
        x = torch.randn(8, device=dev)
        cases.append(Case(f"params_{n}", module, (x,), inference=True, count=n, kind="parameters"))
    w = torch.randn(16, 16, device=dev, requires_grad=True)
    cases.append(
        Case(
            "train_step",
            train_step_fn,
            (torch.randn(4, 16, device=dev), w),
            backward=True,
        )
    )
    linear = torch.nn.Linear(64, 64).to(dev)
    x = torch.randn(8, 64, device=dev)
    cases.append(Case("linear_autocast", linear, (x,), inference=True, autocast=torch.bfloat16))
    return cases


def select_cases(cases: list[Case], names: str) -> list[Case]:
    """The cases whose names start with one of ``names`` (comma-separated), all of them for ``""``."""
    if not names:
        return cases
    return [c for c in cases if any(c.name.startswith(w) for w in names.split(","))]


@contextlib.contextmanager
def case_context(case: Case):
    """The grad mode, and the autocast if any, that every call of the case runs in."""
    with torch.no_grad() if case.inference else torch.enable_grad():
        if case.autocast is None:
            yield
        else:
            with torch.autocast(case.args[0].device.type, dtype=case.autocast):
                yield


def outputs_of(fn, case: Case):
    """One call's outputs (with the gradients of the arguments where the case runs the backward)."""
    with case_context(case):
        out = fn(*case.args)
        if case.backward:
            for a in case.args:
                a.grad = None
            out.backward()
            return (
                out.detach(),
                *(a.grad.clone() for a in case.args if a.requires_grad),
            )
    return out


def statement(f, case: Case):
    """The call that is timed."""
    if case.backward:
        return lambda: f(*case.args).backward()
    return lambda: f(*case.args)


# ------------------------------------------------------------------------------------------------ the systems
def nvfuser_direct(jitted):
    """fd.execute and fd.fec.execute of the single nvFuser region that Thunder built, if there is one."""
    trace = thunder.last_traces(jitted)[-1]
    regions = [v for k, v in trace.python_ctx().items() if k.startswith("nvFusion")]
    if len(regions) != 1 or regions[0].last_inputs is None or regions[0].last_used is None:
        return {}
    # The region's last_used is the definition of its last call's layout, which its last_layout (where the
    # region has one) calls through fd.fec
    fd, inputs = regions[0].last_used, list(regions[0].last_inputs)
    systems = {"nvfuser-fd.execute": lambda *_: fd.execute(inputs)}
    fec = getattr(fd, "fec", None)
    if fec is not None:
        systems["nvfuser-fec.execute"] = lambda *_: fec.execute(inputs)
    return systems


def served_by_hit_functions(name: str, f) -> bool | None:
    """Whether the last call of each thunder.jit callable behind the system was served by a hit function (NOTE: Cache
    hits in thunder/__init__.py); None where there is nothing to tell (a Thunder without hit functions)."""
    if name in ("thunderfx", "main-thunderfx"):
        jitted = [g for info in f._backend.subgraph_infos for g in info.thunder_compiled_fns or ()]
    else:
        jitted = [f] if name in ("thunder", "main") else []
    stats = [thunder.compile_stats(g) for g in jitted]
    if not stats or not all(hasattr(s, "last_cache_hit") for s in stats):
        return None
    return all(s.last_cache_hit is not None for s in stats)


def build_systems(case: Case, device: str, opts) -> dict:
    """This process's systems for the case, each called twice (compile, then a hit)."""
    fn = case.fn
    systems = {"eager": fn, "thunder": thunder.jit(fn)}
    if opts.with_no_fastpath:
        systems["thunder-no-fastpath"] = thunder.jit(fn, fastpath=False)
    if opts.with_compile or opts.with_thunderfx:
        # Dynamo caches per code object, and cases of one class share theirs: start each case afresh, so that no
        # case runs into Dynamo's recompilation limit (past which it would run eagerly).
        torch._dynamo.reset()
    if opts.with_compile:
        systems["torch.compile"] = torch.compile(fn)
    if opts.with_thunderfx:
        from thunder.dynamo import thunderfx

        systems["thunderfx"] = thunderfx(fn)
    for _ in range(2):
        for f in systems.values():
            outputs_of(f, case)
    if device == "cuda" and not case.backward:
        # A separate callable that keeps its fusion inputs, so that the timed thunder.jit callable does not.
        keeper = thunder.jit(fn, nv_store_fusion_inputs=True)
        outputs_of(keeper, case)
        systems.update(nvfuser_direct(keeper))
    return systems


# ------------------------------------------------------------------------------------------------ timing
def calibrate(call, budget_s: float) -> int:
    """How many calls of ``call`` take about ``budget_s``, estimated after a warm-up."""
    for _ in range(3):
        call()
    per_call = tbench.Timer(stmt="call()", globals={"call": call}).timeit(10).mean
    return max(10, int(budget_s / max(per_call, 1e-7)))


def sampler(call, number: int):
    """A function that times ``number`` calls of ``call``: µs per call."""
    timer = tbench.Timer(stmt="call()", globals={"call": call})
    return lambda: timer.timeit(number).mean * 1e6


def warm_up(case: Case, seconds: float = 3.0) -> None:
    """Keeps the GPU busy for a few seconds first, so that the first case is not timed while clocks ramp up."""
    end = time.perf_counter() + seconds
    with torch.no_grad():
        while time.perf_counter() < end:
            for _ in range(100):
                case.fn(*case.args)
            torch.cuda.synchronize()


# ------------------------------------------------------------------------------------------------ outputs
def flat_tensors(x) -> list[torch.Tensor]:
    return [t for t in torch.utils._pytree.tree_leaves(x) if isinstance(t, torch.Tensor)]


def encode_tensors(x) -> str:
    buf = io.BytesIO()
    torch.save([t.detach().cpu() for t in flat_tensors(x)], buf)
    return base64.b64encode(buf.getvalue()).decode()


def decode_tensors(s: str) -> list[torch.Tensor]:
    return torch.load(io.BytesIO(base64.b64decode(s)), weights_only=True)


def bitwise_equal(a, b) -> bool:
    fa, fb = flat_tensors(a), flat_tensors(b)
    return len(fa) == len(fb) and all(
        x.dtype == y.dtype and x.shape == y.shape and torch.equal(x.cpu(), y.cpu()) for x, y in zip(fa, fb, strict=True)
    )


def close(a, b) -> bool:
    fa, fb = flat_tensors(a), flat_tensors(b)
    try:
        for x, y in zip(fa, fb, strict=True):
            torch.testing.assert_close(x.cpu(), y.cpu(), check_dtype=True)
    except (AssertionError, ValueError):
        return False
    return True


def output_checks(systems: dict, refs: dict, case: Case) -> dict[str, str]:
    """Each system's mark: thunder's (and thunder-no-fastpath's, against main) '=' where its outputs are bitwise
    equal to the reference Thunder's, else '~' where they are close to eager's, '!' otherwise; '-' for the raw
    outputs of an nvFuser definition that do not line up with eager's."""
    reference = "main" if "main" in refs else "thunder-no-fastpath" if "thunder-no-fastpath" in refs else None
    checks = {"eager": ""}
    for name in list(dict.fromkeys([*systems, *refs]))[1:]:  # eager's first
        if name in refs:
            out = refs[name]
        else:
            # nvFuser definitions return the raw outputs (a list of tensors)
            with case_context(case):
                out = systems[name](*case.args)
            if len(flat_tensors(out)) != len(flat_tensors(refs["eager"])):
                checks[name] = "-"
                continue
        thunder_like = name in ("thunder", "thunder-no-fastpath") and reference not in (
            None,
            name,
        )
        equal = thunder_like and bitwise_equal(out, refs[reference])
        if name == "thunderfx" and "main-thunderfx" in refs:
            equal = bitwise_equal(out, refs["main-thunderfx"])
        checks[name] = "=" if equal else "~" if close(out, refs["eager"]) else "!"
    return checks


# ------------------------------------------------------------------------------------------------ main's worker
class Worker:
    """The worker process that measures another Thunder's thunder.jit as ``main``: JSON lines over its stdin and
    stdout, one reply per request (see ``serve``)."""

    def __init__(self, folder: str, device: str, quick: bool):
        self.folder = os.path.realpath(folder)
        cmd = [
            sys.executable,
            os.path.abspath(__file__),
            "--serve",
            f"--device={device}",
            *["--quick"] * quick,
        ]
        # The folder first: its Thunder, and the other packages (nvFuser, say) where they are found now
        path = os.pathsep.join(p for p in (self.folder, os.environ.get("PYTHONPATH")) if p)
        env = {**os.environ, "PYTHONPATH": path}
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
        hello = self.receive()
        self.version, self.file = hello["version"], hello["file"]
        self.last_hit = {}
        if not os.path.realpath(self.file).startswith(self.folder + os.sep):
            self.close()
            raise SystemExit(f"--main {folder}: the worker imported Thunder from {self.file}, not from that folder")

    def send(self, **request) -> None:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()

    def receive(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker for --main exited with status {self.proc.wait()}")
        return json.loads(line)

    def time(self, case: str, system: str = "main") -> float:
        """One sample of the case's system (``main`` or ``main-thunderfx``) in the worker: µs per call."""
        self.send(op="time", case=case, system=system)
        reply = self.receive()
        if "error" in reply:
            raise RuntimeError(f"{system}, {case}: {reply['error']}")
        self.last_hit[system] = reply["hit"]
        return reply["us"]

    def close(self) -> None:
        """Ends the worker, reading what it still replies (a setup's outputs can fill the pipe)."""
        with contextlib.suppress(OSError, ValueError):
            self.proc.communicate(json.dumps({"op": "quit"}) + "\n")


def serve(device: str, budget_s: float) -> None:
    """The worker's loop: builds the cases, then answers the parent's requests, one JSON line each.

    ``setup`` jits a case (``system`` main: with thunder.jit, main-thunderfx: with ThunderFX), warms it up and
    replies with its outputs; ``time`` times as many calls as take about ``budget_s`` and replies with µs per call;
    ``quit`` ends the loop. A failure replies ``error``.
    """
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # whatever else writes to stdout goes to stderr
    sys.stdout = sys.stderr
    cases = {c.name: c for c in make_cases(device)}
    jitted, samplers = {}, {}
    replies.write(json.dumps({"version": getattr(thunder, "__version__", "?"), "file": thunder.__file__}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "quit":
            break
        case, system = cases[request["case"]], request["system"]
        key = (case.name, system)
        try:
            if request["op"] == "setup":
                if system == "main-thunderfx":
                    from thunder.dynamo import thunderfx

                    torch._dynamo.reset()  # as build_systems does
                    f = jitted[key] = thunderfx(case.fn)
                else:
                    f = jitted[key] = thunder.jit(case.fn)
                for _ in range(2):
                    outputs_of(f, case)
                reply = {"outputs": encode_tensors(outputs_of(f, case))}
                with case_context(case):
                    samplers[key] = sampler(statement(f, case), calibrate(statement(f, case), budget_s))
            else:
                with case_context(case):
                    reply = {
                        "us": samplers[key](),
                        "hit": served_by_hit_functions(system, jitted[key]),
                    }
        except Exception as e:
            reply = {"error": f"{type(e).__name__}: {(str(e).strip().splitlines() or [''])[0][:160]}"}
        replies.write(json.dumps(reply) + "\n")


# ------------------------------------------------------------------------------------------------ a case's rows
@dataclass
class Row:
    case: str
    system: str
    median_us: float
    min_us: float
    max_us: float
    vs_eager: float | None = None
    vs_main: float | None = None
    check: str = ""
    count: int | None = None
    kind: str = ""
    samples_us: list = field(default_factory=list)


def run_case(case: Case, device: str, opts, worker: Worker | None, notes: dict) -> list[Row]:
    """Times the case's systems, interleaved repeat by repeat (this process's, then main's). ``notes`` collects
    whether hit functions served the systems' last calls ("hits": (case, system, True or False)) and errors."""
    worker_systems = ["main", *["main-thunderfx"] * opts.with_thunderfx] if worker is not None else []
    for system in worker_systems:
        worker.send(op="setup", case=case.name, system=system)  # the worker compiles while this process does
    systems = build_systems(case, device, opts)
    refs = {name: outputs_of(f, case) for name, f in systems.items() if not name.startswith("nvfuser")}
    replies = {system: worker.receive() for system in worker_systems}
    with case_context(case):
        calls = {name: statement(f, case) for name, f in systems.items()}
        samplers = {name: sampler(call, calibrate(call, opts.budget_s)) for name, call in calls.items()}
    for system, reply in replies.items():
        if "error" in reply:
            notes["errors"].append(f"{case.name} {system} failed: {reply['error']}")
        else:
            refs[system] = decode_tensors(reply["outputs"])
            samplers[system] = functools.partial(worker.time, case.name, system)
    checks = output_checks(systems, refs, case)
    samples = {name: [] for name in samplers}
    with case_context(case):
        for _ in range(opts.repeats):
            for name, sample in samplers.items():
                samples[name].append(sample())
    hits = {name: served_by_hit_functions(name, f) for name, f in systems.items()}
    hits.update({system: worker.last_hit[system] for system in worker_systems if system in samples})
    notes["hits"] += [(case.name, name, hit) for name, hit in hits.items() if hit is not None]
    order = {
        "eager": 0,
        "thunder": 1,
        "main": 2,
        "thunderfx": 3,
        "main-thunderfx": 4,
    }  # main's rows after thunder's
    names = sorted(samples, key=lambda name: order.get(name, 5))
    rows = [
        Row(
            case.name,
            n,
            statistics.median(samples[n]),
            min(samples[n]),
            max(samples[n]),
        )
        for n in names
    ]
    by_name = {r.system: r for r in rows}
    for r in rows:
        r.check, r.count, r.kind, r.samples_us = (
            checks[r.system],
            case.count,
            case.kind,
            samples[r.system],
        )
        r.vs_eager = r.median_us / by_name["eager"].median_us
        if "main" in by_name:
            r.vs_main = r.median_us / by_name["main"].median_us
    return rows


# ------------------------------------------------------------------------------------------------ reporting
def print_table(rows: list[Row]) -> None:
    print(f"{'case':<20} {'system':<20} {'median us':>10} {'min':>9} {'max':>9} {'/eager':>7} {'/main':>7}  out")
    last = None
    for r in rows:
        if last is not None and r.case != last:
            print()
        last = r.case
        vs_main = "-" if r.vs_main is None else f"{r.vs_main:.3f}"
        print(
            f"{r.case:<20} {r.system:<20} {r.median_us:>10.2f} {r.min_us:>9.2f} {r.max_us:>9.2f} "
            f"{r.vs_eager:>7.2f} {vs_main:>7}  {r.check}"
        )
    print(
        "\nout: '=' bitwise equal to main (to thunder-no-fastpath without --main), '~' close to eager (dtype-aware"
        " tolerance), '!' differs, '-' raw outputs that do not line up with eager's"
    )


def print_summary(rows: list[Row], notes: dict) -> None:
    """The cases where thunder is slower than main beyond the run-to-run spread (its median above main's slowest
    repeat; thunder-no-fastpath stands in for main without --main), the calls that no hit function served, and the
    systems that failed."""
    by_case: dict[str, dict[str, Row]] = {}
    for r in rows:
        by_case.setdefault(r.case, {})[r.system] = r
    systems = {s for case_rows in by_case.values() for s in case_rows}
    reference = "main" if "main" in systems else "thunder-no-fastpath" if "thunder-no-fastpath" in systems else None
    if reference is not None:
        pairs = [("thunder", reference), ("thunderfx", "main-thunderfx")]
        slower = [
            f"  {case} {mine}: median {s[mine].median_us:.2f} us > {theirs}'s slowest {s[theirs].max_us:.2f} us"
            for case, s in by_case.items()
            for mine, theirs in pairs
            if mine in s and theirs in s and s[mine].median_us > s[theirs].max_us
        ]
        title = f"\nthunder slower than {reference} beyond the spread:"
        print(title, *(slower or ["none"]), sep="\n" if slower else " ")
    if notes["hits"]:
        not_hit = [f"  {case} {system}" for case, system, hit in notes["hits"] if not hit]
        print(
            "last calls not served by hit functions:",
            *(not_hit or ["none"]),
            sep="\n" if not_hit else " ",
        )
    if notes["errors"]:
        print(*notes["errors"], sep="\n")


def plot(rows: list[Row], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("--plot needs matplotlib: pip install matplotlib")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, kind in zip(axes, ("inputs", "parameters"), strict=True):
        for system in ("eager", "thunder", "main", "thunder-no-fastpath"):
            pts = sorted((r.count, r.median_us) for r in rows if r.kind == kind and r.system == system)
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="o", label=system)
        ax.set(xlabel=f"number of {kind}", ylabel="µs per call (median)", yscale="log")
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.suptitle("thunder.jit per-call time against the number of tensor inputs / parameters")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def environment(device: str, worker: Worker | None) -> dict:
    env = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "thunder": getattr(thunder, "__version__", "?"),
        "thunder_main": worker.version if worker is not None else None,
        "machine": platform.processor() or platform.machine(),
        "device": device,
    }
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name(0)
        with contextlib.suppress(ImportError):
            import nvfuser_direct

            env["nvfuser"] = str(nvfuser_direct.version())
    return env


def read_earlier_run(json_path: str, env: dict) -> dict | None:
    """The results that ``--update`` adds to (None: no file yet); refused, before anything runs, where they were
    measured in another environment."""
    try:
        with open(json_path) as f:
            earlier = json.load(f)
    except FileNotFoundError:
        return None
    if earlier.get("environment") != env:
        raise SystemExit(f"--update: {json_path} was measured in another environment: {earlier.get('environment')}")
    return earlier


def write_rows(
    json_path: str, env: dict, rows: list[dict], earlier: dict | None, key=lambda row: row["case"], argv=None
) -> None:
    """The run's rows as JSON; with ``--update``, after the earlier run's rows whose ``key`` (the case) no row of this
    run has, with the command lines of both runs (``argv`` the latest, by default this process's)."""
    data = {"environment": env, "argv": sys.argv[1:] if argv is None else argv, "rows": rows}
    if earlier is not None:
        run_here = {key(r) for r in rows}
        data["rows"] = [r for r in earlier["rows"] if key(r) not in run_here] + rows
        data["earlier_argv"] = [*earlier.get("earlier_argv", []), earlier["argv"]]
    with open(json_path, "w") as f:
        json.dump(data, f, indent=1)


def run_cases(cases: list[Case], opts, worker: Worker | None) -> list[Row]:
    """Runs the cases, prints their table and summary, and writes the rows to ``--json`` after each case (a run cut
    short keeps the cases it finished)."""
    env = environment(opts.device, worker)
    print(
        " | ".join(f"{k} {v}" for k, v in env.items() if v is not None),
        f"| repeats {opts.repeats}",
        flush=True,
    )
    earlier = read_earlier_run(opts.json, env) if opts.json and opts.update else None
    if opts.device == "cuda":
        warm_up(cases[0])
    rows, notes = [], {"hits": [], "errors": []}
    for case in cases:
        rows += run_case(case, opts.device, opts, worker, notes)
        if opts.json:
            write_rows(opts.json, env, [asdict(r) for r in rows], earlier)
    print_table(rows)
    print_summary(rows, notes)
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--main",
        metavar="DIR",
        help="a folder holding another Thunder, measured as main",
    )
    parser.add_argument(
        "--device",
        default="cuda" if torch.cuda.is_available() else "cpu",
        choices=("cpu", "cuda"),
    )
    parser.add_argument(
        "--cases",
        default="",
        help="comma-separated case names or prefixes (default: all)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="fewer, shorter repeats (whole CPU suite in ~1 minute)",
    )
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument(
        "--update",
        action="store_true",
        help="replace only the cases run here in --json's file",
    )
    parser.add_argument("--plot", metavar="PATH")
    parser.add_argument(
        "--with-no-fastpath",
        action="store_true",
        help="add thunder.jit(fn, fastpath=False)",
    )
    parser.add_argument("--with-compile", action="store_true", help="add torch.compile")
    parser.add_argument("--with-thunderfx", action="store_true", help="add ThunderFX")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # the worker for --main
    opts = parser.parse_args(argv)
    opts.repeats = opts.repeats or (5 if opts.quick else 15)
    opts.budget_s = 0.01 if opts.quick else 0.05  # per repeat and system
    if opts.serve:
        serve(opts.device, opts.budget_s)
        return 0
    cases = select_cases(make_cases(opts.device), opts.cases)
    worker = Worker(opts.main, opts.device, opts.quick) if opts.main else None
    try:
        rows = run_cases(cases, opts, worker)
    finally:
        if worker is not None:
            worker.close()
    if opts.plot:
        plot(rows, opts.plot)
    return 1 if any(r.check == "!" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
