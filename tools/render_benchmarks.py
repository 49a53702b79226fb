"""Renders the tables of BENCHMARKS.md, README.md and the pull requests' PR.md from the JSON in results/.

Prose and data cannot drift: the documents' tables are rewritten from the files that the benchmark commands write.

    python tools/render_benchmarks.py           # rewrites the tables
    python tools/render_benchmarks.py --check   # exits 1 if a document's tables differ from the rendered ones (CI)

Each table sits between ``<!-- BEGIN name -->`` and ``<!-- END name -->``, where ``name`` is a results file without
its ``.json`` (``cpu/small_graph``: every row), optionally followed by ``:`` and comma-separated cases
(``h100/small_graph:issue1657,rmsnorm_1x2880``), or ``headline`` (README's: a few cases of each machine's
small_graph.json). A results file is written by the benchmark script of its name in ``thunder/benchmarks/`` (``--json``:
``small_graph.py``, ``hf_models.py``, ``thunderfx_breakdown.py``), which records its command line; the rendered table
names it under the table.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
RESULTS = REPO / "results"
BLOCK = re.compile(r"(<!-- BEGIN (?P<name>[\w/:,-]+) -->\n)(?P<body>.*?)(<!-- END (?P=name) -->)", re.S)
HEADLINE_CASES = {
    "issue1657": "#1657: `sin`, `sum`, `gt` on 400 x 400",
    "rmsnorm_1x2880": "#2775: RMSNorm, 1 x 2880",
    "two_8x8": "`a * b + a`, 8 x 8",
    "params_32": "a module with 32 parameters",
    "train_step": "a small training step",
}
MACHINES = {"h100": "H100", "h200": "H200", "cpu": "2-core CPU", "main_cpu": "2-core CPU"}


def documents() -> list[pathlib.Path]:
    return [REPO / "BENCHMARKS.md", REPO / "README.md", *sorted((REPO / "upstream").glob("*/PR.md"))]


def load(file: str) -> dict | None:
    path = RESULTS / f"{file}.json"
    return json.loads(path.read_text()) if path.exists() else None


def rows_by_case(data: dict) -> dict[str, dict[str, dict]]:
    cases: dict[str, dict[str, dict]] = {}
    for row in data["rows"]:
        cases.setdefault(row["case"], {})[row["system"]] = row
    return cases


def ratio(a: dict | None, b: dict | None) -> str:
    return f"{a['median_us'] / b['median_us']:.2f}" if a and b else ""


def us(row: dict | None) -> str:
    return f"{row['median_us']:.2f}" if row else ""


def environment(data: dict, file: str) -> str:
    env = data.get("environment", {})
    keys = ("gpu", "device", "python", "torch", "thunder", "thunder_main", "nvfuser")
    names = {"thunder": "Thunder", "thunder_main": "main"}
    if file.startswith("prs/"):
        names = {"thunder": "Thunder with the PR", "thunder_main": "without it"}
    parts = [f"{names.get(k, k)} {env[k]}" for k in keys if env.get(k)]
    return "Measured with " + ", ".join(parts) + "." if parts else ""


def command(data: dict, file: str) -> str:
    if file.startswith("prs/"):
        # The gain of a pull request: small_graph.py with it, against main with the pull requests before it (--main)
        argv = list(data.get("argv", []))
        argv[argv.index("--main") + 1] = "MAIN"
        del argv[argv.index("--json") : argv.index("--json") + 2]
        return (
            f"Command: `python thunder/benchmarks/small_graph.py {' '.join(argv)}`, with this pull request's Thunder"
            " imported and MAIN a folder holding the Thunder that it applies to (`small_graph.py`, which"
            " 11-small-graph-benchmark adds, runs on any Thunder)."
        )
    script = file.split("/")[-1]
    commands = []
    # A run with --update adds its rows to those of the earlier runs (earlier_argv), each named here
    for argv in [*data.get("earlier_argv", []), data.get("argv", [])]:
        argv = list(argv)
        if "--json" in argv[:-1]:
            argv[argv.index("--json") + 1] = f"results/{file}.json"
        commands.append(f"`python thunder/benchmarks/{script}.py {' '.join(argv)}`")
    if len(commands) == 1:
        return f"Command: {commands[0]}."
    return f"Commands, each after the first adding its rows (--update): {', then '.join(commands)}."


def small_graph_table(data: dict, file: str, cases: list[str] | None) -> str:
    by_case = rows_by_case(data)
    peers = [s for s in ("torch.compile", "nvfuser-fec.execute") if any(s in systems for systems in by_case.values())]
    # A pull request's gain compares the Thunder it applies to (the benchmark's main) with the pull request's Thunder
    before, after = ("without the PR", "with the PR") if file.startswith("prs/") else ("main", "Thunder")
    head = ["case", "eager µs", f"{before} µs", f"{after} µs", *(f"{p} µs" for p in peers)]
    head += [f"{after} / eager", f"{after} / {before}", "out"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case, systems in by_case.items():
        if cases is not None and case not in cases:
            continue
        eager, main, thunder = systems.get("eager"), systems.get("main"), systems.get("thunder")
        cells = [case, us(eager), us(main), us(thunder), *(us(systems.get(p)) for p in peers)]
        cells += [ratio(thunder, eager), ratio(thunder, main), thunder["check"] if thunder else ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\n{environment(data, file)}\n\n{command(data, file)}\n"


def hf_models_table(data: dict, file: str) -> str:
    head = ["case", "mode", "system", "median µs", "/ eager", "/ torch.compile", "out", "regions"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    by = {(r["case"], r["mode"], r["system"]): r for r in data["rows"]}
    for r in data["rows"]:
        eager, compiled = by.get((r["case"], r["mode"], "eager")), by.get((r["case"], r["mode"], "torch.compile"))
        if "failed" in r:
            cells = [r["case"], r["mode"], r["system"], f"fails: {r['failed']}", "", "", "", ""]
        else:
            cells = [r["case"], r["mode"], r["system"], f"{r['median_us']:.1f}", ratio(r, eager), ratio(r, compiled)]
            cells += [r.get("check", ""), r.get("regions", "")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\n{environment(data, file)}\n\n{command(data, file)}\n"


def breakdown_table(data: dict, file: str) -> str:
    cases = list(dict.fromkeys(r["case"] for r in data["rows"]))
    by = {(r["case"], r["stage"]): r for r in data["rows"]}
    stages = list(dict.fromkeys(r["stage"] for r in data["rows"]))
    lines = ["| stage | " + " | ".join(f"{c} µs" for c in cases) + " |", "|" + "---|" * (len(cases) + 1)]
    for stage in stages:
        cells = [f"{by[(c, stage)]['median_us']:.1f}" if (c, stage) in by else "" for c in cases]
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\n{environment(data, file)}\n\n{command(data, file)}\n"


def headline() -> str:
    lines = [
        "| case | machine | eager µs | main µs | Thunder µs | Thunder / eager | Thunder / main |",
        "|---|---|---|---|---|---|---|",
    ]
    for machine, label in MACHINES.items():
        data = load(f"{machine}/small_graph")
        if data is None or machine == "main_cpu":
            continue
        by_case = rows_by_case(data)
        for case, words in HEADLINE_CASES.items():
            s = by_case.get(case)
            if s:
                t, e, m = s.get("thunder"), s.get("eager"), s.get("main")
                lines.append(
                    f"| {words} | {label} | {us(e)} | {us(m)} | {us(t)} {t['check']} | {ratio(t, e)} | {ratio(t, m)} |"
                )
    return "\n".join(lines) + "\n"


def render(name: str) -> str:
    if name == "headline":
        return headline()
    file, _, cases = name.partition(":")
    data = load(file)
    if data is None:
        return f"(not measured yet: `results/{file}.json` is missing)\n"
    if file.endswith("/hf_models"):
        return hf_models_table(data, file)
    if file.endswith("/thunderfx_breakdown"):
        return breakdown_table(data, file)
    return small_graph_table(data, file, cases.split(",") if cases else None)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    stale = []
    for doc in documents():
        text = doc.read_text()
        new = BLOCK.sub(lambda m: m.group(1) + render(m.group("name")) + m.group(4), text)
        if new != text:
            if args.check:
                stale.append(str(doc.relative_to(REPO)))
            else:
                doc.write_text(new)
    if stale:
        print("tables differ from results/ (run tools/render_benchmarks.py):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
