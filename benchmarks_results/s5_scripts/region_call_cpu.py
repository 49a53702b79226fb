import sys, timeit, torch, statistics
sys.path.insert(0,'thunder/tests')
from test_overhead import FakeWrapper
from thunder.fastpath.nvfuser import FusionRegion
x = torch.randn(400, 800)[:, ::2]
up = FakeWrapper()
region = FusionRegion(up, (0,), 1)
region(x)
region.execute = len
r = region
args = (x,)
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
pieces = {"instance": lambda: region(*args), "closure": lambda: closure_over_region(*args), "own attrs": lambda: own_attributes(*args), "execute": lambda: region.execute(args), "check": lambda: r.same_layout.check(*args)}
res = {k: [] for k in pieces}
for _ in range(25):
    for k, f in pieces.items():
        res[k].append(timeit.timeit(f, number=20000) / 20000 * 1e6)
for k, v in res.items():
    print(f"{k:<12} min {min(v):.3f} median {statistics.median(v):.3f}")
