"""Upstream against the fast path over training and inference loops (minutes; not in CI).

Three jitted callables whose parameters require grad: a module (Linear, Tanh, Dropout, Linear), a function that
takes its weights as arguments, and a function with two outputs. Each random sequence of steps runs on two equal
worlds, one jitted with upstream's path and one with the fast path. A step is part of a training or inference
loop: a training step (forward, backward, optimizer step, gradients zeroed or set to None), gradient accumulation,
forward under no_grad or inference_mode, torch.autograd.grad with respect to the input, backward twice through a
retained graph, two forwards and one backward, a non-leaf input, a backward through one output only, a frozen or
unfrozen first parameter, train/eval, another batch size. After each step it compares what the step returned
(tensors bitwise, their requires_grad and grad_fn type, or the exception's type), every parameter and its
gradient, the hit and miss counts, and it counts hits that upstream's path served although their entry had a
guard (a guard stricter than the prologue: not wrong, only slow, and invisible to the rest).


    python tools/training_loops.py [--sequences N] [--steps K] [--seed S] [--cache C] [--device D] [--only NAMES]
"""

import argparse
import random
import warnings

import torch

import thunder
import thunder.fastpath  # noqa: F401
from thunder.fastpath.explain import fastpath_state
from thunder.fastpath.publication import entry_used_last


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Dropout(0.25), torch.nn.Linear(8, 2)
        )

    def forward(self, x):
        return self.layers(x)


def affine_tanh(x, w, b):
    return torch.tanh(x @ w + b)


def two_outputs(x, w):
    y = x @ w
    return y.relu(), y.sum(0)


class World:
    """One callable jitted one way, with its own parameters (equal in both worlds) and optimizer."""

    def __init__(self, kind, fastpath, cache, device):
        torch.manual_seed(0)
        self.kind = kind
        if kind == "mlp":
            self.model = MLP().to(device)
            self.params = list(self.model.parameters())
            jitted = thunder.jit(self.model, fastpath=fastpath, cache=cache)
            self.forward = jitted
        else:
            w = torch.randn(4, 8, device=device, requires_grad=True)
            b = torch.randn(8, device=device, requires_grad=True)
            self.params = [w, b] if kind == "affine_tanh" else [w]
            fn = affine_tanh if kind == "affine_tanh" else two_outputs
            jitted = thunder.jit(fn, fastpath=fastpath, cache=cache)
            self.forward = lambda x: jitted(x, *self.params)
        self.jitted = jitted
        self.optimizer = torch.optim.SGD(self.params, lr=0.1, momentum=0.9)
        self.device = device


def data(seed, batch, device):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, 4, generator=g).to(device)


def loss_of(out, only_first=False):
    outs = out if isinstance(out, tuple) else (out,)
    if only_first:
        outs = outs[:1]
    return sum(o.square().mean() for o in outs)


def grads(tensors):
    return [None if t.grad is None else t.grad.clone() for t in tensors]


# Each step gets the world, a seed for its data and a batch size, and returns what it wants compared.
def train(w, seed, batch, set_to_none=True):
    loss = loss_of(w.forward(data(seed, batch, w.device)))
    loss.backward()
    seen = grads(w.params)
    w.optimizer.step()
    w.optimizer.zero_grad(set_to_none=set_to_none)
    return loss, seen


def train_zeroing(w, seed, batch):
    return train(w, seed, batch, set_to_none=False)


def accumulate(w, seed, batch):
    loss = loss_of(w.forward(data(seed, batch, w.device)))
    loss.backward()
    return loss


def optimizer_step(w, seed, batch):
    w.optimizer.step()
    w.optimizer.zero_grad()


def no_grad_forward(w, seed, batch):
    with torch.no_grad():
        return w.forward(data(seed, batch, w.device))


def inference_forward(w, seed, batch):
    with torch.inference_mode():
        return w.forward(data(seed, batch, w.device))


def forward_only(w, seed, batch):
    return w.forward(data(seed, batch, w.device))  # under grad mode, no backward: the graph is dropped


def input_grad(w, seed, batch):
    x = data(seed, batch, w.device).requires_grad_()
    loss = loss_of(w.forward(x))
    wanted = [x] + [p for p in w.params if p.requires_grad]
    return loss, torch.autograd.grad(loss, wanted, allow_unused=True)


def retained_backward_twice(w, seed, batch):
    loss = loss_of(w.forward(data(seed, batch, w.device)))
    loss.backward(retain_graph=True)
    loss.backward()
    return loss


def two_forwards_one_backward(w, seed, batch):
    first = loss_of(w.forward(data(seed, batch, w.device)))
    second = loss_of(w.forward(data(seed + 1, batch + 1, w.device)))
    (first + 2 * second).backward()
    return first, second


def non_leaf_input(w, seed, batch):
    x0 = data(seed, batch, w.device).requires_grad_()
    loss = loss_of(w.forward(x0 * 2 + 1))
    loss.backward()
    return loss, x0.grad


def first_output_only(w, seed, batch):
    loss = loss_of(w.forward(data(seed, batch, w.device)), only_first=True)
    loss.backward()
    return loss


def freeze_first(w, seed, batch):
    w.params[0].requires_grad_(False)


def unfreeze_first(w, seed, batch):
    w.params[0].requires_grad_(True)


def eval_mode(w, seed, batch):
    if w.kind == "mlp":
        w.model.eval()


def train_mode(w, seed, batch):
    if w.kind == "mlp":
        w.model.train()


STEPS = [
    train,
    train_zeroing,
    accumulate,
    optimizer_step,
    no_grad_forward,
    inference_forward,
    forward_only,
    input_grad,
    retained_backward_twice,
    two_forwards_one_backward,
    non_leaf_input,
    first_output_only,
    freeze_first,
    unfreeze_first,
    eval_mode,
    train_mode,
]


def run_step(w, step, seed, batch):
    torch.manual_seed(seed)  # dropout draws the same numbers in both worlds
    try:
        result = step(w, seed, batch)
    except Exception as e:
        return ("raised", type(e).__name__)
    leaves = [x for x in torch.utils._pytree.tree_leaves(result) if isinstance(x, torch.Tensor)]
    return ("returned", [(x.detach().clone(), x.requires_grad, type(x.grad_fn).__name__) for x in leaves])


def same_tensor(a, b):
    if a is None or b is None:
        return a is b
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def same(a, b):
    if a[0] != b[0] or a[0] == "raised":
        return a == b
    pairs = zip(a[1], b[1], strict=False)
    return len(a[1]) == len(b[1]) and all(same_tensor(x[0], y[0]) and x[1:] == y[1:] for x, y in pairs)


def same_parameters(up, fast):
    return all(
        same_tensor(p, q) and same_tensor(p.grad, q.grad) and p.requires_grad == q.requires_grad
        for p, q in zip(up.params, fast.params, strict=False)
    )


def counts(f):
    return thunder.cache_hits(f), thunder.cache_misses(f)


def fast_state(jitted):
    return fastpath_state(jitted)


class CallWatch:
    """Wraps the fast world's forward to count, call by call, hits served by the guards and hits that upstream's
    path served although their entry had a guard."""

    def __init__(self, world):
        self.world, self.forward = world, world.forward
        self.state = fast_state(world.jitted)
        self.served, self.too_strict = 0, 0
        world.forward = self

    def __call__(self, x):
        guarded_before = {id(hit.entry) for hit in self.state.hits}
        hits_before = thunder.cache_hits(self.world.jitted)
        out = self.forward(x)
        if thunder.cache_hits(self.world.jitted) > hits_before:
            if self.state.published is not None:
                self.served += 1
            elif id(entry_used_last(thunder.compile_stats(self.world.jitted))) in guarded_before:
                self.too_strict += 1
        return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sequences", type=int, default=200)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default="constant values", help="thunder.jit's cache option")
    parser.add_argument("--device", default="cpu", help="where the tensors live (cuda: nvFuser's regions too)")
    parser.add_argument("--only", default=None, help="comma-separated kinds: mlp, affine_tanh, two_outputs")
    opts = parser.parse_args()
    warnings.filterwarnings("ignore")
    rng = random.Random(opts.seed)
    total = 0
    for kind in ("mlp", "affine_tanh", "two_outputs"):
        if opts.only and kind not in opts.only.split(","):
            continue
        differences, steps_run, served, too_strict, guarded = 0, 0, 0, 0, 0
        unsupported = set()
        for number in range(opts.sequences):
            seq = [rng.randrange(len(STEPS)) for _ in range(opts.steps)]
            batches = [rng.choice((3, 3, 3, 5)) for _ in seq]
            up = World(kind, False, opts.cache, opts.device)
            fast = World(kind, True, opts.cache, opts.device)
            watch = CallWatch(fast)
            for i, (index, batch) in enumerate(zip(seq, batches, strict=False)):
                seed = 1000 * number + i
                a = run_step(up, STEPS[index], seed, batch)
                b = run_step(fast, STEPS[index], seed, batch)
                steps_run += 1
                if not (same(a, b) and same_parameters(up, fast) and counts(up.jitted) == counts(fast.jitted)):
                    differences += 1
                    names = [STEPS[j].__name__ for j in seq]
                    print(
                        f"  {kind} sequence {number} {names}: step {i} ({STEPS[index].__name__}, batch {batch}) "
                        f"differs: {a[0]} {b[0]}, parameters same: {same_parameters(up, fast)}, "
                        f"counts {counts(up.jitted)} {counts(fast.jitted)}"
                    )
                    break
            served += watch.served
            too_strict += watch.too_strict
            guarded += len(watch.state.hits)
            unsupported.update(watch.state.unsupported)
        total += opts.sequences
        print(
            f"{kind}: {opts.sequences} sequences, {steps_run} steps, {differences} with a difference; "
            f"{served} calls served by the guards, {too_strict} hits served by upstream's path although their "
            f"entry had a guard; {guarded} guarded entries at the ends; kept upstream's path: "
            f"{sorted(unsupported) or 'none'}"
        )
    print(f"{total} sequences in all (cache={opts.cache!r}, seed {opts.seed}, device {opts.device})")


if __name__ == "__main__":
    main()
