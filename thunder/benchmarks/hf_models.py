"""Hugging Face models through ThunderFX: inference and a training step, beside eager, torch.compile and thunder.jit.

    python thunder/benchmarks/hf_models.py [--device cpu|cuda] [--cases gpt2,llama] [--modes inference,train_step]
                                           [--quick] [--json PATH]

Needs ``transformers`` (``requirements/benchmarks.txt``); the models are built from configs, nothing is downloaded.
``thunder.jit`` does not trace these models (its interpreter fails inside transformers' code); ThunderFX
(``thunder.dynamo.thunderfx``) is the route for them: Dynamo captures and splits the graphs, ``thunder.jit`` compiles
the parts it supports. Each case is a small model (2 layers, width 128 or 256), where the host's cost per call
decides, in two modes:

* ``inference``: one call at batch 1 x 16 tokens under ``torch.no_grad()`` (the logits);
* ``train_step``: the loss at batch 4 x 16 tokens (labels = inputs), ``backward``, ``torch.optim.AdamW``'s step
  (run eagerly by every system) and ``zero_grad(set_to_none=True)``. Dropout is off, so that every system computes
  the same function.

The systems, each on its own copy of the model: eager, ``torch.compile`` (default), ``thunder.jit`` without and with
the fast path, ThunderFX without and with it. A system that fails on a case is reported with its error and skipped.
Per case, the systems are timed interleaved, repeat by repeat (small_graph.py's ``time_by_budget``), medians in µs.

``out``: for ``thunderfx fast`` (and ``thunder.jit fast``), '=' where its logits, or for a training step its parameters
after the warm-up steps and the losses of those steps, are bitwise equal to the same system without the fast path;
'~' for the other systems where they are close to eager's; '!' otherwise.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys

import torch

import thunder
import thunder.fastpath  # noqa: F401  (on lightning-thunder 0.2.6, installs the fast path; each system below chooses)

import small_graph

SYSTEMS = (
    "eager",
    "torch.compile",
    "thunder.jit upstream",
    "thunder.jit fast",
    "thunderfx upstream",
    "thunderfx fast",
)
UPSTREAM_OF = {"thunder.jit fast": "thunder.jit upstream", "thunderfx fast": "thunderfx upstream"}
TOKENS = 16
BATCH = {"inference": 1, "train_step": 4}
VOCAB = 512
WARM_UP_STEPS = 3


def make_model(case: str) -> torch.nn.Module:
    import transformers

    if case == "gpt2":
        config = transformers.GPT2Config(
            n_layer=2, n_embd=128, n_head=4, vocab_size=VOCAB, n_positions=64, bos_token_id=0, eos_token_id=0,
            resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, attn_implementation="eager",
        )  # fmt: skip
        return transformers.GPT2LMHeadModel(config)
    if case == "llama":
        config = transformers.LlamaConfig(
            num_hidden_layers=2, hidden_size=256, intermediate_size=512, num_attention_heads=4,
            num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=64, attn_implementation="eager",
        )  # fmt: skip
        return transformers.LlamaForCausalLM(config)
    raise ValueError(f"unknown case {case!r}")


def compiled(system: str, model: torch.nn.Module):
    from thunder.dynamo import thunderfx

    if system == "eager":
        return model
    if system == "torch.compile":
        return torch.compile(model)
    kind, path = system.split()
    fastpath = path == "fast"
    return thunder.jit(model, fastpath=fastpath) if kind == "thunder.jit" else thunderfx(model, fastpath=fastpath)


class Runner:
    """One system on its own copy of the model: ``step()`` makes one call (inference) or one training step."""

    def __init__(self, system: str, base: torch.nn.Module, mode: str, idx: torch.Tensor):
        self.model = copy.deepcopy(base).train(mode == "train_step")
        self.fn, self.mode, self.idx = compiled(system, self.model), mode, idx
        self.losses = []
        if mode == "train_step":
            self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)

    def step(self):
        if self.mode == "inference":
            with torch.no_grad():
                return self.fn(self.idx).logits
        loss = self.fn(self.idx, labels=self.idx).loss
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss

    def reference(self):
        """What the checks compare: the logits, or the losses of the warm-up steps and the parameters after them."""
        if self.mode == "inference":
            return self.step()
        return [*self.losses, *(p.detach() for p in self.model.parameters())]


def run_case(case: str, mode: str, device: str, repeats: int, budget_s: float) -> list[dict]:
    torch.manual_seed(0)
    base = make_model(case).to(device)
    idx = torch.randint(0, VOCAB, (BATCH[mode], TOKENS), device=device)
    # Dynamo keeps its compiled entries on the models' code objects: each case starts afresh.
    torch._dynamo.reset()
    runners, failed = {}, {}
    for system in SYSTEMS:
        try:
            runner = Runner(system, base, mode, idx)
            for _ in range(WARM_UP_STEPS):
                out = runner.step()
                if mode == "train_step":
                    runner.losses.append(out.detach())
            runners[system] = runner
        except Exception as e:  # a system that cannot run the model is reported, not timed
            failed[system] = small_graph.error_line(e)
    refs = {system: r.reference() for system, r in runners.items()}
    checks = {}
    for system in runners:
        if system in UPSTREAM_OF:
            upstream = UPSTREAM_OF[system]
            checks[system] = (
                "=" if upstream in refs and small_graph.bitwise_equal(refs[system], refs[upstream]) else "!"
            )
        elif system != "eager" and "eager" in refs:
            checks[system] = "~" if close_enough(refs[system], refs["eager"]) else "!"
    samples = small_graph.time_by_budget({s: r.step for s, r in runners.items()}, repeats, budget_s)
    rows = []
    for system in SYSTEMS:
        row = {"case": case, "mode": mode, "system": system}
        if system in failed:
            row["failed"] = failed[system]
        else:
            s = samples[system]
            row |= {"median_us": statistics.median(s), "min_us": min(s), "max_us": max(s), "samples_us": s}
            row["check"] = checks.get(system, "")
        rows.append(row)
    return rows


def close_enough(a, b) -> bool:
    # Compiled systems reorder float arithmetic: a training step's parameters move by lr-sized steps, so they are
    # compared loosely.
    fa, fb = small_graph.flat_tensors(a), small_graph.flat_tensors(b)
    return len(fa) == len(fb) and all(torch.allclose(x, y, rtol=1e-3, atol=1e-3) for x, y in zip(fa, fb, strict=True))


def print_rows(rows: list[dict]) -> None:
    print(f"\n{'case':<8} {'mode':<11} {'system':<22} {'median µs':>11} {'min':>10} {'max':>10}  out")
    for r in rows:
        if "failed" in r:
            print(f"{r['case']:<8} {r['mode']:<11} {r['system']:<22} fails: {r['failed']}")
        else:
            print(
                f"{r['case']:<8} {r['mode']:<11} {r['system']:<22} {r['median_us']:>11.1f} {r['min_us']:>10.1f}"
                f" {r['max_us']:>10.1f}  {r['check']}"
            )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cpu", "cuda"))
    parser.add_argument("--cases", default="gpt2,llama")
    parser.add_argument("--modes", default="inference,train_step")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    repeats = args.repeats or (5 if args.quick else 9)
    budget_s = 0.1 if args.quick else 0.3
    import transformers

    env = {**small_graph.environment(args.device), "transformers": transformers.__version__}
    print(" | ".join(f"{k} {v}" for k, v in env.items()))
    rows = []
    for case in args.cases.split(","):
        for mode in args.modes.split(","):
            rows += run_case(case, mode, args.device, repeats, budget_s)
            print_rows([r for r in rows if (r["case"], r["mode"]) == (case, mode)])
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"argv": sys.argv[1:] if argv is None else argv, "environment": env, "rows": rows}, f, indent=1)
    # A fast system slower than its upstream counterpart beyond the spread, or whose outputs differ, fails the run.
    by = {(r["case"], r["mode"], r["system"]): r for r in rows}
    bad = []
    for (case, mode, system), r in by.items():
        up = by.get((case, mode, UPSTREAM_OF.get(system)))
        if up is None or "failed" in r or "failed" in up:
            continue
        if r["check"] != "=" or r["min_us"] > up["max_us"]:
            bad.append(f"{case} {mode} {system}")
    print("\nfast slower than upstream beyond the spread, or outputs not bitwise equal:", ", ".join(bad) or "none")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
