"""A/B in one process (session 7): session 6's hit function (the computation, with the grad switch where grad is on)
against the current one (the region's executor from the hit function, grad mode left as it is where allowed),
through the whole call. Run from the repository root: python benchmarks_results/s7_scripts/ab_region_hit.py cuda CASES."""
import sys, os, timeit, statistics, torch
sys.path.insert(0, "thunder/benchmarks")
import small_graph, thunder

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
    head = ["__cs.calls += 1", "__cs.cache_hits += 1", "if __state.published is not __this: __publish(__this)"]
    res = {"first": f"__computation({g.inputs})[0]", "all": f"tuple(__computation({g.inputs}))"}[hit.finish]
    old = head + (["__set_grad_enabled(False)", "try:", f"    return {res}", "finally:", "    __set_grad_enabled(True)"] if hit.grad_off else [f"return {res}"])
    variants = {"session 6 hit": g.compile_with("hit", old, ns)[0], "this session's hit": hit.call}
    print(hit.source)
    ref = jitted(*case.args)
    for vname, v in variants.items():
        state.calls = (v,)
        out = jitted(*case.args)
        print(vname, "equal:", small_graph.bitwise_equal(out, ref), "fast path:", state.published is not None)
    comp = hit.computation
    inps = g.check(case.args, {})[0]
    sg = torch._C._set_grad_enabled
    def comp_sw():
        sg(False)
        try: return comp(*inps)
        finally: sg(True)
    others = {"computation": lambda: comp(*inps), "eager": lambda: case.fn(*case.args)}
    if hit.grad_off:  # (it switches grad mode back on: only for cases that run with grad on)
        others = {"computation, grad switched off": comp_sw, **others}
    if hit.region_call is not None:
        fd = hit.region_call.region.last_used
        rin = [inps[i] for i in hit.region_call.arg_positions]
        others["fd.fec.execute(list)"] = lambda: fd.fec.execute(rin)
    timings = {k: [] for k in list(variants) + list(others)}
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
    print(f"== {name} ({dev}, grad {'off' if case.inference else 'on'}), µs per call, {R} repeats x {N} calls, interleaved")
    for k, v in timings.items():
        print(f"{k:34s} min {min(v):8.3f}  median {statistics.median(v):8.3f}")
    torch.set_grad_enabled(True)
