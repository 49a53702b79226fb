"""What each line of a generated hit function costs: the two_8x8 hit function (small_graph.py's case) with one line left
out at a time, timed interleaved against the full function (min µs over repeats). A variant is not a correct guard;
it only shows how much of the hit each line takes. Lines that later lines read (the unpacking of the arguments) stay;
``__same_layout = ...`` becomes ``__same_layout = True``. Run from the repository root:

    .venv/bin/python benchmarks_results/s30_scripts/hit_line_costs.py

``hit_micro_rewrites.py`` times hand-made variants of the same function with this script's helpers.
"""
import functools
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "thunder", "benchmarks"))
import small_graph  # noqa: E402
import hit_breakdown  # noqa: E402

NUMBER, REPEATS = 20000, 15


def two_8x8_hit():
    """(jitted, hit, args): small_graph.py's two_8x8 case jitted and hit; keep ``jitted`` alive while ``hit`` is used."""
    case = next(c for c in small_graph.make_cases("cpu") if c.name == "two_8x8")
    jitted, _, hit = hit_breakdown.jit_and_hit(case)
    return jitted, hit, case.args


def time_variants(hit, sources: dict, args, repeats=REPEATS, extra_globals=None) -> dict:
    """µs per call of each source (a variant of ``hit.source``), compiled with the hit function's globals (and
    ``extra_globals``), called with ``(args, {})``: samples per variant, interleaved (hit_breakdown.time_interleaved),
    in grad mode, as the entry was made."""
    pieces = {}
    for name, source in sources.items():
        namespace = {**hit.call.__globals__, **(extra_globals or {})}
        exec(compile(source, "variant", "exec"), namespace)
        pieces[name] = functools.partial(namespace["hit"], args, {})
    with torch.enable_grad():
        return hit_breakdown.time_interleaved(pieces, NUMBER, repeats, lambda: None)


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
    jitted, hit, args = two_8x8_hit()
    samples = time_variants(hit, dict(variants(hit.source)), args)
    full = min(samples["full"])
    print(f"== two_8x8: full hit function {full:.3f} us")
    for name, s in samples.items():
        if name != "full":
            print(f"{full - min(s):7.3f} us  {name}")


if __name__ == "__main__":
    main()
