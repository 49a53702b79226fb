"""Scratch: FusionRegion.__call__ (an instance's __call__) against plain functions doing the same work."""
import sys, timeit, torch
sys.path.insert(0, "thunder/benchmarks")
import small_graph, thunder
from thunder.fastpath.nvfuser import FusionRegion

dev = sys.argv[1] if len(sys.argv) > 1 else "cuda"
case = {c.name: c for c in small_graph.make_cases(dev)}["issue1657"]
j = thunder.jit(case.fn)
for _ in range(3):
    j(*case.args)
hit = j._forward_fn._lc_fastpath_state.hits[0]
comp = hit.computation
region = next(v for v in comp.__globals__.values() if isinstance(v, FusionRegion))
region.store_inputs = True
prepared = hit.guard.check(case.args, {})[0]
comp(*prepared)
args = region.last_inputs
region.store_inputs = False
r = region

def closure_over_region(*args):
    same_layout = r.same_layout
    if same_layout is not None and same_layout.check(*(args if r.pick_tensors is None else r.pick_tensors(args))):
        if r.store_inputs:
            r.last_inputs = args
        return r.execute(args)
    return r.prepare_and_call(args)

def own_attributes(*args):
    same_layout = own_attributes.same_layout
    if same_layout is not None and same_layout.check(*(args if own_attributes.pick_tensors is None else own_attributes.pick_tensors(args))):
        if own_attributes.store_inputs:
            own_attributes.last_inputs = args
        return own_attributes.execute(args)
    raise RuntimeError
own_attributes.same_layout, own_attributes.pick_tensors = r.same_layout, r.pick_tensors
own_attributes.store_inputs, own_attributes.execute = False, r.execute

sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
pieces = {
    "FusionRegion instance": lambda: region(*args),
    "function, closure over the region": lambda: closure_over_region(*args),
    "function, its own attributes": lambda: own_attributes(*args),
    "executor call": lambda: region.execute(args),
    "layout check": lambda: region.same_layout.check(*args),
}
best = {k: 9e9 for k in pieces}
for _ in range(9):
    for k, f in pieces.items():
        def loop(f=f):
            for _ in range(5000):
                f()
            sync()
        best[k] = min(best[k], timeit.timeit(loop, number=1) / 5000 * 1e6)
for k, v in best.items():
    print(f"{k:<40} {v:8.3f} us")
