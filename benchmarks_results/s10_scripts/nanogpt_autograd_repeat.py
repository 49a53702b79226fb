"""lightning-thunder's test_nanogpt_complete_autograd, repeated in one process, upstream and fast path side by side.

Session 10's copy of ``s9_scripts/nanogpt_autograd_repeat.py``: both modes of a round now start from the same seed
(the same weights and inputs), and the round also says whether their losses and gradients are bitwise equal.

Session 9's run D saw that test fail once with the fast path on (nvFuser, CUDA: the jitted model's loss 0.0 instead
of 10.97, on its first call), not with it off; alone, it passed both ways. This repeats the test's body N times:
each round makes a new nanoGPT (the test's config) and new random inputs, jits it with and without the fast path
(nvFuser on CUDA, the torch executor on the CPU), makes one forward and `torch.autograd.grad` with each, and
compares both with eager as the test does (and with each other). Prints a line per round and a summary.

    python benchmarks_results/s10_scripts/nanogpt_autograd_repeat.py [cuda|cpu] [ROUNDS] [FIRST_SEED]
"""

import sys

import torch
from torch.testing import assert_close, make_tensor

import thunder
import thunder.fastpath  # noqa: F401  (the fastpath= keyword)
import thunder.tests.nanogpt_model as nanogpt_model

device = sys.argv[1] if len(sys.argv) > 1 else "cuda"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
first_seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
executors = ["nvfuser"] if device == "cuda" else ["torch"]


def one_round(fastpath, seed):
    torch.manual_seed(seed)
    config = nanogpt_model.GPTConfig(dropout=0, block_size=512, n_layer=6, n_head=6, n_embd=768)
    gpt = nanogpt_model.GPT(config).to(device=device, dtype=torch.float32)
    x = make_tensor((4, 64), dtype=torch.int64, low=0, high=255, device=device)
    targets = make_tensor((4, 64), dtype=torch.int64, low=0, high=255, device=device)
    eager = gpt(x, targets=targets)
    eager_grads = torch.autograd.grad(eager[1], gpt.parameters())
    jitted = thunder.jit(gpt, executors=executors, fastpath=fastpath)
    assert thunder.fastpath.is_fast(jitted) == fastpath
    out = jitted(x, targets=targets)
    grads = torch.autograd.grad(out[1], gpt.parameters())
    problems = []
    try:
        assert_close(eager, out)
    except AssertionError as e:
        problems.append(f"outputs: {str(e).splitlines()[0]} (loss eager {eager[1].item():.4f}, jitted {out[1].item():.4f})")
    try:
        assert_close(eager_grads, grads, atol=1e-1, rtol=1e-1)
    except AssertionError as e:
        problems.append(f"grads: {str(e).splitlines()[0]}")
    return problems, (out[1].detach(), grads)


def bitwise_equal(a, b):
    (loss_a, grads_a), (loss_b, grads_b) = a, b
    return torch.equal(loss_a, loss_b) and all(torch.equal(x, y) for x, y in zip(grads_a, grads_b))


failures = {False: 0, True: 0}
unequal = 0
for i in range(rounds):
    seed = first_seed + i
    results = {}
    for fastpath in (True, False):  # alternate, the fast path first; the same seed for both
        problems, results[fastpath] = one_round(fastpath, seed)
        failures[fastpath] += bool(problems)
        print(f"round {i} seed {seed} fastpath={fastpath}: {'ok' if not problems else '; '.join(problems)}", flush=True)
    same = bitwise_equal(results[True], results[False])
    unequal += not same
    print(f"round {i} seed {seed}: loss and grads on vs off {'bitwise equal' if same else 'NOT bitwise equal'}", flush=True)
print(f"{device}, {rounds} rounds: failed with the fast path on {failures[True]}, off {failures[False]};"
      f" rounds whose on/off results differ bitwise: {unequal}")
