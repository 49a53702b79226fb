"""Each pull request's gain, measured side by side: Thunder with the stack through the pull request against Thunder
with the stack through the one before it (main for the first), on the cases of small_graph.py that it changes.

    python tools/measure_prs.py [--prs 03,08] [--device cpu|cuda] [--repeats N] [--unpatched DIR]

For each pull request, ``tools/stack.py install --base main --target`` builds both into folders under
``.measure-prs/`` (with ``--unpatched``, a copy each of DIR, Thunder main as ``install --target`` installs it, with the
pull requests' patches applied: no build); ``thunder/benchmarks/small_graph.py`` then runs with the first on
``PYTHONPATH`` and the second as ``--main`` and writes ``results/prs/<device>/NN-name.json``, which the pull request's
PR.md renders.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
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


def apply_stack(unpatched: pathlib.Path, through: str, target: pathlib.Path) -> None:
    """``unpatched`` copied to ``target``, with the patches of the pull requests through ``through`` applied."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(unpatched, target)
    # git apply must not find this repository above the target, or it would apply to paths relative to its root
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(target.parent)}
    for folder in sorted((ROOT / "upstream").iterdir()):
        if folder.name[:2].isdigit() and folder.name[:2] <= through:
            for patch in sorted(folder.glob("*.patch")):
                # An installed Thunder has no docs/
                subprocess.run(["git", "apply", "--exclude=docs/*", str(patch)], cwd=target, env=env, check=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prs", help="comma-separated pull request numbers (default: all that change a case)")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--unpatched", type=pathlib.Path, help="Thunder main as installed, to apply the patches to")
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
        for through, target in ((f"{int(n) - 1:02d}", before), (n, after)):
            if args.unpatched:
                apply_stack(args.unpatched.resolve(), through, target)
            else:
                install(through, target)
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
