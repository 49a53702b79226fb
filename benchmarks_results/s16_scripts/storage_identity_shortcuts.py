"""Why the alias check reads every tensor's storage pointer: the cheaper stand-ins are not exact.

    python benchmarks_results/s16_scripts/storage_identity_shortcuts.py
"""
import torch


def storage(t):
    return t.untyped_storage().data_ptr()


a, b = torch.randn(4), torch.randn(4)
version, before = a._version, storage(a)
a.data = b
print(f"t.data = other: storage changed {storage(a) != before}, version {version} -> {a._version}")

c = torch.randn(4)
d = c.detach()
print(f"detach(): _base {d._base}, same storage as its source {storage(d) == storage(c)}")

e = torch.empty(0)
version = e._version
e.set_(c.untyped_storage())
print(f"set_(storage): _base {e._base}, same storage {storage(e) == storage(c)}, version {version} -> {e._version}")
