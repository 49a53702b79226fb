"""Session 42: the guard of a weight-tied model's cache entry, built by the guard code before this session
(guard_before_s42.py, HEAD of session 41) and by the working tree's, timed interleaved in one process (minima, µs).

    python benchmarks_results/s42_scripts/tied_guard_ab.py [--device cpu|cuda]

Cases: small_models.py's llama2 and nanogpt (one token; both tie their output layer to the embedding) and the same
two models untied (the output layer given its own Parameter before jit)."""
import argparse, importlib.util, os, sys, timeit
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "thunder", "benchmarks"))
import small_models  # noqa: E402
import thunder  # noqa: E402
from thunder.fastpath import guard as guard_now  # noqa: E402

spec = importlib.util.spec_from_file_location("guard_before_s42", os.path.join(HERE, "guard_before_s42.py"))
guard_before = importlib.util.module_from_spec(spec)
spec.loader.exec_module(guard_before)


def untied(model):
    if hasattr(model, "output"):
        model.output.weight = torch.nn.Parameter(model.output.weight.detach().clone())
    else:
        model.lm_head.weight = torch.nn.Parameter(model.lm_head.weight.detach().clone())
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--number", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    torch.manual_seed(0)
    cases = [c for c in small_models.make_cases(args.device) if c.name.endswith("_1tok")]
    for case in cases:
        for label, model in (("tied", case.fn), ("untied", untied(__import__("copy").deepcopy(case.fn)))):
            with torch.no_grad():
                jitted = thunder.jit(model)
                for _ in range(3):
                    jitted(*case.args)
                state = jitted._forward_fn._lc_fastpath_state
                entry = state.hits[0].entry
                guards = {}
                for name, module in (("before", guard_before), ("now", guard_now)):
                    g = module.build_guard(entry.prologue_traces[-1], case.args, {}, thunder_module=jitted,
                                           compile_data=jitted._lc_cd)
                    assert isinstance(g.check(case.args, {}), tuple), name
                    guards[name] = g.check
                samples = {name: [] for name in guards}
                for _ in range(args.repeats):
                    for name, check in guards.items():
                        samples[name].append(timeit.timeit(lambda: check(case.args, {}), number=args.number)
                                             / args.number * 1e6)
                n = len(list(model.parameters()))
                print(f"{case.name:<14} {label:<7} params {n:>3}  guard before {min(samples['before']):8.2f} us"
                      f"  now {min(samples['now']):8.2f} us", flush=True)


if __name__ == "__main__":
    main()
