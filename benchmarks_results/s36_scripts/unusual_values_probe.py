"""Session 36, this CPU: a quick differential probe of unusual values, upstream (fast path off) against the fast path
in one process: bool/int/float constants, signed zeros, NaN and inf, large and complex numbers, dtypes, None, ints
used as dims, 0-dim tensors against numbers, lists and tuples, str and bytes, aliasing, layouts, requires_grad, meta
and sparse tensors, and a module whose Python attribute, parameter requires_grad, parameter (in place, replaced) and
.data change between calls. Prints SAME or DIFF per sequence, with (hits, misses) of upstream and of the fast path,
then the exceptions' outcomes. test_overhead.py keeps the bool/int and signed-zero cases as a test."""
import math, torch, thunder, thunder.fastpath
def run(fn, calls):
    res = []
    for fast in (False, True):
        jf = thunder.jit(fn, fastpath=fast)
        outs = []
        for a in calls:
            try:
                o = jf(*a)
                outs.append(("ok", o))
            except Exception as e:
                outs.append(("err", type(e).__name__))
        res.append((outs, thunder.cache_hits(jf), thunder.cache_misses(jf)))
    (uo, uh, um), (fo, fh, fm) = res
    same = (uh, um) == (fh, fm)
    for a, b in zip(uo, fo):
        if a[0] != b[0]: same = False
        elif a[0] == "ok":
            ta, tb = a[1], b[1]
            if isinstance(ta, torch.Tensor) and (ta.is_meta or ta.is_sparse):
                if (ta.shape, ta.dtype, ta.device, ta.layout) != (tb.shape, tb.dtype, tb.device, tb.layout) or (ta.is_sparse and not torch.equal(ta.to_dense(), tb.to_dense())): same = False
            elif isinstance(ta, torch.Tensor):
                if not (torch.equal(ta, tb) or (ta.isnan().all() and tb.isnan().all())) or ta.dtype != tb.dtype: same = False
            elif ta != tb and not (isinstance(ta, float) and math.isnan(ta) and math.isnan(tb)): same = False
        elif a[1] != b[1]: same = False
    print("SAME" if same else "DIFF", (uh, um), (fh, fm), [o[1] if o[0] == 'err' else 'ok' for o in uo], [o[1] if o[0] == 'err' else 'ok' for o in fo])
x = torch.randn(3)
f = lambda x, s: x * s
run(f, [(x, 1), (x, True), (x, 1.0), (x, 1), (x, True)])
run(f, [(x, 0.0), (x, -0.0), (x, 0.0)])
run(f, [(x, float('nan')), (x, float('nan')), (x, float('inf'))])
run(f, [(x, 2**62), (x, 2**63), (x, 2**62)])
run(f, [(x, 1+0j), (x, 1+0j), (x, 1)])
g = lambda x, d: x.to(d)
run(g, [(x, torch.float64), (x, torch.float16), (x, torch.float64)])
h = lambda x, y=None: x if y is None else x + y
run(h, [(x,), (x, None), (x, x), (x,), (x, None)])
k = lambda x, n: x.sum(n)
run(k, [(x, 0), (x, -1), (x, 0)])
z = torch.tensor(2.0)
run(f, [(x, z), (x, 2.0), (x, z), (x, torch.tensor(3.0))])
run(f, [(x, torch.tensor(2)), (x, torch.tensor(2.0)), (x, torch.tensor(2, dtype=torch.int32))])
m = lambda x, l: x + sum(l)
run(m, [(x, [1,2]), (x, [1,2,3]), (x, (1,2)), (x, [1,2])])
s = lambda x, st: x * len(st)
run(s, [(x, "ab"), (x, "abc"), (x, "ab"), (x, b"ab")])
y = torch.randn(3, dtype=torch.float64)
run(lambda a, b: a + b, [(x, x), (x, x.clone()), (x, y), (x, x[:]), (x, x.clone())])
run(lambda a: a.sum(), [(torch.randn(3,4),), (torch.randn(4,3).t(),), (torch.randn(3,4)[:, :],), (torch.randn(3,8)[:, ::2],)])
run(lambda a: a * 2, [(torch.randn(3, requires_grad=True),), (torch.randn(3),), (torch.randn(3, requires_grad=True),)])
run(lambda a: a * 2, [(torch.randn(3),), (torch.randn(3, device='meta'),), (torch.randn(3),)])
run(lambda a: a * 2, [(torch.randn(3),), (torch.randn(3).to_sparse(),), (torch.randn(3),)])

class M(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.w = torch.nn.Parameter(torch.randn(3)); s.k = 2
    def forward(s, x): return x * s.w * s.k
def modrun(steps):
    res=[]
    for fast in (False, True):
        torch.manual_seed(0); m = M(); jm = thunder.jit(m, fastpath=fast); outs=[]
        for st in steps:
            st(m, jm)
            with torch.no_grad():
                try: outs.append(jm(torch.ones(3)).clone())
                except Exception as e: outs.append(type(e).__name__)
        res.append((outs, thunder.cache_hits(jm), thunder.cache_misses(jm)))
    (a, ah, am), (b, bh, bm) = res
    ok = (ah, am) == (bh, bm) and all((isinstance(u, str) and u == v) or (not isinstance(u, str) and not isinstance(v, str) and torch.equal(u, v)) for u, v in zip(a, b))
    print("SAME" if ok else "DIFF", (ah, am), (bh, bm), [u if isinstance(u, str) else 'ok' for u in a], [u if isinstance(u, str) else 'ok' for u in b])
nop = lambda m, jm: None
def setk(v): 
    def s(m, jm): jm._model.k = v if hasattr(jm, '_model') else None; m.k = v
    return s
def requires(v):
    def s(m, jm): m.w.requires_grad_(v)
    return s
def replace_w(t):
    def s(m, jm): m.w = torch.nn.Parameter(t.clone())
    return s
def inplace(m, jm):
    with torch.no_grad(): m.w.add_(1)
def data_swap(m, jm): m.w.data = torch.randn(6)[::2]
def buf(m, jm): m.register_buffer("b", torch.ones(3))
modrun([nop, nop, setk(3), nop, setk(2), nop])
modrun([nop, nop, requires(False), nop, requires(True), nop])
modrun([nop, nop, inplace, nop, replace_w(torch.ones(3)), nop, replace_w(torch.ones(4)), nop])
modrun([nop, nop, data_swap, nop, data_swap, nop])
modrun([nop, nop, setk(2.0), nop, setk(True), nop])
