"""The tensor and aliasing checks of a guard (part of ``guard.py``'s ``GuardBuilder``).

Thunder's prologue checks each tensor's shape, device, dtype and requires_grad (``check_tensor_metadata``), and its
cache info records which plain strided tensors among the flattened arguments share a storage
(``alias_tensor_indices``). A guard checks all tensors in one C++ call (dynamo's ``TensorGuards``, built from the call
that the guard was built after), and the aliasing by comparing storage pointers where it can.
"""

from __future__ import annotations

import torch
from torch.nn import Parameter

from thunder.core.pytree import tree_flatten
from thunder.fastpath.codegen import block
from thunder.fastpath.guard_steps import DECLINE, MISS, Reason, Step, Unsupported, miss_if

# dynamo's TensorGuards is private torch API: without it an entry that checks tensors keeps Thunder's path
# (Unsupported). test_guards.py's test_tensor_guards_behave_as_the_guards_rely_on pins what the guards rely on.
try:
    from torch._C._dynamo.guards import TensorGuards
except ImportError:
    TensorGuards = None


class TensorSpec:
    """What the prologue checks of one tensor: ``name`` is the trace's, ``shape`` has ``None`` for a symbolic dim."""

    __slots__ = ("name", "shape", "device", "dtype", "requires_grad")

    def __init__(self, name: str, shape: tuple, device: str, dtype: torch.dtype, requires_grad: bool):
        self.name, self.shape, self.device = name, shape, device
        self.dtype, self.requires_grad = dtype, requires_grad

    def metadata(self) -> tuple:
        """What the prologue checks of the tensor, as ``tensor_matches`` takes it."""
        return self.shape, self.device, self.dtype, self.requires_grad


def tensor_matches(t, shape, device: str, dtype: torch.dtype, requires_grad: bool) -> bool:
    """The prologue's ``check_tensor_metadata``, as a predicate (``None`` in ``shape`` is a symbolic dim).

    Plain loops, no generators: on a miss of an older cache entry this runs once per newer entry tried, and a
    generator expression per tensor makes it several times dearer."""
    if not isinstance(t, torch.Tensor):
        return False
    size = t.shape
    if len(size) != len(shape):
        return False
    for d, ref in zip(size, shape, strict=True):
        if ref is not None and not d == ref:  # compared as the prologue compares
            return False
    return str(t.device) == device and t.dtype == dtype and t.requires_grad == requires_grad


def same_layout_check(tensors):
    """A check (TensorGuards, one C++ call) that passes while each tensor has the exact type, sizes, strides, dtype,
    device and dispatch keys that ``tensors`` have now. The guard's ``__observed_layout`` and a FusionRegion's layout
    check are both this: where the first passes on a region's inputs, so does the second (hit_function.py,
    ``entry_layout``). Raises RuntimeError for tensors without strides (sparse compressed layouts)."""
    return TensorGuards(
        *tensors,
        dynamic_dims_sizes=[list(t.shape) for t in tensors],
        dynamic_dims_strides=[list(t.stride()) for t in tensors],
    )


def check_tensors_slowly(tensors, specs, kinds):
    """After TensorGuards said no: ``MISS`` where the prologue's checks fail, ``DECLINE`` where they pass but a
    type or layout differs from the ``(type, layout)`` that the guard was built with, else ``True``. The alias check
    depends on both: Thunder's alias detection reads plain strided tensors only, and the guard's alias check reads
    storage pointers at the positions that held such tensors when it was built (``alias_check_steps``).

    TensorGuards also rejects what the prologue accepts: one tensor under two names where the guard was built with
    two tensors there (see ``tensor_check_steps``), other dispatch keys. Among the latter are functorch's wrappers
    (inside ``torch.vmap``, ``torch.func.grad`` or ``functionalize``, or leaked from them), whose storage pointer
    Thunder's alias detection cannot read: Thunder raises on them before trying any entry, so ``DECLINE``.
    """
    for t, (shape, device, dtype, requires_grad) in zip(tensors, specs, strict=True):
        if not tensor_matches(t, shape, device, dtype, requires_grad):
            return MISS
    if any(type(t) is not typ or t.layout is not layout for t, (typ, layout) in zip(tensors, kinds, strict=True)):
        return DECLINE
    if not all(map(storage_is_readable, tensors)):
        return DECLINE
    return True


def storage_is_readable(t) -> bool:
    """Whether Thunder's alias detection (``populate_cache_info``), which reads the storage pointer of every plain
    strided tensor, can read this one's."""
    if type(t) is not torch.Tensor or t.layout is not torch.strided:
        return True
    try:
        t.untyped_storage().data_ptr()
    except Exception:  # vmap's and grad's wrappers have no storage; functionalize's has no data pointer
        return False
    return True


def explain_tensors(tensors, specs, kinds, paths):
    """The explaining form of the tensor check: ``(verdict, message)`` for the first tensor that fails it, in words,
    with ``MISS`` or ``DECLINE`` as ``check_tensors_slowly`` decides; ``None`` where every tensor passes."""
    for i, (t, (shape, device, dtype, requires_grad)) in enumerate(zip(tensors, specs, strict=True)):
        if not isinstance(t, torch.Tensor):
            return MISS, f"{paths[i]}: a tensor expected, {type(t).__name__} given"
        if t.is_nested:
            return MISS, f"{paths[i]}: a strided tensor expected, a nested tensor given"
        given = tuple(t.shape)
        if len(given) != len(shape) or any(r is not None and d != r for d, r in zip(given, shape, strict=False)):
            expected = tuple("?" if r is None else r for r in shape)
            return MISS, f"{paths[i]}: shape {_shape(expected)} expected, {_shape(given)} given"
        for what, want, got in (
            ("device", device, str(t.device)),
            ("dtype", dtype, t.dtype),
            ("requires_grad", requires_grad, t.requires_grad),
        ):
            if want != got:
                return MISS, f"{paths[i]}: {what} {want} expected, {got} given"
    for i, (t, (typ, layout)) in enumerate(zip(tensors, kinds, strict=True)):
        if type(t) is not typ or t.layout is not layout:
            return DECLINE, (
                f"{paths[i]}: {typ.__name__} ({layout}) expected, {type(t).__name__} ({t.layout}) given; the guard"
                " leaves such a tensor to Thunder's path"
            )
        if not storage_is_readable(t):
            return DECLINE, f"{paths[i]}: a functorch-wrapped tensor, which Thunder's alias check cannot read"
    return None


def _shape(shape) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def tensors_once(specs, tensors):
    """The specs whose observed tensors TensorGuards checks, each tensor once (its first name), and the later names
    that stand for the same tensor under the same spec, as ``(later name, first name)`` pairs. A tensor under two
    names with two specs keeps both (TensorGuards then fails, and the slow check decides)."""
    first_of: dict[int, TensorSpec] = {}
    unique, same_as = [], []
    for spec, t in zip(specs, tensors, strict=True):
        first = first_of.setdefault(id(t), spec)
        if first is spec or first.metadata() != spec.metadata():
            unique.append(spec)
        else:
            same_as.append((spec.name, first.name))
    return unique, same_as


def tensor_check_steps(specs, observed, overridden_parameters, paths, namespace) -> tuple[list[Step], list[Step]]:
    """The tensor check, and the same check also noting in ``__same_layout`` whether every tensor has the sizes and
    strides of the observed call (checked first, by a second TensorGuards that pins them; the prologue itself does not
    look at strides). The fast path's direct region call uses the second form. Fills ``namespace``."""
    if not specs:
        return [], []
    if TensorGuards is None:
        raise Unsupported("this torch has no torch._C._dynamo.guards.TensorGuards")
    tensors = [observed[s.name] for s in specs]
    # TensorGuards fails on a tensor passed twice, so a tensor under two names (tied weights: a language model's
    # output layer sharing its embedding's Parameter; f(x, x)) would send every hit to the slow check. It gets
    # each observed tensor once; a later name of the same tensor, under the same spec, is checked by identity
    # with the first, which then stands for it. Any other object there takes the slow check.
    unique, same_as = tensors_once(specs, tensors)
    unique_tensors = [observed[s.name] for s in unique]
    try:  # first: it reads the strides in Python, before any TensorGuards sees such a tensor
        namespace["__observed_layout"] = same_layout_check(unique_tensors)
    except RuntimeError as e:  # sparse compressed layouts (CSR, CSC, BSR, BSC) have no strides
        raise Unsupported(f"a tensor without strides: {e}") from None
    namespace["__tensor_guards"] = TensorGuards(
        *unique_tensors,
        dynamic_dims_sizes=[list(s.shape) for s in unique],
        dynamic_dims_strides=[[None] * len(s.shape) for s in unique],
    )
    namespace["__tensor_specs"] = [s.metadata() for s in specs]
    namespace["__tensor_kinds"] = [(type(t), t.layout) for t in tensors]
    namespace["__tensor_paths"] = [paths.get(s.name, s.name) for s in specs]
    namespace["__check_tensors_slowly"] = check_tensors_slowly
    namespace["__explain_tensors"] = explain_tensors
    names = ", ".join(s.name for s in specs)
    slowly = [
        f"__verdict = __check_tensors_slowly(({names},), __tensor_specs, __tensor_kinds)",
        "if __verdict is not True: return __verdict",
    ]
    checked = ", ".join(s.name for s in unique)
    same = "".join(f"{later} is {first} and " for later, first in same_as)
    passes = f"({same}__tensor_guards.check({checked}))" if same else f"__tensor_guards.check({checked})"
    # Explaining: tensor by tensor, as check_tensors_slowly decides (a later name that is not the first's tensor only
    # sends the fast form to that slow check).
    explaining = (
        f"__why = __explain_tensors(({names},), __tensor_specs, __tensor_kinds, __tensor_paths)",
        "if __why is not None: return __why",
    )
    # TensorGuards reads every tensor's strides, and a strided nested tensor's strides raise a C++ error that aborts
    # the process there; the prologue fails on one (its shape raises), so it is a miss. Parameters found in a
    # ThunderModule's _overrides_parameters are left out (modules have many): that dict is filled at jit time, and
    # load_state_dict(assign=True), which replaces its values, reads their shapes, which a nested tensor refuses. A
    # later name of one tensor never reaches TensorGuards: its first name does, and stands for it only while the two
    # are one object.
    maybe_nested = [s.name for s in unique if s.name not in overridden_parameters]
    any_nested = " or ".join(f"{name}.is_nested" for name in maybe_nested)
    nested = [Step((miss_if(any_nested),), explaining=())] if maybe_nested else []
    plain = Step(tuple(block(f"if not {passes}:", slowly)), explaining=explaining)
    noting_layout = Step(
        (
            f"__same_layout = {same}__observed_layout.check({checked})",
            *block(f"if not (__same_layout or {same}__tensor_guards.check({checked})):", slowly),
        ),
        explaining=explaining,
    )
    return [*nested, plain], [*nested, noting_layout]


def alias_string(args, kwargs) -> str:
    """``cache_info["alias_tensor_indices"]`` exactly as Thunder computes it (the slow, general case)."""
    flat, _ = tree_flatten((args, kwargs))
    groups: dict[int, list[int]] = {}
    for index, x in enumerate(flat):
        if type(x) is torch.Tensor and x.layout is torch.strided:
            groups.setdefault(x.untyped_storage().data_ptr(), []).append(index)
    return "-".join(",".join(map(str, g)) for g in groups.values() if len(g) > 1)


def _aliasing_reason(expected: str) -> Reason:
    return Reason(
        "aliasing among the arguments (Thunder's alias_tensor_indices: positions that share a storage)",
        repr(expected),
        "__alias_string(args, kwargs)",
    )


def alias_check_steps(expected: str, top_level, arg_counts, checked, observed_args, observed_kwargs) -> list[Step]:
    """The alias check: the arguments' storages grouped as Thunder's ``alias_tensor_indices`` groups them.

    Fast form, for no aliasing expected and every top-level argument unpacked: when each argument is a leaf, the
    flattened inputs are exactly the arguments, and Thunder inspects those that are exactly torch.Tensor with the
    strided layout. The guard's own checks establish the type of most arguments (exact tensor types and layouts through
    TensorGuards or check_tensors_slowly, numbers and strings by value: ``checked``); others (a pruned prologue, as
    ThunderFX makes, checks none) are tested here to be what they were when the guard was built: strided
    torch.Tensors, whose storages count, or ``nn.Parameter``s, which Thunder leaves out (ThunderFX passes a module's
    parameters as arguments); anything else takes the general form."""
    reason = _aliasing_reason(expected)
    general = Step((miss_if(f"__alias_string(args, kwargs) != {expected!r}"),), reason)
    n_args, n_kwargs = arg_counts.get("args"), arg_counts.get("kwargs")
    first_name = {}  # position -> the first name it was unpacked to
    for name, pos in top_level.items():
        first_name.setdefault(pos, name)
    if n_args is None or n_kwargs is None or len(first_name) != n_args + n_kwargs:
        return [general]
    observed = {
        **{("args", i): v for i, v in enumerate(observed_args)},
        **{("kwargs", k): v for k, v in observed_kwargs.items()},
    }
    unchecked = [name for name in first_name.values() if name not in checked]
    # Unchecked parameters: Thunder's alias detection reads exactly torch.Tensor, so they hold no storage that counts.
    parameters = {
        name for pos, name in first_name.items() if name in unchecked and type(observed.get(pos)) is Parameter
    }
    storages = [
        name
        for pos, name in first_name.items()
        if (name in unchecked and name not in parameters)
        or (type(observed.get(pos)) is torch.Tensor and observed[pos].layout is torch.strided)
    ]
    if expected != "":
        expected_form = _expected_aliasing(expected, first_name, storages, n_kwargs, unchecked)
        return [Step(tuple(expected_form), reason)] if expected_form else [general]
    ptrs = [f"{name}.untyped_storage().data_ptr()" for name in storages]
    if len(ptrs) < 2:
        distinct = []
    elif len(ptrs) == 2:
        distinct = [miss_if(f"{ptrs[0]} == {ptrs[1]}")]
    else:
        distinct = [miss_if(f"len({{{', '.join(ptrs)}}}) != {len(ptrs)}")]
    if not unchecked:
        return [Step(tuple(distinct), reason)] if distinct else []
    kinds = " and ".join(
        f"type({name}) is torch.nn.Parameter"
        if name in parameters
        else f"type({name}) is torch.Tensor and {name}.layout is torch.strided"
        for name in unchecked
    )
    lines = (*block(f"if {kinds}:", distinct or ["pass"]), *block("else:", general.lines))
    return [Step(lines, reason)]


def _expected_aliasing(expected: str, first_name: dict, storages: list[str], n_kwargs: int, unchecked) -> list:
    """The fast form of the alias check for arguments that share storage (``f(x, x)``; self-attention's
    ``mha(q, q, q)``), without keywords (whose flattened order Thunder's pytree decides) and with every
    argument's type established by the guard: the arguments of each expected group share one storage pointer,
    and the groups and the other strided tensors have distinct ones. Empty where it does not apply."""
    if n_kwargs or unchecked:
        return []
    names = {index: first_name[("args", index)] for index in range(len(first_name))}
    groups = [[names.get(int(i)) for i in g.split(",")] for g in expected.split("-")]
    if any(name not in storages for g in groups for name in g):
        return []
    in_groups = {name for g in groups for name in g}
    ptr = {name: f"__ptr_{name}" for name in storages}  # trace names never start with two underscores
    lines = [f"{ptr[name]} = {name}.untyped_storage().data_ptr()" for name in storages]
    same = [" == ".join(ptr[name] for name in g) for g in groups]
    distinct = [ptr[g[0]] for g in groups] + [ptr[name] for name in storages if name not in in_groups]
    if len(distinct) > 1:
        same.append(f"len({{{', '.join(distinct)}}}) == {len(distinct)}")
    return [*lines, miss_if(f"not ({' and '.join(same)})")]


def outputs_are_new(outputs, inputs) -> bool:
    """Whether no output is a view or one of the inputs: then the call (a computation in ``hit_function.py``, a region
    in ``nvfuser.py``) made every output itself, and grad mode does not change them when no input requires grad (a
    view records the grad mode it was made in, which decides later in-place updates)."""
    return not any(isinstance(o, torch.Tensor) and (o._is_view() or any(o is i for i in inputs)) for o in outputs)
