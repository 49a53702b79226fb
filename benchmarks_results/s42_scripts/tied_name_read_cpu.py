# Session 42: what reading the later name of a tied Parameter costs (upstream prologue semantics: ThunderModule.get_parameter, which
# falls back to the live model for names not in _overrides_parameters), against other reads. This CPU, minima of 7 x 20000.
import sys, timeit, torch
sys.path.insert(0, "thunder/benchmarks")
import small_models, thunder
case = small_models.make_cases("cpu")[0]
j = thunder.jit(case.fn)
with torch.no_grad(): j(*case.args)
for stmt in ["j.get_parameter('output.weight')", "j._model.get_parameter('output.weight')", "j._model.output.weight", "j._overrides_parameters.get('output.weight')"]:
    t = min(timeit.repeat(stmt, globals={"j": j}, number=20000, repeat=7)) / 20000 * 1e6
    print(f"{stmt:<55} {t:.3f} us")
