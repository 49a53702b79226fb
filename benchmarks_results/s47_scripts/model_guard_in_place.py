"""Session 47: the one-token hit gap of small_models.py's LLaMA-2 and nanoGPT (whole call minus computation), split
with guard_in_place.py's method. Session 46's model_hit_gap.py subtracted two large, noisy medians and could not read
LLaMA-2; here the guard's own time is read with perf_counter_ns around each guard call, once in a loop of its own
and once with the entry's computation run between two guard calls, as in a loop of hits.

Rows (µs per call; median and min over the repeats): whole call and computation, timed interleaved as loops of
`number` calls (synchronized after each loop on CUDA); the guard alone and after the computation; and the other way
round, the computation (its host time, with perf_counter_ns around it) alone and after the guard: the guard's reads
may evict what the computation reads, as the computation's evict the guard's. The remainder, gap minus the guard
after the computation, is what the hit adds beyond its guard in place: the module call, the dispatcher, the hit
function's own lines, and the computation's slowdown after the guard (the last two rows tell that part).

    python model_guard_in_place.py [number] [repeats] [cpu|cuda]
"""
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "thunder", "benchmarks"))
import small_graph  # noqa: E402
import small_models  # noqa: E402

import thunder  # noqa: E402
from thunder.tests import llama2_model, nanogpt_model  # noqa: E402

number = int(sys.argv[1]) if len(sys.argv) > 1 else 50
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 11
device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
perf = time.perf_counter_ns


def make_models():
    if device == "cuda":
        return 512, {
            "llama2_1tok": llama2_model.Transformer(llama2_model.ModelArgs(**small_models.LLAMA2)),
            "nanogpt_1tok": nanogpt_model.GPT(nanogpt_model.GPTConfig(**small_models.NANOGPT)),
        }
    return 32, {
        "llama2_tiny": llama2_model.Transformer(llama2_model.ModelArgs(dim=16, n_layers=4, n_heads=2, vocab_size=32,
                                                                       max_seq_len=8)),
        "nanogpt_tiny": nanogpt_model.GPT(nanogpt_model.GPTConfig(n_layer=4, n_head=2, n_embd=16, block_size=8,
                                                                  vocab_size=32, dropout=0.0)),
    }


def loop_time(fn):
    sync()
    start = perf()
    for _ in range(number):
        fn()
    sync()
    return (perf() - start) / number / 1000


def time_after(target, work):
    """Mean µs of target() per call, with work() run before each call and outside the timed span."""
    total = 0
    for _ in range(number):
        work()
        t0 = perf()
        target()
        total += perf() - t0
    sync()
    return total / number / 1000


def main():
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, thunder {thunder.__version__}, python {sys.version.split()[0]}, device {device}")
    vocab, models = make_models()
    for name, model in models.items():
        model = model.to(device).eval()
        idx = torch.randint(0, vocab, (1, 1), device=device)
        args = (idx,)
        with torch.no_grad():
            jitted = thunder.jit(model, fastpath=True)
            for _ in range(3):
                jitted(idx)
            state = small_graph.fast_state(jitted)
            guard = state.hits[0].guard.check
            assert isinstance(guard(args, {}), tuple)
            computation = small_graph.computation_only(jitted)(*args)

            def run_guard(guard=guard, args=args):
                return guard(args, {})

            def nothing():
                return None

            rows = {
                "whole call": lambda: loop_time(lambda: jitted(idx)),
                "computation": lambda: loop_time(computation),
                "guard alone": lambda: time_after(run_guard, nothing),
                "guard after computation": lambda: time_after(run_guard, computation),
                "computation alone": lambda: time_after(computation, nothing),
                "computation after guard": lambda: time_after(computation, run_guard),
            }
            samples = {k: [] for k in rows}
            for _ in range(repeats):
                for k, row in rows.items():
                    samples[k].append(row())
        n_params = len(list(model.parameters()))
        print(f"\n== {name} ({n_params} parameters; {number} calls x {repeats} repeats; hits {thunder.cache_hits(jitted)}, "
              f"misses {thunder.cache_misses(jitted)}, unsupported {state.unsupported})")
        for k, s in samples.items():
            print(f"  {k:26s} median {statistics.median(s):9.2f}  min {min(s):9.2f}")
        med = {k: statistics.median(s) for k, s in samples.items()}
        gap = med["whole call"] - med["computation"]
        print(f"  gap (whole - computation) {gap:.2f}; guard alone {med['guard alone']:.2f}; guard after computation "
              f"{med['guard after computation']:.2f} (x{med['guard after computation'] / med['guard alone']:.2f}); "
              f"remainder {gap - med['guard after computation']:.2f}; computation after guard - computation alone "
              f"{med['computation after guard'] - med['computation alone']:.2f}")


if __name__ == "__main__":
    main()
