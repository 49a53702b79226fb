"""Prototype A/B: hit-function variants for a single-region computation, timed through the whole call."""
import sys, os, timeit, statistics, torch
sys.path.insert(0, "thunder/benchmarks")
import small_graph, thunder
from thunder.fastpath.nvfuser import FusionRegion

dev = sys.argv[1] if len(sys.argv) > 1 else "cuda"
names = sys.argv[2].split(",") if len(sys.argv) > 2 else ["issue1657"]
N, R = int(os.environ.get("N", 5000)), int(os.environ.get("R", 15))
sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
cases = {c.name: c for c in small_graph.make_cases(dev)}
for name in names:
    case = cases[name]
    torch.set_grad_enabled(not case.inference)
    jitted = thunder.jit(case.fn, fastpath=True)
    for _ in range(3): jitted(*case.args)
    fast = jitted._forward_fn if isinstance(jitted, torch.nn.Module) else jitted
    state = fast._lc_fastpath_state
    hit = state.hits[0]
    g = hit.guard
    ns = dict(hit.call.__globals__)
    comp = hit.computation
    trace = thunder.last_traces(jitted)[-1]
    print(trace)
    regions = [(k, v) for k, v in comp.__globals__.items() if isinstance(v, FusionRegion)]
    head = ["__cs.calls += 1", "__cs.cache_hits += 1", "if __state.published is not __this: __publish(__this)"]
    fin = {"first": "[0]", "all": ""}[hit.finish]
    wrap = (lambda e: f"tuple({e})") if hit.finish == "all" else (lambda e: e + fin)
    variants = {"current": hit.call}
    variants["no switch"] = g.compile_with("hit", head + [f"return {wrap(f'__computation({g.inputs})')}"], ns)[0]
    if len(regions) == 1:
        rname, region = regions[0]
        rb = [b for b in trace.bound_symbols if b.sym.name == rname][0]
        params = [a.name for a in trace.args]
        rargs = [getattr(a, "name", None) for a in rb.args]
        print("region args", rargs, "comp params", params, "region out", rb.output, "return", trace.bound_symbols[-1].args)
        ns2 = dict(ns, __region=region)
        tens = [rargs[i] for i in region.tensor_indices]
        body_inline = [f"__sl = __region.same_layout",
                       f"if __sl is not None and __sl.check({', '.join(tens)}):",
                       f"    return {wrap(f'__region.execute(({chr(44).join(rargs)},))')}"]
        sw = ["__set_grad_enabled(False)", "try:", f"    return {wrap(f'__computation({g.inputs})')}", "finally:", "    __set_grad_enabled(True)"] if hit.grad_off else [f"return {wrap(f'__computation({g.inputs})')}"]
        variants["inline region, switch kept"] = g.compile_with("hit", head + (["__set_grad_enabled(False)", "try:"] + ["    " + l for l in body_inline] + ["    return " + wrap(f"__computation({g.inputs})"), "finally:", "    __set_grad_enabled(True)"] if hit.grad_off else body_inline + sw), ns2)[0]
        variants["inline region, no switch"] = g.compile_with("hit", head + body_inline + [f"return {wrap(f'__computation({g.inputs})')}"], ns2)[0]
        fd = region.last_used
        inps = g.check(case.args, {})[0]
        region.store_inputs = True; comp(*inps); rin = region.last_inputs; region.store_inputs = False
        extra = {"fd.fec.execute(list)": lambda: fd.fec.execute(list(rin)), "region call": lambda: region(*rin)}
    else:
        extra = {}
    ref = jitted(*case.args)
    timings = {k: [] for k in list(variants) + ["fast callable", "computation (+switch)", "computation", *extra, "eager"]}
    inps = g.check(case.args, {})[0]
    sg = torch._C._set_grad_enabled
    def comp_sw():
        sg(False)
        try: return comp(*inps)
        finally: sg(True)
    others = {"fast callable": lambda: fast(*case.args), "computation (+switch)": comp_sw if hit.grad_off else (lambda: comp(*inps)),
              "computation": lambda: comp(*inps), **extra, "eager": lambda: case.fn(*case.args)}
    for vname, v in variants.items():
        state.calls = (v,)
        out = jitted(*case.args)
        print(vname, "equal:", small_graph.bitwise_equal(out, ref), "fast path:", state.published is not None)
    for _ in range(R):
        for vname, v in variants.items():
            state.calls = (v,)
            def loop():
                for _ in range(N): jitted(*case.args)
                sync()
            timings[vname].append(timeit.timeit(loop, number=1) / N * 1e6)
        state.calls = (hit.call,)
        for k, f in others.items():
            def loop(f=f):
                for _ in range(N): f()
                sync()
            timings[k].append(timeit.timeit(loop, number=1) / N * 1e6)
    print(f"== {name} ({dev}, grad {'off' if case.inference else 'on'}), µs per call over {R} x {N}")
    for k, v in timings.items():
        print(f"{k:34s} min {min(v):8.3f}  median {statistics.median(v):8.3f}")
    torch.set_grad_enabled(True)
