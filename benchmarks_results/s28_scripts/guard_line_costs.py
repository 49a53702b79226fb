"""Session 28: the cost of each line of one entry's generated guard, timed alone in the hit function's namespace
(timeit of the line's expression, with the guard's locals bound as on a hit); minima over repeats, µs. Lines that
only bind names (unpacking, module attribute reads) are not timed alone; the whole guard includes them.

    python benchmarks_results/s28_scripts/guard_line_costs.py [--device cpu|cuda] [--case two_8x8]
"""
import argparse
import re
import sys
import timeit

import torch

sys.path.insert(0, "thunder/benchmarks")
import small_graph  # noqa: E402

import thunder  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--case", default="two_8x8")
    parser.add_argument("--number", type=int, default=200000)
    parser.add_argument("--repeats", type=int, default=9)
    a = parser.parse_args()
    case = {c.name: c for c in small_graph.make_cases(a.device)}[a.case]
    torch.set_grad_enabled(not case.inference)
    j = thunder.jit(case.fn, fastpath=True)
    for _ in range(3):
        j(*case.args)
    fast = j._forward_fn if isinstance(j, torch.nn.Module) else j
    hit = fast._lc_fastpath_state.hits[0]
    ns = dict(hit.call.__globals__)
    # The guard's locals, as one hit binds them.
    locals_fn = hit.guard.compile_with("probe", ["return locals()"], {})[0]
    ns.update(locals_fn(case.args, {}))
    ns.update(args=case.args, kwargs={})
    lines = [l.strip() for l in hit.source.splitlines()]
    exprs = []
    for line in lines:
        m = (re.match(r"if (.*): return __\w+$", line) or re.match(r"__same_layout = (.*)$", line)
             or re.match(r"if not (__tensor_guards.check\(.*\)):$", line))
        if m and "__verdict" not in m.group(1):
            exprs.append(m.group(1))
    exprs.append("None")  # the loop's own cost
    print(f"== {a.case} on {a.device}, python {sys.version.split()[0]}")
    for e in exprs:
        code = compile(e, "<line>", "eval")
        t = min(timeit.repeat(lambda: eval(code, ns), number=a.number, repeat=a.repeats)) / a.number * 1e6
        print(f"{t:7.3f} us  {e}")
    t = min(timeit.repeat(lambda: hit.guard.check(case.args, {}), number=a.number // 4, repeat=a.repeats))
    print(f"{t / (a.number // 4) * 1e6:7.3f} us  the whole guard (Guard.check)")


if __name__ == "__main__":
    main()
