"""Where one training step of the fast path spends its time, stage by stage (µs per call, medians over repeats).

    python thunder/benchmarks/training_breakdown.py [--device cpu|cuda] [--cases train_step,nanogpt_4x64]
                                                    [--number N] [--repeats R]

Cases: small_graph.py's ``train_step`` (``tanh(x @ w).sum()``, ``w`` requiring grad) and training_steps.py's
``nanogpt_4x64`` (the scaled-down nanoGPT with its loss; its AdamW step is timed for scale). The pieces, interleaved
repeat by repeat: the whole step (forward and ``backward()``) of eager, upstream and the fast path; the fast path's
forward hit alone; its stages (NOTE "The stages of a hit" in hit_function.py): the guard, the computation with grad mode
off, the autograd connection (the two autograd Functions applied); the compiled backward called directly (as
``ThunderFunction.backward`` calls it, grad mode off), and on CUDA the host time of its nvFuser region calls inside it.
Derived: what the autograd engine's part of the backward costs (the step less the forward hit and the compiled
backward): its two Python nodes (``ThunderOutputFunction``'s and ``ThunderFunction``'s backward), ``backward()``'s
own Python, the gradients' accumulation into ``.grad``; and the code that Thunder generated, the computation and the
compiled backward called directly, against eager's step: a hit runs that code unchanged, so its time is the floor of
any hit that keeps upstream's results. For scale, the floor of upstream's split autograd: the same
computation and the same two-Function structure (a meta link tensor, a side channel) with Python forwards and
backwards that do nothing else, the backward returning precomputed gradients.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time

import torch

import thunder
from thunder.fastpath.explain import fastpath_state
from thunder.fastpath.nvfuser import FusionRegion

import hit_breakdown
import small_graph
import training_steps


def train_step_case(device):
    case = next(c for c in small_graph.make_cases(device) if c.name == "train_step")
    return case.fn, case.args, None


def nanogpt_case(device):
    case = next(c for c in training_steps.make_cases() if c.name == "nanogpt_4x64")
    torch.manual_seed(0)
    model = case.make_model().to(device).train()
    idx = torch.randint(0, case.vocab, (case.batch, case.tokens), device=device)
    targets = torch.randint(0, case.vocab, (case.batch, case.tokens), device=device)
    return model, (idx, targets), model


CASES = {"train_step": train_step_case, "nanogpt_4x64": nanogpt_case}


class RegionTimer:
    """Wraps the FusionRegions that a compiled backward calls (in its globals) and sums their host time."""

    def __init__(self, fn):
        self.total, self.calls = 0.0, 0
        namespace = fn.__globals__
        self.regions = {k: v for k, v in namespace.items() if isinstance(v, FusionRegion)}
        for name, region in self.regions.items():
            namespace[name] = self.timed(region)

    def timed(self, region):
        def call(*args):
            start = time.perf_counter()
            try:
                return region(*args)
            finally:
                self.total += time.perf_counter() - start
                self.calls += 1

        return call


class _Link(torch.autograd.Function):
    """Stands for ThunderFunction in the split-autograd floor: a meta link; its backward returns given gradients."""

    @staticmethod
    def forward(ctx, side_channel, grads, *args):
        ctx.grads = grads
        return torch.empty(1, device="meta", requires_grad=True)

    @staticmethod
    def backward(ctx, link_grad):
        return None, None, *ctx.grads


class _Outputs(torch.autograd.Function):
    """Stands for ThunderOutputFunction in the split-autograd floor."""

    @staticmethod
    def forward(ctx, link, side_channel, *args):
        ctx.n = len(args)
        return side_channel.pop("outputs")

    @staticmethod
    def backward(ctx, *grads):
        return torch.empty(1, device="meta"), None, *([None] * ctx.n)


def split_autograd_floor(computation, args):
    """A step of the split structure alone: the computation with grad mode off, the two Functions, backward()."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    grads = [torch.zeros_like(a) if a.requires_grad else None for a in tensors]

    def step():
        result = computation()
        side_channel = {"outputs": result[0]["output"][0]}
        link = _Link.apply(side_channel, grads, *tensors)
        _Outputs.apply(link, side_channel, *tensors).backward()

    return step


def pieces_of(name, device):
    fn, args, module = CASES[name](device)
    systems = {
        "eager": copy.deepcopy(fn),
        "thunder": thunder.jit(copy.deepcopy(fn), fastpath=False),
        "fast": thunder.jit(copy.deepcopy(fn), fastpath=True),
    }
    for f in systems.values():
        for _ in range(3):
            f(*args).backward()
    fast = systems["fast"]
    state = fastpath_state(fast)
    hit = state.hits[0]
    inputs, _ = hit.guard.check(args, {})
    set_grad = torch._C._set_grad_enabled

    def computation():
        set_grad(False)
        try:
            return hit.computation(*inputs)
        finally:
            set_grad(True)

    result = computation()
    (loss,) = result[0]["output"]
    saved, other = result[1]
    cotangents = [torch.ones_like(loss)]
    backward = hit.connection.backward.bare

    def compiled_backward():
        set_grad(False)
        try:
            return backward([list(saved), list(other)], list(cotangents))
        finally:
            set_grad(True)

    pieces = {f"{system} step": (lambda f=f: f(*args).backward()) for system, f in systems.items()}
    pieces["fast forward (hit)"] = lambda: fast(*args)
    pieces["  guard"] = lambda: hit.guard.check(args, {})
    pieces["  computation (grad mode off)"] = computation
    pieces["  autograd connection"] = lambda: hit.connection(result)
    pieces["compiled backward (called directly)"] = compiled_backward
    if module is None:  # its arguments are the tensors that require grad
        pieces["split-autograd floor (trivial Python)"] = split_autograd_floor(computation, args)
    if module is not None:
        optimizer = torch.optim.AdamW(module.parameters(), lr=1e-3, **({"fused": True} if device == "cuda" else {}))
        module(*args).backward()
        pieces["AdamW step (for scale)"] = optimizer.step
    return pieces, backward, compiled_backward


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cpu", "cuda"))
    parser.add_argument("--cases", default="train_step,nanogpt_4x64")
    parser.add_argument("--number", type=int, default=None, help="calls per sample (default: 2000 / 20)")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    env = small_graph.environment(args.device)
    print(" | ".join(f"{k} {v}" for k, v in env.items()))
    results = {}
    for name in args.cases.split(","):
        number = args.number or (2000 if name == "train_step" else 20)
        pieces, backward, compiled_backward = pieces_of(name, args.device)
        samples = hit_breakdown.time_interleaved(pieces, number, args.repeats, sync)
        median = {piece: statistics.median(s) for piece, s in samples.items()}
        print(f"== {name} ({args.device}, {number} calls x {args.repeats} repeats, medians)")
        for piece, us in median.items():
            print(f"{piece:<40} {us:10.2f} us")
        engine = median["fast step"] - median["fast forward (hit)"] - median["compiled backward (called directly)"]
        generated = median["  computation (grad mode off)"] + median["compiled backward (called directly)"]
        derived = {
            "autograd engine part (derived)": engine,
            "generated code alone (derived)": generated,
            "generated code / eager step (ratio)": generated / median["eager step"],
        }
        for piece, value in derived.items():
            print(f"{piece:<40} {value:10.2f}{'' if piece.endswith('(ratio)') else ' us'}")
        median.update(derived)
        results[name] = median
        if args.device == "cuda":
            timer = RegionTimer(backward)
            for _ in range(number):
                compiled_backward()
            sync()
            if timer.calls:
                per_call = timer.total / number * 1e6
                print(
                    f"{'  its nvFuser regions (host time)':<40} {per_call:10.2f} us"
                    f" ({timer.calls // number} region calls per backward)"
                )
                median["  its nvFuser regions (host time)"] = per_call
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": env, "argv": sys.argv[1:], "cases": results}, f, indent=1)


if __name__ == "__main__":
    main()
