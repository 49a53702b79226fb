"""What each line of a generated hit function costs: the two_8x8 hit function (small_graph.py's case) with one line left
out at a time, timed interleaved against the full function (min µs over repeats). A variant is not a correct guard;
it only shows how much of the hit each line takes. Lines that later lines read (the unpacking of the arguments) stay;
``__same_layout = ...`` becomes ``__same_layout = True``. Run from the repository root:

    .venv/bin/python benchmarks_results/s30_scripts/hit_line_costs.py
"""
import os
import sys
import timeit

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "thunder", "benchmarks"))
import small_graph  # noqa: E402
import hit_breakdown  # noqa: E402


def variants(source):
    lines = source.splitlines()
    yield "full", source
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith(("def ", "try:", "except", "return __MISS", "finally", "return __comp", "__set_grad")) or s == "":
            continue
        if s.startswith("if ") and s.endswith(":"):
            continue  # block openers: leaving them out breaks the function
        if "=" in s.split("(")[0] and "__same_layout =" not in s and "+=" not in s:
            continue  # assignments that later lines read (the arguments' unpacking)
        indent = line[: len(line) - len(line.lstrip())]
        replacement = indent + ("__same_layout = True" if "__same_layout =" in s else "pass")
        yield f"-{s[:70]}", "\n".join(lines[:i] + [replacement] + lines[i + 1:]) + "\n"


def main():
    for case in small_graph.make_cases("cpu"):
        if case.name != "two_8x8":
            continue
        jitted, fast, hit = hit_breakdown.jit_and_hit(case)
        args = case.args
        ctx = torch.enable_grad()  # the mode jit_and_hit called it in, so the entry's guard passes
        fns = {}
        for name, src in variants(hit.source):
            ns = dict(hit.call.__globals__)
            exec(compile(src, "variant", "exec"), ns)
            fns[name] = ns["hit"]
        samples = {n: [] for n in fns}
        number = 20000
        with ctx:
            for _ in range(15):
                for n, fn in fns.items():
                    def loop(fn=fn):
                        for _ in range(number):
                            fn(args, {})
                    samples[n].append(timeit.timeit(loop, number=1) / number * 1e6)
        full = min(samples["full"])
        print(f"== {case.name}: full hit function {full:.3f} us")
        for n in fns:
            if n != "full":
                print(f"{full - min(samples[n]):7.3f} us  {n}")


if __name__ == "__main__":
    main()
