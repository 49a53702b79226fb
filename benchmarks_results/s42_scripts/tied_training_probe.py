"""Session 42: a weight-tied module trained for a few steps with upstream's path and with the fast path (the guard
change for one tensor under two names): losses, gradients and hit counts compared bitwise. This CPU."""
import copy, sys, os
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "thunder", "tests"))
import thunder  # noqa: E402
from test_overhead import TiedEmbeddings  # noqa: E402

torch.manual_seed(0)
model = TiedEmbeddings()
up, fast = thunder.jit(copy.deepcopy(model), fastpath=False), thunder.jit(copy.deepcopy(model), fastpath=True)
opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (up, fast)]
for step in range(5):
    idx = torch.randint(0, 16, (2, 3))
    losses, grads = [], []
    for m, opt in zip((up, fast), opts):
        opt.zero_grad()
        loss = m(idx).square().mean()
        loss.backward()
        losses.append(loss.detach())
        grads.append([p.grad.clone() for p in m.parameters()])
        opt.step()
    same = torch.equal(*losses) and all(torch.equal(a, b) for a, b in zip(*grads))
    served = fast._forward_fn._lc_fastpath_state.published is not None
    print(f"step {step}: bitwise equal {same}, hits/misses up {thunder.cache_hits(up)}/{thunder.cache_misses(up)} "
          f"fast {thunder.cache_hits(fast)}/{thunder.cache_misses(fast)}, served by a guard {served}")
