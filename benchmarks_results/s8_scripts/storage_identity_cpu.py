"""Ways to read the storage identity that upstream's alias grouping compares, on 16 CPU tensors of 8 elements
(session 8). Run from the repository root: python benchmarks_results/s8_scripts/storage_identity_cpu.py"""
import timeit, torch

ts = [torch.randn(8) for _ in range(16)]
names = [f"t{i}" for i in range(16)]
g = {**dict(zip(names, ts)), "torch": torch, "_us": torch.Tensor.untyped_storage, "_dp": torch.UntypedStorage.data_ptr,
     "_sid": torch._C._storage_id}
generated = "len({" + ", ".join(f"{n}.untyped_storage().data_ptr()" for n in names) + "}) != 16"  # the guard's form
mapped = "len(set(map(_dp, map(_us, (" + ", ".join(names) + "))))) != 16"
by_id = "len({" + ", ".join(f"_sid({n})" for n in names) + "}) != 16"
assert eval(generated, g) == eval(mapped, g) == eval(by_id, g) == False
empty = torch.empty(0), torch.empty(0)
print("two empty tensors, same storage pointer:", empty[0].untyped_storage().data_ptr() == empty[1].untyped_storage().data_ptr(),
      "| same _storage_id:", torch._C._storage_id(empty[0]) == torch._C._storage_id(empty[1]))
for label, stmt in [("generated set (the guard's)", generated), ("map over the two methods", mapped), ("torch._C._storage_id", by_id)]:
    best = min(timeit.repeat(stmt, globals=g, number=20000, repeat=15)) / 20000 * 1e6
    print(f"{label:30s} {best:.3f} us for 16 tensors ({best / 16:.3f} per tensor), minimum of 15 x 20,000")
