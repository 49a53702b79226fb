"""Per-call host overhead of thunder.jit on small graphs: eager, thunder.jit and the fast path side by side.

    python thunder/benchmarks/small_graph.py [--device cpu|cuda] [--cases a,b] [--quick] [--json PATH [--update]]
                                             [--plot PATH] [--with-compile] [--with-thunderfx]

Every system runs in this one process, interleaved repeat by repeat, on the same inputs. A row gives the median,
min and max of the per-call time over the repeats (each repeat is many calls after a warm-up; CUDA is
synchronized by torch.utils.benchmark around each repeat), its ratio to eager and to thunder.jit, and a
mark for its outputs: '=' equal to Thunder bitwise, '~' close to eager within the dtype's tolerance, '!' neither.

Systems: eager; Thunder (thunder.jit with fastpath=False; "thunder" in the JSON); fast (thunder.jit with the fast
path); computation (the fast callable's cache entry: its generated computation called directly with the prepared
inputs, without Thunder's no_grad decorator, grad mode switched as the call needs, through Thunder's no_autocast
decorator where the entry was made under autocast, as the hit calls it: the floor the fast path approaches);
with nvFuser on CUDA, nvfuser-fd.execute and nvfuser-fec.execute (the FusionDefinition that Thunder built,
called directly); with --with-compile, torch.compile; with --with-thunderfx, thunderfx and thunderfx-fast (ThunderFX,
``thunder.dynamo.thunderfx``, which hands Dynamo's graphs to thunder.jit: Thunder's path and the fast path).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import platform
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field

import torch
import torch.utils.benchmark as tbench
from torch.testing import make_tensor

import thunder
import thunder.fastpath  # noqa: F401  (each system below chooses its path with fastpath=)
from thunder.fastpath.explain import fastpath_state


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
    fn: object  # a function or an nn.Module factory's product
    args: tuple
    inference: bool = False  # calls run under torch.no_grad()
    autocast: torch.dtype | None = None  # calls run under torch.autocast with this dtype
    backward: bool = False  # each call also runs .backward() on the output
    count: int | None = None  # number of inputs or parameters, for the scaling plot
    kind: str = ""


def make_cases(device: str) -> list[Case]:
    dev = torch.device(device)
    lowp = torch.bfloat16 if dev.type == "cuda" else torch.float32
    x1657 = make_tensor((319999,), dtype=torch.int64, device=dev, low=3, high=9).as_strided((400, 400), (800, 2))
    cases = [Case("issue1657", Issue1657(), (x1657,))]
    for batch in (1, 128):
        norm = RMSNorm(2880).to(dev, lowp)
        cases.append(
            Case(f"rmsnorm_{batch}x2880", norm, (torch.randn(batch, 2880, device=dev, dtype=lowp),), inference=True)
        )
    cases.append(Case("two_8x8", two_inputs, (torch.randn(8, 8, device=dev), torch.randn(8, 8, device=dev))))
    for n in (1, 16, 64):
        ts = tuple(torch.randn(8, device=dev) for _ in range(n))
        cases.append(Case(f"inputs_{n}", n_inputs, ts, count=n, kind="inputs"))
    for n in (1, 32, 128):
        cases.append(
            Case(
                f"params_{n}",
                ManyParameters(n).to(dev),
                (torch.randn(8, device=dev),),
                inference=True,
                count=n,
                kind="parameters",
            )
        )
    w = torch.randn(16, 16, device=dev, requires_grad=True)
    cases.append(Case("train_step", train_step_fn, (torch.randn(4, 16, device=dev), w), backward=True))
    linear = torch.nn.Linear(64, 64).to(dev)
    x = torch.randn(8, 64, device=dev)
    cases.append(Case("linear_autocast", linear, (x,), inference=True, autocast=torch.bfloat16))
    return cases


# ------------------------------------------------------------------------------------------------ the systems
def fast_state(jitted):
    """The fast path's state of a callable that ``thunder.jit`` returned (a jitted module's is on its forward)."""
    return fastpath_state(jitted)


def computation_only(fast):
    """The fast callable's hit entry: its computation with the prepared inputs, as the hit path calls it."""
    state = fast_state(fast)
    if not state.hits:
        return None

    def prepare(*args):
        hit = state.hits[0]
        inps, _ = hit.guard.check(args, {})
        comp, grad_off = hit.computation, hit.made_with_grad
        if hit.grad_free_region and hit.region_call.region.prepared.outputs_are_new:
            grad_off = False  # the hit calls this region in grad mode as it is (hit_function.py)
        if hit.grad_free_on_layout:
            grad_off = False  # so does the hit on the guard's layout: the case's arguments, whose first call built it
        set_grad = torch._C._set_grad_enabled

        def call(*_):
            if grad_off:
                set_grad(False)
                try:
                    return comp(*inps)
                finally:
                    set_grad(True)
            return comp(*inps)

        return call

    return prepare


def nvfuser_direct(upstream):
    """fd.execute and fd.fec.execute of the single nvFuser region that Thunder built, if there is one."""
    trace = thunder.last_traces(upstream)[-1]
    regions = [v for k, v in trace.python_ctx().items() if k.startswith("nvFusion")]
    if len(regions) != 1 or regions[0].last_inputs is None or regions[0].last_used is None:
        return {}
    region = regions[0]
    fd, inputs = region.last_used, list(region.last_inputs)
    systems = {"nvfuser-fd.execute": lambda *_: fd.execute(inputs)}
    fec = getattr(fd, "fec", None)
    if fec is not None:
        systems["nvfuser-fec.execute"] = lambda *_: fec.execute(inputs)
    return systems


@dataclass
class Row:
    case: str
    system: str
    median_us: float
    min_us: float
    max_us: float
    vs_eager: float | None = None
    vs_upstream: float | None = None
    check: str = ""
    count: int | None = None
    kind: str = ""
    samples_us: list = field(default_factory=list)


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
    with case_context(case):
        out = fn(*case.args)
        if case.backward:
            for a in case.args:
                a.grad = None
            out.backward()
            return (out.detach(), *(a.grad.clone() for a in case.args if a.requires_grad))
    return out


def flat_tensors(x):
    leaves = torch.utils._pytree.tree_leaves(x)
    return [t for t in leaves if isinstance(t, torch.Tensor)]


def bitwise_equal(a, b) -> bool:
    fa, fb = flat_tensors(a), flat_tensors(b)
    return len(fa) == len(fb) and all(
        x.dtype == y.dtype and x.shape == y.shape and torch.equal(x, y) for x, y in zip(fa, fb, strict=False)
    )


def close(a, b) -> bool:
    fa, fb = flat_tensors(a), flat_tensors(b)
    try:
        for x, y in zip(fa, fb, strict=True):
            torch.testing.assert_close(x, y, check_dtype=True)
    except (AssertionError, ValueError):
        return False
    return True


def build_systems(case: Case, device: str, with_compile: bool, with_thunderfx: bool):
    fn = case.fn
    eager = fn
    upstream = thunder.jit(fn, fastpath=False)
    fast = thunder.jit(fn, fastpath=True)
    systems = {"eager": eager, "thunder": upstream, "fast": fast}
    if with_compile or with_thunderfx:
        # Dynamo caches per code object, and cases of one class share theirs: start each case afresh, so that no
        # case runs into Dynamo's recompilation limit (past which it would run eagerly).
        torch._dynamo.reset()
    if with_compile:
        systems["torch.compile"] = torch.compile(fn)
    if with_thunderfx:
        from thunder.dynamo import thunderfx

        systems["thunderfx"] = thunderfx(fn, fastpath=False)
        systems["thunderfx-fast"] = thunderfx(fn, fastpath=True)
    # Warm up (compile, then hit) so that the outputs compared below come from cache hits.
    for _ in range(2):
        for f in systems.values():
            outputs_of(f, case)
    refs = {name: outputs_of(f, case) for name, f in systems.items()}
    if not case.backward:
        prepare = computation_only(fast)
        if prepare is not None:
            with case_context(case):
                systems["computation"] = prepare(*case.args)
    if device == "cuda" and not case.backward:
        # A separate callable that keeps its fusion inputs, so that the timed Thunder callable does not.
        keeper = thunder.jit(fn, fastpath=False, nv_store_fusion_inputs=True)
        outputs_of(keeper, case)
        systems.update(nvfuser_direct(keeper))
    return systems, refs


# Each fast system's Thunder counterpart, whose outputs it must reproduce bitwise.
UPSTREAM_OF = {"fast": "thunder", "thunderfx-fast": "thunderfx"}


def run_case(
    case: Case, device: str, repeats: int, budget_s: float, with_compile: bool, with_thunderfx: bool
) -> list[Row]:
    systems, refs = build_systems(case, device, with_compile, with_thunderfx)
    checks = {}
    for name, f in systems.items():
        if name == "eager":
            checks[name] = ""
        elif name in UPSTREAM_OF:
            checks[name] = "=" if bitwise_equal(refs[name], refs[UPSTREAM_OF[name]]) else "!"
        elif name in refs:
            checks[name] = "~" if close(refs[name], refs["eager"]) else "!"
        else:
            # computation-only and nvFuser systems return the raw outputs (a tuple or list of tensors): compared
            # with eager's tensors where they line up one to one, else '-'
            with case_context(case):
                raw = f(*case.args)
            same_count = len(flat_tensors(raw)) == len(flat_tensors(refs["eager"]))
            checks[name] = ("~" if close(raw, refs["eager"]) else "!") if same_count else "-"

    def statement(f):
        if case.backward:
            return lambda: f(*case.args).backward()
        return lambda: f(*case.args)

    with case_context(case):
        samples = time_by_budget({name: statement(f) for name, f in systems.items()}, repeats, budget_s)
    rows = []
    for name, s in samples.items():
        rows.append(
            Row(
                case.name,
                name,
                statistics.median(s),
                min(s),
                max(s),
                check=checks[name],
                count=case.count,
                kind=case.kind,
                samples_us=s,
            )
        )
    by_name = {r.system: r for r in rows}
    for r in rows:
        r.vs_eager = r.median_us / by_name["eager"].median_us
        r.vs_upstream = r.median_us / by_name["thunder"].median_us
    return rows


def time_by_budget(calls: dict, repeats: int, budget_s: float) -> dict[str, list[float]]:
    """µs per call of each zero-argument callable in ``calls``: one sample per repeat, the callables interleaved repeat
    by repeat, each sample as many calls as take about ``budget_s`` (estimated after a warm-up). All of it runs in
    the caller's grad mode and autocast: a call in another would make a second cache entry, which the timed calls
    would then try first (and fail) on every call."""
    timers = {}
    for name, call in calls.items():
        for _ in range(3):
            call()
        timer = tbench.Timer(stmt="call()", globals={"call": call})
        per_call = timer.timeit(10).mean
        timers[name] = (timer, max(10, int(budget_s / max(per_call, 1e-7))))
    samples = {name: [] for name in calls}
    for _ in range(repeats):
        for name, (timer, number) in timers.items():
            samples[name].append(timer.timeit(number).mean * 1e6)
    return samples


def warm_up(case: Case, seconds: float = 3.0) -> None:
    """Keeps the GPU busy for a few seconds first, so that the first case is not timed while clocks ramp up."""
    end = time.perf_counter() + seconds
    with torch.no_grad():
        while time.perf_counter() < end:
            for _ in range(100):
                case.fn(*case.args)
            torch.cuda.synchronize()


# ------------------------------------------------------------------------------------------------ reporting
# How the table names the systems where their keys (in the JSON too) differ: README and BENCHMARKS.md say "upstream".
SYSTEM_LABELS = {"thunder": "upstream"}


def print_table(rows: list[Row]) -> None:
    print(f"{'case':<20} {'system':<20} {'median us':>10} {'min':>9} {'max':>9} {'/eager':>7} {'/upstream':>9}  out")
    last = None
    for r in rows:
        if last is not None and r.case != last:
            print()
        last = r.case
        system = SYSTEM_LABELS.get(r.system, r.system)
        print(
            f"{r.case:<20} {system:<20} {r.median_us:>10.2f} {r.min_us:>9.2f} {r.max_us:>9.2f} "
            f"{r.vs_eager:>7.2f} {r.vs_upstream:>9.3f}  {r.check}"
        )
    print(
        "\nout: '=' bitwise equal to upstream (thunder.jit or thunderfx), '~' close to eager (dtype-aware tolerance),"
        " '!' differs, '-' raw outputs that do not line up with eager's"
    )


def print_slower_than_upstream(rows: list[Row]) -> None:
    """Each case where a fast system is slower than its Thunder counterpart beyond the run-to-run spread: its median
    above the counterpart's slowest repeat."""
    by_case: dict[str, dict[str, Row]] = {}
    for r in rows:
        by_case.setdefault(r.case, {})[r.system] = r
    slower = []
    for case, systems in by_case.items():
        for fast, upstream in UPSTREAM_OF.items():
            if fast in systems and upstream in systems and systems[fast].median_us > systems[upstream].max_us:
                slower.append(
                    f"  {case} {fast}: median {systems[fast].median_us:.2f} us > {upstream}'s slowest"
                    f" {systems[upstream].max_us:.2f} us"
                )
    print("\nfast slower than upstream beyond the spread:", *(slower or ["  none"]), sep="\n")


def plot(rows: list[Row], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("--plot needs matplotlib: pip install matplotlib")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, kind in zip(axes, ("inputs", "parameters"), strict=False):
        for system in ("eager", "thunder", "fast", "computation"):
            pts = sorted((r.count, r.median_us) for r in rows if r.kind == kind and r.system == system)
            if pts:
                ax.plot(*zip(*pts, strict=False), marker="o", label=system)
        ax.set_xlabel(f"number of {kind}")
        ax.set_ylabel("µs per call (median)")
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.suptitle("thunder.jit per-call time against the number of tensor inputs / parameters")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def error_line(e: BaseException) -> str:
    """A failing system's error in one line, for its row."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:160] if text else ''}"


def environment(device: str) -> dict:
    env = {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "thunder": getattr(thunder, "__version__", "?"),
        "machine": platform.processor() or platform.machine(),
        "device": device,
    }
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name(0)
        try:
            import nvfuser_direct

            env["nvfuser"] = str(nvfuser_direct.version())
        except ImportError:
            pass
    return env


def select_cases(cases: list[Case], names: str) -> list[Case]:
    """The cases whose names start with one of ``names`` (comma-separated), all of them for ``""``."""
    if not names:
        return cases
    wanted = names.split(",")
    return [c for c in cases if any(c.name.startswith(w) for w in wanted)]


def run_cases(
    cases, device, repeats, budget_s, json_path=None, with_compile=False, with_thunderfx=False, update=False
) -> list[Row]:
    """Runs the cases side by side and prints their table (and writes the rows to ``json_path``; with ``update``,
    into that file's rows, replacing the cases run here and keeping the others)."""
    env = environment(device)
    print(" | ".join(f"{k} {v}" for k, v in env.items()), f"| repeats {repeats}", flush=True)
    if device == "cuda":
        warm_up(cases[0])
    earlier = read_earlier_run(json_path, env) if update else None
    rows = []
    for case in cases:
        rows += run_case(case, device, repeats, budget_s, with_compile, with_thunderfx)
        if json_path:  # after every case: a run cut short by a time limit keeps the cases it finished
            write_rows(json_path, env, rows, earlier)
    print_table(rows)
    print_slower_than_upstream(rows)
    return rows


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


def add_earlier_run(data: dict, earlier: dict | None) -> None:
    """``--update``: the earlier run's rows of the cases not in ``data["rows"]`` come first, and ``data`` lists the
    command lines of both runs (``argv`` the latest)."""
    if earlier is None:
        return
    run_here = {r["case"] for r in data["rows"]}
    data["rows"] = [r for r in earlier["rows"] if r["case"] not in run_here] + data["rows"]
    data["earlier_argv"] = [*earlier.get("earlier_argv", []), earlier["argv"]]


def write_rows(json_path: str, env: dict, rows: list[Row], earlier: dict | None) -> None:
    """The run's rows as JSON, after the earlier run's other cases where one is given (``add_earlier_run``)."""
    data = {"environment": env, "argv": sys.argv[1:], "rows": [asdict(r) for r in rows]}
    add_earlier_run(data, earlier)
    with open(json_path, "w") as f:
        json.dump(data, f, indent=1)


def exit_status(rows: list[Row]) -> int:
    """1 where a fast path's outputs differ from Thunder's."""
    return 1 if any(r.check == "!" for r in rows) else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cpu", "cuda"))
    parser.add_argument("--cases", default="", help="comma-separated case names or prefixes (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats (whole CPU suite in ~1 minute)")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--update", action="store_true", help="replace only the cases run here in --json's file")
    parser.add_argument("--plot", metavar="PATH")
    parser.add_argument("--with-compile", action="store_true", help="add torch.compile")
    parser.add_argument("--with-thunderfx", action="store_true", help="add ThunderFX, upstream and fast")
    args = parser.parse_args(argv)
    repeats = args.repeats or (5 if args.quick else 15)
    budget_s = 0.01 if args.quick else 0.05  # per repeat and system
    torch.manual_seed(0)
    cases = select_cases(make_cases(args.device), args.cases)
    rows = run_cases(
        cases, args.device, repeats, budget_s, args.json, args.with_compile, args.with_thunderfx, args.update
    )
    if args.plot:
        plot(rows, args.plot)
    return exit_status(rows)


if __name__ == "__main__":
    sys.exit(main())
