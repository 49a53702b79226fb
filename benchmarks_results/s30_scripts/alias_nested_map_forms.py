"""The guard's per-tensor alias and nested-tensor checks in the forms that guard.py generates, against forms that
loop in C (``map``), for 2, 16 and 64 tensors (this CPU; min over 7 repeats of 20,000, ns). Run from the repository
root:

    .venv/bin/python benchmarks_results/s30_scripts/alias_nested_map_forms.py
"""
import timeit, torch, operator
for n in (2, 16, 64):
    ts = tuple(torch.randn(8) for _ in range(n))
    names = [f"t{i}" for i in range(n)]
    g = {f"t{i}": t for i, t in enumerate(ts)}
    g.update(ts=ts, us=torch.Tensor.untyped_storage, dp=torch.UntypedStorage.data_ptr, isn=operator.attrgetter("is_nested"),
             any=any, set=set, map=map, len=len, tup=tuple)
    stmts = {
      "alias literal set": "len({" + ", ".join(f"{x}.untyped_storage().data_ptr()" for x in names) + "}) != %d" % n,
      "alias map": "len(set(map(dp, map(us, (" + ", ".join(names) + ",))))) != %d" % n,
      "alias map ts": "len(set(map(dp, map(us, ts)))) != %d" % n,
      "nested or": " or ".join(f"{x}.is_nested" for x in names),
      "nested any map": "any(map(isn, (" + ", ".join(names) + ",)))",
      "nested any map ts": "any(map(isn, ts))",
    }
    for k, s in stmts.items():
        t = min(timeit.repeat(s, globals=g, number=20000, repeat=7)) / 20000 * 1e9
        print(f"n={n:3d} {k:20s} {t:8.1f} ns  {t/n:6.1f} ns/tensor")
