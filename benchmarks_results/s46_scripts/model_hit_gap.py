"""Session 46: on the H200 (call E), a one-token hit of small_models.py's LLaMA-2 cost 102-115 µs more than its
computation, and nanoGPT's 55 µs, where their guards take about 23 µs (session 42); session 44 left the rest
unexplained. Is it the hit path, or the guard's cost between torch calls? This CPU, the same models made so small
(width 16, vocabulary 32) that the host's Python decides the time. Pieces timed interleaved repeat by repeat (µs
per call, median and min): the whole call; the entry's hit function; its guard alone; the computation as
small_graph.py times it; and the guard followed by that computation (the two pieces of a hit, without the rest of
the hit function). With "cuda": the models at small_models.py's sizes (the ones timed in call E), synchronized
around each timed loop.

    python model_hit_gap.py [number] [repeats] [cpu|cuda]
"""
import os
import statistics
import sys
import timeit

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "thunder", "benchmarks"))
import small_graph  # noqa: E402
import small_models  # noqa: E402

import thunder  # noqa: E402
from thunder.tests import llama2_model, nanogpt_model  # noqa: E402

number = int(sys.argv[1]) if len(sys.argv) > 1 else 200
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 11
device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
torch.manual_seed(0)
if device == "cuda":
    models = {
        "llama2_1tok": llama2_model.Transformer(llama2_model.ModelArgs(**small_models.LLAMA2)),
        "nanogpt_1tok": nanogpt_model.GPT(nanogpt_model.GPTConfig(**small_models.NANOGPT)),
    }
    vocab = 512
else:
    models = {
        "llama2_tiny": llama2_model.Transformer(llama2_model.ModelArgs(dim=16, n_layers=4, n_heads=2, vocab_size=32,
                                                                       max_seq_len=8)),
        "nanogpt_tiny": nanogpt_model.GPT(nanogpt_model.GPTConfig(n_layer=4, n_head=2, n_embd=16, block_size=8,
                                                                  vocab_size=32, dropout=0.0)),
    }
    vocab = 32
for name, model in models.items():
    model = model.to(device).eval()
    idx = torch.randint(0, vocab, (1, 1), device=device)
    with torch.no_grad():
        jitted = thunder.jit(model, fastpath=True)
        for _ in range(3):
            jitted(idx)
        state = jitted._forward_fn._lc_fastpath_state
        hit = state.hits[0]
        args = (idx,)
        computation = small_graph.computation_only(jitted)(*args)

        def guard_then_computation():
            hit.guard.check(args, {})
            return computation()

        pieces = {
            "eager": lambda: model(idx),
            "whole call": lambda: jitted(idx),
            "hit function": lambda: hit.call(args, {}),
            "guard": lambda: hit.guard.check(args, {}),
            "computation": computation,
            "guard, then computation": guard_then_computation,
        }
        samples = {k: [] for k in pieces}
        for _ in range(repeats):
            for k, fn in pieces.items():
                fn()
                sync()
                start = timeit.default_timer()
                for _ in range(number):
                    fn()
                sync()
                samples[k].append((timeit.default_timer() - start) / number * 1e6)
    n_params = len(list(model.parameters()))
    print(f"== {name} ({device}, {n_params} parameters; entries {len(state.hits)}, unsupported {state.unsupported}, "
          f"hits {thunder.cache_hits(jitted)}, misses {thunder.cache_misses(jitted)})")
    for k, s in samples.items():
        print(f"{k:26s} median {statistics.median(s):9.2f}  min {min(s):9.2f}")
    med = {k: statistics.median(s) for k, s in samples.items()}
    print(f"whole call - computation {med['whole call'] - med['computation']:.2f}; guard {med['guard']:.2f}; "
          f"(guard, then computation) - computation {med['guard, then computation'] - med['computation']:.2f}")
