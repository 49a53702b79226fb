"""Per-step time of data-parallel training: eager PyTorch, upstream Thunder and the fast path, on every rank.

    torchrun --nproc-per-node 2 thunder/benchmarks/distributed_training.py [--device cpu|cuda] [--modes ddp,...]
                                                                          [--config tiny|scaled|shakespeare]
                                                                          [--quick] [--json PATH]
    python thunder/benchmarks/distributed_training.py ...      (one process: the same steps without a peer, for scale)

Modes: ``ddp`` (``thunder.distributed.ddp``; eager: ``torch.nn.parallel.DistributedDataParallel``), ``fsdp_zero2``
and ``fsdp_zero3`` (``thunder.distributed.fsdp`` with ``FSDPType.ZERO2`` / ``ZERO3``; eager: PyTorch's FSDP with
``SHARD_GRAD_OP`` / ``FULL_SHARD``, on CUDA only). The backend is NCCL on CUDA and gloo on the CPU. The model is
lightning-thunder's nanoGPT (``--config``: ``tiny`` for the CPU, ``scaled`` the 4-layer width-256 one of
small_models.py, ``shakespeare`` nanoGPT's shakespeare-char configuration), batch ``--batch`` x ``--tokens``; a step is
the loss from a forward with targets, its backward, AdamW (fused on CUDA, foreach on the CPU) and
``zero_grad(set_to_none=True)``.

Each system is built from one initialization on every rank. After a warm-up, every system is timed ``--rounds`` times
(at least two) in rotating order (``training_steps.py``'s protocol: blocks of steps, each ended by a barrier, and a
CUDA synchronization on CUDA). Rank 0 prints each rank's timings, the mark '=' where the fast path's parameters after
the warm-up are bitwise equal to upstream's (as the unsharded model holds them), and how many of the fast callable's
timed calls its guards served there.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys

import torch
import torch.distributed as tdist

import thunder
import thunder.fastpath

import small_graph
from training_steps import time_rounds

CONFIGS = {
    "tiny": dict(n_layer=2, n_head=2, n_embd=32, block_size=32, vocab_size=65, dropout=0.0, bias=False),
    "scaled": dict(n_layer=4, n_head=4, n_embd=256, block_size=64, vocab_size=512, dropout=0.0),
    "shakespeare": dict(n_layer=6, n_head=6, n_embd=384, block_size=256, vocab_size=65, dropout=0.0, bias=False),
}


def rank() -> int:
    return tdist.get_rank() if tdist.is_initialized() else 0


def world_size() -> int:
    return tdist.get_world_size() if tdist.is_initialized() else 1


def make_system(name: str, mode: str, model, device):
    """(callable, parameters to optimize) of one system."""
    if name == "eager":
        if world_size() == 1:
            return model, list(model.parameters())
        if mode == "ddp":
            ddp = torch.nn.parallel.DistributedDataParallel(
                model, device_ids=[device] if device.type == "cuda" else None
            )
            return ddp, list(ddp.parameters())
        from torch.distributed.fsdp import FullyShardedDataParallel, ShardingStrategy

        strategy = ShardingStrategy.SHARD_GRAD_OP if mode == "fsdp_zero2" else ShardingStrategy.FULL_SHARD
        sharded = FullyShardedDataParallel(model, sharding_strategy=strategy, device_id=device, use_orig_params=True)
        return sharded, list(sharded.parameters())
    jitted = thunder.jit(model, fastpath=name == "fast")
    if world_size() > 1:
        from thunder.distributed import FSDPType, ddp, fsdp

        if mode == "ddp":
            jitted = ddp(jitted)
        else:
            strategy = FSDPType.ZERO2 if mode == "fsdp_zero2" else FSDPType.ZERO3
            jitted = fsdp(jitted, device=device, sharding_strategy=strategy)
    return jitted, list(jitted.parameters())


class System:
    def __init__(self, name, mode, model, device, idx, targets):
        self.name, self.idx, self.targets = name, idx, targets
        self.callable, params = make_system(name, mode, model, device)
        options = {"fused": True} if device.type == "cuda" else {"foreach": True}
        self.optimizer = torch.optim.AdamW(params, lr=1e-3, **options)

    def step(self):
        loss = self.callable(self.idx, self.targets)[1]
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss


def build(mode, device, args) -> dict[str, System]:
    from thunder.tests import nanogpt_model

    config = nanogpt_model.GPTConfig(**CONFIGS[args.config])
    torch.manual_seed(0)  # one initialization on every rank
    model = nanogpt_model.GPT(config).to(device)
    generator = torch.Generator().manual_seed(1 + rank())  # each rank its own batch
    idx = torch.randint(0, config.vocab_size, (args.batch, args.tokens), generator=generator).to(device)
    targets = torch.randint(0, config.vocab_size, (args.batch, args.tokens), generator=generator).to(device)
    names = ["thunder", "fast"]
    if device.type == "cuda" or mode == "ddp" or world_size() == 1:
        names.insert(0, "eager")  # PyTorch's FSDP runs on CUDA
    systems = {}
    for name in names:
        torch.manual_seed(0)  # FSDP materializes each shard from the module's own init, which draws from this seed
        systems[name] = System(name, mode, copy.deepcopy(model), device, idx, targets)
    return systems


def same_parameters(a: System, b: System) -> bool:
    """Whether two Thunder systems hold the same parameters: as the unsharded model has them (``original_state_dict``,
    a collective under FSDP; a shard's padding holds whatever memory it was given)."""
    sa, sb = a.callable.original_state_dict(), b.callable.original_state_dict()
    return sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)


def barrier(sync) -> None:
    sync()
    if tdist.is_initialized():
        tdist.barrier()


def run_mode(mode, device, args, sync) -> dict:
    systems = build(mode, device, args)
    for _ in range(args.warm_up):
        for system in systems.values():
            system.step()
    barrier(sync)
    mark = "=" if same_parameters(systems["thunder"], systems["fast"]) else "!"
    before = thunder.fastpath.stats(systems["fast"].callable)
    # training_steps.py's protocol, each block between barriers of all ranks
    timings, _, _ = time_rounds(systems, args.rounds, args.blocks, args.steps, lambda: barrier(sync), False)
    after = thunder.fastpath.stats(systems["fast"].callable)
    return {
        "rank": rank(),
        "mode": mode,
        "timings_us": timings,
        "check": mark,
        "fast_calls_while_timed": after.calls - before.calls,
        "fast_served_while_timed": after.served_by_guards - before.served_by_guards,
    }


def print_results(results: list[dict]) -> None:
    rounds = len(next(iter(results[0]["timings_us"].values())))
    heads = "".join(f"{f'timing {i + 1}':>12}" for i in range(rounds))
    print(f"{'mode':<12} {'rank':>4} {'system':<8}{heads} {'/eager':>7} {'/thunder':>9}  out")
    for r in results:
        timings = r["timings_us"]
        best = {name: statistics.median(t) for name, t in timings.items()}
        for name, t in timings.items():
            vs_eager = f"{best[name] / best['eager']:7.2f}" if "eager" in best else f"{'-':>7}"
            out = r["check"] if name == "fast" else ""
            cells = "".join(f"{x:>12.1f}" for x in t)
            ratio = best[name] / best["thunder"]
            print(f"{r['mode']:<12} {r['rank']:>4} {name:<8}{cells} {vs_eager} {ratio:>9.3f}  {out}")
        print(
            f"{'':<12} {r['rank']:>4} fast path: {r['fast_served_while_timed']} of {r['fast_calls_while_timed']}"
            " timed calls served by its guards"
        )
    print(
        "\nµs per step; ratios of the timings' medians. out: '=' the fast path's parameters after the warm-up"
        " bitwise equal to upstream's on that rank"
    )
    slower = [
        f"  {r['mode']} rank {r['rank']}: fast {min(r['timings_us']['fast']):.1f} > upstream"
        f" {max(r['timings_us']['thunder']):.1f}"
        for r in results
        if min(r["timings_us"]["fast"]) > max(r["timings_us"]["thunder"])
    ]
    print("\nfast slower than upstream beyond the spread:", *(slower or ["  none"]), sep="\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cpu", "cuda"))
    parser.add_argument("--modes", default="ddp,fsdp_zero2,fsdp_zero3")
    parser.add_argument("--config", default=None, choices=sorted(CONFIGS), help="default: tiny on the CPU, else scaled")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=None, help="default: the configuration's block size")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--blocks", type=int, default=None)
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--warm-up", type=int, default=3)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    args.config = args.config or ("tiny" if args.device == "cpu" else "scaled")
    args.rounds = max(args.rounds, 2)
    args.tokens = args.tokens or CONFIGS[args.config]["block_size"]
    args.blocks = args.blocks or (2 if args.quick else 5)
    args.steps = args.steps or (2 if args.quick else 10)
    if "WORLD_SIZE" in os.environ:
        local_rank = int(os.environ["LOCAL_RANK"])
        if args.device == "cuda":
            torch.cuda.set_device(local_rank)
        tdist.init_process_group(backend="nccl" if args.device == "cuda" else "gloo")
    device = torch.device("cuda", torch.cuda.current_device()) if args.device == "cuda" else torch.device("cpu")
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    modes = args.modes.split(",") if world_size() > 1 else ["single"]
    results = [run_mode(mode, device, args, sync) for mode in modes]
    gathered = [None] * world_size()
    if tdist.is_initialized():
        tdist.all_gather_object(gathered, results)
    else:
        gathered = [results]
    status = 0
    if rank() == 0:
        flat = sorted((r for per_rank in gathered for r in per_rank), key=lambda r: (modes.index(r["mode"]), r["rank"]))
        print(
            f"{world_size()} process(es), {args.device}, nanoGPT {args.config}, batch {args.batch} x {args.tokens}",
            flush=True,
        )
        print_results(flat)
        status = 1 if any(r["check"] != "=" for r in flat) else 0
        if args.json:
            env = {**small_graph.environment(args.device), "world_size": world_size()}
            with open(args.json, "w") as f:
                json.dump(
                    {"environment": env, "argv": sys.argv[1:] if argv is None else argv, "rows": flat}, f, indent=1
                )
    if tdist.is_initialized():
        tdist.destroy_process_group()
    return status


if __name__ == "__main__":
    sys.exit(main())
