"""Per-call time of small language models in inference: eager, upstream thunder.jit and the fast path side by side.

    python thunder/benchmarks/small_models.py [--device cpu|cuda] [--cases a,b] [--quick] [--json PATH [--update]]
                                              [--autocast]

small_graph.py times single ops and tiny graphs, where the host overhead is the whole story. This script answers
what the fast path changes for a whole model: the two language models that lightning-thunder's own tests ship
(``thunder.tests.llama2_model`` and ``thunder.tests.nanogpt_model``), scaled down, in eval mode under
``torch.no_grad()``, batch 1, for one token (a decoding step without a KV cache, where kernels are small and the
host decides the time) and for 32 tokens. Thunder runs with its default executors (nvFuser on CUDA). With
``--autocast``, every call runs under ``torch.autocast`` with bfloat16 (float32 weights, as in mixed-precision
inference).

The systems, the interleaved timing and the output marks are small_graph.py's (its ``run_cases``): eager, thunder
(upstream, ``fastpath=False``), fast, and computation (the fast callable's cache entry called directly).
"""

from __future__ import annotations

import argparse
import sys

import torch

import small_graph
from small_graph import Case

# Small enough for a 2-core CPU; the parameter counts (38 and 52 tensors) are those of the
# scaled-down models, whose guards check every parameter.
LLAMA2 = dict(dim=256, n_layers=4, n_heads=4, vocab_size=512, max_seq_len=64)
NANOGPT = dict(n_layer=4, n_head=4, n_embd=256, block_size=64, vocab_size=512, dropout=0.0)


def make_cases(device: str, autocast: torch.dtype | None = None) -> list[Case]:
    from thunder.tests import llama2_model, nanogpt_model

    models = {
        "llama2": llama2_model.Transformer(llama2_model.ModelArgs(**LLAMA2)),
        "nanogpt": nanogpt_model.GPT(nanogpt_model.GPTConfig(**NANOGPT)),
    }
    cases = []
    for name, model in models.items():
        model = model.to(device).eval()
        n_params = len(list(model.parameters()))
        for tokens in (1, 32):
            idx = torch.randint(0, 512, (1, tokens), device=device)
            label = f"{name}_{tokens}tok" + ("_autocast" if autocast else "")
            cases.append(
                Case(label, model, (idx,), inference=True, autocast=autocast, count=n_params, kind="parameters")
            )
    return cases


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu", choices=("cpu", "cuda"))
    parser.add_argument("--cases", default="", help="comma-separated case names or prefixes (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--update", action="store_true", help="replace only the cases run here in --json's file")
    parser.add_argument("--autocast", action="store_true", help="run every call under torch.autocast (bfloat16)")
    args = parser.parse_args(argv)
    repeats = args.repeats or (5 if args.quick else 15)
    budget_s = 0.05 if args.quick else 0.2  # per repeat and system: model calls take milliseconds on the CPU
    torch.manual_seed(0)
    cases = small_graph.select_cases(make_cases(args.device, torch.bfloat16 if args.autocast else None), args.cases)
    rows = small_graph.run_cases(cases, args.device, repeats, budget_s, args.json, update=args.update)
    return small_graph.exit_status(rows)


if __name__ == "__main__":
    sys.exit(main())
