"""Hugging Face models through ThunderFX: inference and a training step, beside eager and torch.compile.

    python thunder/benchmarks/hf_models.py [--device cpu|cuda] [--cases gpt2,llama] [--modes inference,train_step]
                                           [--quick] [--repeats N] [--json PATH [--update]]

Needs ``transformers``; the models are built from configs, nothing is downloaded. ThunderFX
(``thunder.dynamo.thunderfx``) is Thunder's route for these models: Dynamo captures and splits the graphs, and
``thunder.jit`` compiles the regions that Thunder supports. Each case is a small model (2 layers, width 128 or 256),
where the host's cost per call decides, in two modes:

* ``inference``: one call at batch 1 x 16 tokens under ``torch.no_grad()`` (the logits);
* ``train_step``: the loss at batch 4 x 16 tokens (labels = inputs), ``backward``, ``torch.optim.AdamW``'s step
  (run eagerly by every system) and ``zero_grad(set_to_none=True)``. Dropout is off, so that every system computes
  the same function.

The systems, each on its own copy of the model: eager, ``torch.compile`` (default), ThunderFX without the fast path
(``fastpath=False``) and ThunderFX. A system that fails on a case is reported with its error. Per case, the systems are
timed interleaved, repeat by repeat, medians in µs; ``regions`` is the number of Thunder and inductor regions of
ThunderFX's split graphs.

``out``: for ``thunderfx``, '=' where its logits, or for a training step its parameters after the warm-up steps and
the losses of those steps, are bitwise equal to ThunderFX's without the fast path; '~' for the other systems where
they are close to eager's; '!' otherwise.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys

import torch

from thunder.benchmarks.small_graph import (
    bitwise_equal,
    calibrate,
    environment,
    flat_tensors,
    read_earlier_run,
    sampler,
    write_rows,
)

SYSTEMS = ("eager", "torch.compile", "thunderfx no fastpath", "thunderfx")
REFERENCE_OF = {"thunderfx": "thunderfx no fastpath"}
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
    return thunderfx(model, fastpath=system == "thunderfx")


def regions(fn) -> str:
    """ThunderFX's regions: Thunder's and inductor's, over all the graphs that Dynamo captured."""
    infos = fn._backend.subgraph_infos
    names = [name for info in infos for name, _ in info.split_graph_module.named_children()]
    thunder, inductor = (sum(n.startswith(prefix) for n in names) for prefix in ("thunder_", "inductor_"))
    return f"{thunder} thunder, {inductor} inductor"


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


def close_enough(a, b) -> bool:
    # Compiled systems reorder float arithmetic: a training step's parameters move by lr-sized steps, so they are
    # compared loosely.
    fa, fb = flat_tensors(a), flat_tensors(b)
    return len(fa) == len(fb) and all(torch.allclose(x, y, rtol=1e-3, atol=1e-3) for x, y in zip(fa, fb, strict=True))


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
            failed[system] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    refs = {system: r.reference() for system, r in runners.items()}
    checks = {}
    for system in runners:
        if system in REFERENCE_OF:
            reference = REFERENCE_OF[system]
            checks[system] = "=" if reference in refs and bitwise_equal(refs[system], refs[reference]) else "!"
        elif system != "eager" and "eager" in refs:
            checks[system] = "~" if close_enough(refs[system], refs["eager"]) else "!"
    samplers = {s: sampler(r.step, calibrate(r.step, budget_s)) for s, r in runners.items()}
    samples = {s: [] for s in samplers}
    for _ in range(repeats):
        for s, sample in samplers.items():
            samples[s].append(sample())
    rows = []
    for system in SYSTEMS:
        row = {"case": case, "mode": mode, "system": system}
        if system in failed:
            row["failed"] = failed[system]
        else:
            s = samples[system]
            row |= {"median_us": statistics.median(s), "min_us": min(s), "max_us": max(s), "samples_us": s}
            row["check"] = checks.get(system, "")
            if system.startswith("thunderfx"):
                row["regions"] = regions(runners[system].fn)
        rows.append(row)
    return rows


def print_rows(rows: list[dict]) -> None:
    print(f"\n{'case':<6} {'mode':<11} {'system':<22} {'median µs':>11} {'min':>10} {'max':>10}  out  regions")
    for r in rows:
        if "failed" in r:
            print(f"{r['case']:<6} {r['mode']:<11} {r['system']:<22} fails: {r['failed']}")
        else:
            print(
                f"{r['case']:<6} {r['mode']:<11} {r['system']:<22} {r['median_us']:>11.1f} {r['min_us']:>10.1f}"
                f" {r['max_us']:>10.1f}  {r['check']:<3}  {r.get('regions', '')}"
            )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cpu", "cuda"))
    parser.add_argument("--cases", default="gpt2,llama")
    parser.add_argument("--modes", default="inference,train_step")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--json", metavar="PATH", help="written after each case and mode")
    parser.add_argument("--update", action="store_true", help="replace only the rows of this run's cases and modes")
    args = parser.parse_args(argv)
    repeats = args.repeats or (5 if args.quick else 9)
    budget_s = 0.1 if args.quick else 0.3
    import transformers

    env = {**environment(args.device, None), "transformers": transformers.__version__}
    del env["thunder_main"]
    print(" | ".join(f"{k} {v}" for k, v in env.items()))
    earlier = read_earlier_run(args.json, env) if args.json and args.update else None
    rows = []
    for case in args.cases.split(","):
        for mode in args.modes.split(","):
            rows += run_case(case, mode, args.device, repeats, budget_s)
            print_rows([r for r in rows if (r["case"], r["mode"]) == (case, mode)])
            if args.json:
                # With --update, the rows of the cases and modes run here replace the earlier run's
                write_rows(args.json, env, rows, earlier, key=lambda r: (r["case"], r["mode"]), argv=argv)
    # ThunderFX slower than without the fast path beyond the spread, or with other outputs, fails the run.
    by = {(r["case"], r["mode"], r["system"]): r for r in rows}
    bad = []
    for (case, mode, system), r in by.items():
        ref = by.get((case, mode, REFERENCE_OF.get(system)))
        if ref is None or "failed" in r or "failed" in ref:
            continue
        if r["check"] != "=" or r["min_us"] > ref["max_us"]:
            bad.append(f"{case} {mode} {system}")
    print("\nthunderfx slower than without the fast path beyond the spread, or outputs not bitwise equal:", end=" ")
    print(", ".join(bad) or "none")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
