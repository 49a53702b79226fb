"""Renders the tables of BENCHMARKS.md, README.md and upstream/04-jit-fastpath/PR.md from the JSON in results/.

Prose and data cannot drift: the documents' tables are rewritten from the files that the benchmark commands write.

    python tools/render_benchmarks.py           # rewrites the tables
    python tools/render_benchmarks.py --check   # exits 1 if a document's tables differ from the rendered ones (CI)

Each table sits between ``<!-- BEGIN name -->`` and ``<!-- END name -->``, where ``name`` is a results file without
its ``.json`` (``cpu/small_graph``, ``h200/training_steps``, ...), or ``headline`` (README's: a few cases of both
machines' small_graph.json). A results file is written by a benchmark command (``--json results/...``), which the
file records and the rendered table names under it; a table whose file is missing says so.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import statistics
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
RESULTS = REPO / "results"
DOCUMENTS = (REPO / "BENCHMARKS.md", REPO / "README.md", REPO / "upstream" / "04-jit-fastpath" / "PR.md")
sys.path.insert(0, str(REPO / "thunder" / "benchmarks"))

from target_figures import by_case, target_figures  # noqa: E402  (found through the path above)

HEADLINE_CASES = {
    "issue1657": "#1657: `sin`, `sum`, `gt` on 400 x 400",
    "rmsnorm_1x2880": "#2775: RMSNorm, 1 x 2880",
    "two_8x8": "`a * b + a`, 8 x 8",
    "params_32": "a module with 32 parameters",
    "train_step": "a small training step",
}
BLOCK = re.compile(r"(<!-- BEGIN (?P<name>[\w/:]+) -->\n)(?P<body>.*?)(<!-- END (?P=name) -->)", re.S)


def _environment(data: dict) -> str:
    env = data.get("environment", {})
    keys = ("gpu", "device", "python", "torch", "thunder", "nvfuser", "transformers")
    parts = [f"{k} {env[k]}" for k in keys if k in env]
    return "Measured with " + ", ".join(parts) + "." if parts else ""


def _commands(data: dict, file: str) -> str:
    """The command lines that wrote the file (``--update`` runs add theirs), with ``--json`` naming the file in
    ``results/`` wherever the run wrote it."""
    kind = pathlib.PurePosixPath(file).name
    lines = []
    for argv in [*data.get("earlier_argv", []), data.get("argv")]:
        if argv is None:
            continue
        argv = list(argv)
        if "--json" in argv[:-1]:
            argv[argv.index("--json") + 1] = f"results/{file}.json"
        launcher = "torchrun --standalone --nproc-per-node 2" if kind == "distributed_training" else "python"
        lines.append(f"`{launcher} thunder/benchmarks/{kind}.py {' '.join(argv)}`")
    return ("Command: " if len(lines) == 1 else "Commands: ") + ", then ".join(lines) + "." if lines else ""


def _ratio(x) -> str:
    return "" if x is None else f"{x:.2f}"


def per_call_table(data: dict) -> list[str]:
    """small_graph.py and small_models.py: one row per case, the systems' medians side by side."""
    rows = data["rows"]
    systems = [
        s
        for s in ("eager", "thunder", "fast", "computation", "nvfuser-fec.execute")
        if any(r["system"] == s for r in rows)
    ]
    names = {"thunder": "upstream", "nvfuser-fec.execute": "fd.fec.execute"}
    head = ["case", *(f"{names.get(s, s)} µs" for s in systems), "fast / eager", "fast / upstream", "fast out"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, by_system in by_case(rows).items():
        fast = by_system["fast"]
        cells = [f"{by_system[s]['median_us']:.2f}" if s in by_system else "" for s in systems]
        lines.append(
            f"| {case} | " + " | ".join(cells) + f" | {_ratio(fast['vs_eager'])} | {_ratio(fast['vs_upstream'])} |"
            f" {fast['check']} |"
        )
    return lines


def thunderfx_rows_table(data: dict) -> list[str]:
    """small_graph.py run with --with-compile --with-thunderfx: each case through ThunderFX beside eager,
    torch.compile and thunder.jit's fast path, medians in µs."""
    systems = ["eager", "torch.compile", "fast", "thunderfx", "thunderfx-fast"]
    names = {"fast": "thunder.jit fast", "thunderfx": "thunderfx upstream", "thunderfx-fast": "thunderfx fast"}
    head = ["case", *(f"{names.get(s, s)} µs" for s in systems), "fx fast / fx upstream", "fx fast / torch.compile"]
    lines = ["| " + " | ".join([*head, "out"]) + " |", "|" + "---|" * (len(head) + 1)]
    for case, by_system in by_case(data["rows"]).items():
        if "thunderfx-fast" not in by_system:
            continue
        fast = by_system["thunderfx-fast"]
        cells = [f"{by_system[s]['median_us']:.2f}" if s in by_system else "" for s in systems]
        ratios = [
            _ratio(fast["median_us"] / by_system[s]["median_us"] if s in by_system else None)
            for s in ("thunderfx", "torch.compile")
        ]
        lines.append(f"| {case} | " + " | ".join([*cells, *ratios, fast["check"]]) + " |")
    return lines


def training_table(data: dict) -> list[str]:
    """training_steps.py: one row per case and variant, each system's timings in the order they ran."""
    rows = data["rows"]
    lines = [
        "| case | variant | eager µs | upstream µs | fast µs | fast / eager | fast / upstream | fast out |",
        "|---|---|---|---|---|---|---|---|",
    ]
    by_key: dict[tuple, dict] = {}
    for r in rows:
        by_key.setdefault((r["case"], r["variant"]), {})[r["system"]] = r

    def timings(r):
        if r.get("failed"):
            return "fails"  # the error is in the results file and the run's printed table
        return " / ".join(f"{t:.0f}" for t in r["timings_us"])

    for (case, variant), s in by_key.items():
        fast = s["fast"]
        lines.append(
            f"| {case} | {variant} | {timings(s['eager'])} | {timings(s['thunder'])} | {timings(fast)} |"
            f" {_ratio(fast['vs_eager'])} | {_ratio(fast['vs_upstream'])} | {fast['check']} |"
        )
    graphed = [(key, s) for key, s in by_key.items() if "fast+graphs" in s]
    if graphed:  # --with-graphs: the CUDA-graph systems in a table of their own
        lines += [
            "",
            "| case | variant | upstream+graphs µs | fast+graphs µs | reduce-overhead µs |"
            " fast+graphs / eager | fast+graphs / upstream+graphs | fast+graphs / reduce-overhead | fast+graphs out |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for (case, variant), s in graphed:
            fast, compiled = s["fast+graphs"], s.get("torch.compile reduce-overhead")
            vs_compiled = fast["median_us"] / compiled["median_us"] if compiled else None
            lines.append(
                f"| {case} | {variant} | {timings(s['thunder+graphs'])} | {timings(fast)} |"
                f" {timings(compiled) if compiled else ''} | {_ratio(fast['vs_eager'])} |"
                f" {_ratio(fast['vs_upstream'])} | {_ratio(vs_compiled)} | {fast['check']} |"
            )
    return lines


def distributed_table(data: dict) -> list[str]:
    """distributed_training.py: one row per mode and rank."""
    lines = [
        "| mode | rank | eager µs | upstream µs | fast µs | fast / upstream | served by guards | fast out |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in data["rows"]:
        t = r["timings_us"]

        def cell(name, t=t):
            return " / ".join(f"{x:.0f}" for x in t[name]) if name in t else "–"

        ratio = statistics.median(t["fast"]) / statistics.median(t["thunder"])
        served = f"{r['fast_served_while_timed']} of {r['fast_calls_while_timed']}"
        lines.append(
            f"| {r['mode']} | {r['rank']} | {cell('eager')} | {cell('thunder')} | {cell('fast')} | {ratio:.2f} |"
            f" {served} | {r['check']} |"
        )
    return lines


def cache_entries_table(data: dict) -> list[str]:
    """cache_entries.py: hits of the oldest and the newest of N entries, then first calls (a miss that compiles)."""
    by_key: dict[tuple, dict] = {}
    first_calls: dict[str, dict] = {}
    for r in data["rows"]:
        if r["system"].endswith("first call"):
            first_calls.setdefault(r["case"], {})[r["system"]] = r
        else:
            by_key.setdefault((r["case"], r["entries"]), {})[r["system"]] = r
    systems = ["eager", "thunder oldest", "fast oldest", "thunder newest", "fast newest"]
    heads = [s.replace("thunder", "upstream") for s in systems]
    lines = ["| case | entries | " + " | ".join(f"{h} µs" for h in heads) + " | out |", "|" + "---|" * 8]
    for (case, n), by_system in by_key.items():
        cells = " | ".join(f"{by_system[s]['median_us']:.2f}" for s in systems)
        marks = "".join(sorted({by_system[s].get("check", "") for s in systems[1:]}))
        lines.append(f"| {case} | {n} | {cells} | {marks} |")
    lines += ["", "| first call | upstream ms | fast ms | fast / upstream |", "|---|---|---|---|"]
    for case, by_system in first_calls.items():
        up, fast = by_system["thunder first call"]["median_us"], by_system["fast first call"]["median_us"]
        lines.append(f"| {case} | {up / 1000:.1f} | {fast / 1000:.1f} | {fast / up:.3f} |")
    return lines


def targets_table(data: dict) -> list[str]:
    """small_graph.py's figures beyond the medians (``target_figures.py``): the fast path against the computation's
    floor, eager and nvFuser's own executor, and what each extra tensor adds."""
    figures, growths = target_figures(data["rows"])
    lines = [
        "| case | fast / computation | fast - computation µs | fast / eager | fast / fd.fec.execute |",
        "|---|---|---|---|---|",
    ]
    for f in figures:
        fec = "" if f.fast_over_fec is None else f"{f.fast_over_fec:.3f}"
        lines.append(
            f"| {f.case} | {f.fast_over_computation:.3f} | {f.fast_minus_computation_us:.2f} |"
            f" {f.fast_over_eager:.3f} | {fec} |"
        )
    for g in growths:
        lines.append(
            f"\nGrowth of fast - computation per {g.what} ({g.small} -> {g.large}): {g.from_medians_us:.3f} µs from"
            f" medians, {g.from_minima_us:.3f} from minima."
        )
    return lines


def breakdown_table(data: dict) -> list[str]:
    """training_breakdown.py: each case's pieces, medians in µs."""
    cases = data["cases"]
    names = list(cases)
    pieces = list(dict.fromkeys(p for c in cases.values() for p in c))
    lines = ["| piece | " + " | ".join(f"{n} µs" for n in names) + " |", "|---|" + "---|" * len(names)]
    for piece in pieces:
        cells = [f"{cases[n][piece]:.2f}" if piece in cases[n] else "" for n in names]
        label = piece.strip().replace("|", "/")
        label = f"&nbsp;&nbsp;{label}" if piece.startswith("  ") else label
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def thunderfx_table(data: dict) -> list[str]:
    """thunderfx_breakdown.py: each stage's median per case in µs (derived rows in italics)."""
    cases = list(dict.fromkeys(r["case"] for r in data["rows"]))
    stages = list(dict.fromkeys(r["stage"] for r in data["rows"]))
    by = {(r["case"], r["stage"]): r for r in data["rows"]}
    lines = ["| stage | " + " | ".join(f"{c} µs" for c in cases) + " |", "|---|" + "---|" * len(cases)]
    for stage in stages:
        rows = [by.get((c, stage)) for c in cases]
        derived = any(r is not None and r.get("derived") for r in rows)
        cells = [f"{r['median_us']:.2f}" if r is not None else "" for r in rows]
        lines.append(f"| {f'*{stage}*' if derived else stage} | " + " | ".join(cells) + " |")
    return lines


def hf_models_table(data: dict) -> list[str]:
    """hf_models.py: one row per model and mode, each system's median in ms (or "fails"), and the fast ThunderFX
    call against eager, ThunderFX upstream and torch.compile."""
    systems = ["eager", "torch.compile", "thunder.jit fast", "thunderfx upstream", "thunderfx fast"]
    by_key = {}
    for r in data["rows"]:
        by_key.setdefault((r["case"], r["mode"]), {})[r["system"]] = r
    head = ["case", "mode", *(f"{s} ms" for s in systems), "fx fast / eager", "/ fx upstream", "/ torch.compile", "out"]
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]

    def ms(r):
        return "fails" if r is None or "failed" in r else f"{r['median_us'] / 1e3:.2f}"

    def ratio(r, base):
        ok = r is not None and base is not None and "failed" not in r and "failed" not in base
        return _ratio(r["median_us"] / base["median_us"] if ok else None)

    for (case, mode), by in by_key.items():
        fast = by.get("thunderfx fast")
        cells = [case, mode, *(ms(by.get(s)) for s in systems)]
        cells += [ratio(fast, by.get(s)) for s in ("eager", "thunderfx upstream", "torch.compile")]
        cells.append(fast.get("check", "") if fast and "failed" not in fast else "")
        lines.append("| " + " | ".join(cells) + " |")
    failures = {}
    for r in data["rows"]:
        if "failed" in r:
            failures.setdefault((r["case"], r["failed"]), []).append(r["system"])
    for (case, error), systems in failures.items():
        lines.append(f"\n{', '.join(dict.fromkeys(systems))} on {case}: `{error}`")
    return lines


RENDERERS = {
    "small_graph": per_call_table,
    "small_models": per_call_table,
    "training_steps": training_table,
    "distributed_training": distributed_table,
    "cache_entries": cache_entries_table,
    "training_breakdown": breakdown_table,
    "thunderfx_breakdown": thunderfx_table,
    "hf_models": hf_models_table,
    "small_graph:targets": targets_table,
    "small_graph:thunderfx": thunderfx_rows_table,
}


def headline_table() -> str:
    """README's table: a few cases of small_graph.py on each machine, medians in µs."""
    lines = [
        "| case | machine | eager | upstream | fast path | fast / eager | fast / upstream |",
        "|---|---|---|---|---|---|---|",
    ]
    for machine in ("h200", "cpu"):
        path = RESULTS / machine / "small_graph.json"
        if not path.exists():
            continue
        rows = {(r["case"], r["system"]): r for r in json.loads(path.read_text())["rows"]}
        label = "H200" if machine == "h200" else "2-core CPU"
        for case, words in HEADLINE_CASES.items():
            if (case, "fast") not in rows:
                continue
            eager, up, fast = (rows[(case, s)] for s in ("eager", "thunder", "fast"))
            ratios = f"{_ratio(fast['vs_eager'])} | {_ratio(fast['vs_upstream'])}"
            lines.append(
                f"| {words} (`{case}`) | {label} | {eager['median_us']:.1f} | {up['median_us']:.1f} |"
                f" {fast['median_us']:.1f} {fast['check']} | {ratios} |"
            )
    return "\n".join(lines) + "\n"


def render(name: str) -> str:
    if name == "headline":
        return headline_table()
    file, _, view = name.partition(":")
    path = RESULTS / f"{file}.json"
    if not path.exists():
        return f"(not measured: `results/{file}.json` is missing)\n"
    data = json.loads(path.read_text())
    kind = pathlib.PurePosixPath(file).name
    lines = RENDERERS[f"{kind}:{view}" if view else kind](data)
    footer = [line for line in (_environment(data), _commands(data, file)) if line]
    return "\n".join(lines) + "\n" + "".join(f"\n{line}\n" for line in footer)


def rendered(document: str) -> str:
    return BLOCK.sub(lambda m: m.group(1) + render(m.group("name")) + m.group(4), document)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    stale = []
    for path in DOCUMENTS:
        document = path.read_text()
        new = rendered(document)
        if new == document:
            continue
        if args.check:
            stale.append(path.name)
        else:
            path.write_text(new)
    if stale:
        print(f"tables in {', '.join(stale)} differ from those rendered from results/: run tools/render_benchmarks.py")
        return 1
    if args.check:
        print("the tables in " + ", ".join(p.name for p in DOCUMENTS) + " are those rendered from results/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
