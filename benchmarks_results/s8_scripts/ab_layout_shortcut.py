"""A/B in one process (session 8): session 7's hit function (the region's layout check on every hit) against the
current one (the check skipped while the guard finds the entry's own sizes and strides), through the whole call.
Run from the repository root: python benchmarks_results/s8_scripts/ab_layout_shortcut.py cuda CASES."""
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
    if hit.entry_layout is None:
        print(f"== {name}: no layout shortcut (region call: {hit.region_call is not None})")
        continue
    # Session 7's hit: the same generator without the entry layout (plain guard, the region's check on every hit).
    kept, hit.entry_layout = hit.entry_layout, None
    old = hit.guard.compile_with("hit", hit._on_pass(), dict(hit.call.__globals__))[0]
    hit.entry_layout = kept
    variants = {"session 7 hit": old, "this session's hit": hit.call}
    print(hit.source)
    ref = jitted(*case.args)
    for vname, v in variants.items():
        state.calls = (v,)
        out = jitted(*case.args)
        print(vname, "equal:", small_graph.bitwise_equal(out, ref), "fast path:", state.published is not None)
    inps = hit.guard.check(case.args, {})[0]
    region = hit.region_call.region
    fd = region.last_used
    rin = tuple(inps[i] for i in hit.region_call.arg_positions)
    others = {"fd.fec.execute(tuple)": lambda: fd.fec.execute(rin), "eager": lambda: case.fn(*case.args)}
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
    assert region.prepared is hit.entry_layout, "the region prepared another layout while timing"
    print(f"== {name} ({dev}, grad {'off' if case.inference else 'on'}), µs per call, {R} repeats x {N} calls, interleaved")
    for k, v in timings.items():
        print(f"{k:34s} min {min(v):8.3f}  median {statistics.median(v):8.3f}")
    torch.set_grad_enabled(True)
