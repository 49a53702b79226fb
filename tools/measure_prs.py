"""Each pull request's gain, measured side by side: Thunder with the stack through the pull request against Thunder
with the stack through the one before it (main for the first), on the cases of small_graph.py that it changes.

    python tools/measure_prs.py [--prs 03,08] [--device cpu|cuda] [--repeats N]

For each pull request, ``tools/stack.py install --base main --target`` builds both into folders under
``.measure-prs/``; ``thunder/benchmarks/small_graph.py`` then runs with the first on ``PYTHONPATH`` and the second as
``--main`` and writes ``results/prs/<device>/NN-name.json``, which the pull request's PR.md renders.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
WORK = ROOT / ".measure-prs"
# The cases of small_graph.py that each pull request changes, and the benchmark's options for it
CASES = {
    "01": ("train_step", []),
    "02": ("train_step", []),
    "03": ("params_1,params_32,rmsnorm_1x2880", []),
    "04": ("two_8x8,train_step", []),
    "05": ("issue1657,rmsnorm_1x2880,two_8x8,params_32", []),
    "06": ("two_8x8,params_1,params_32", ["--with-thunderfx"]),
    "07": ("two_8x8,inputs_16,params_32,linear_autocast", []),
    "08": ("issue1657,rmsnorm_1x2880,two_8x8,inputs_1,inputs_16,params_1,params_32,train_step,linear_autocast", []),
    "09": ("two_8x8,inputs_16,inputs_64,params_32,params_128", []),
    "10": ("params_1,params_32,params_128,rmsnorm_1x2880,linear_autocast", []),
}
CUDA_ONLY = {"05"}


def install(through: str, target: pathlib.Path) -> None:
    stack = [sys.executable, str(ROOT / "tools" / "stack.py"), "install", "--base", "main", "--no-unpatched"]
    subprocess.run([*stack, "--through", through, "--target", str(target)], check=True, stdout=subprocess.DEVNULL)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prs", help="comma-separated pull request numbers (default: all that change a case)")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    folders = {p.name[:2]: p.name for p in sorted((ROOT / "upstream").iterdir()) if p.name[:2].isdigit()}
    numbers = args.prs.split(",") if args.prs else list(CASES)
    status = 0
    for n in numbers:
        if n in CUDA_ONLY and args.device != "cuda":
            print(f"{folders[n]}: measured on CUDA only")
            continue
        cases, options = CASES[n]
        before, after = WORK / "before", WORK / "after"
        install(f"{int(n) - 1:02d}", before)
        install(n, after)
        out = ROOT / "results" / "prs" / args.device / f"{folders[n]}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(after), os.environ.get("PYTHONPATH")) if p)}
        benchmark = [sys.executable, str(ROOT / "thunder" / "benchmarks" / "small_graph.py")]
        benchmark += ["--device", args.device, "--quick", "--repeats", str(args.repeats), "--cases", cases, *options]
        benchmark += ["--main", str(before), "--json", str(out)]
        print(f"== {folders[n]}", flush=True)
        status |= subprocess.run(benchmark, env=env, cwd=ROOT).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
