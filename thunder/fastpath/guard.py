"""Guards: generated Python code per cache entry that decides a cache hit without the prologue.

Upstream (``thunder/__init__.py``, ``get_computation_and_inputs``) decides a hit by filling a ``cache_info``
dict (``populate_cache_info``) and running the entry's prologue, whose checks are generic function calls.
A guard is built once per entry from that entry's prologue trace and answers the same question with inline
code: the same unpacking, the prologue's value checks written out, all tensor metadata checked in one C++
call (dynamo's ``TensorGuards``), and the ``cache_info`` entries read straight from torch's state.

The checks are compiled alone (``Guard.check``) and, for the fast path, together with the call that a hit
makes (``Guard.compile_with``, used by ``cache_hit.py``). A guard returns

* ``(computation_inputs, prologue_to_epilogue)`` where the prologue would pass,
* ``MISS`` where the prologue would fail (a definite miss for this entry),
* ``DECLINE`` where it cannot tell exactly (tensor subclasses, functorch's wrapped tensors, an autocast other than
  CPU's and CUDA's); the caller then takes upstream's path, which decides exactly (or raises, as upstream does on
  functorch's wrappers).

A prologue that uses anything the generator does not know raises ``Unsupported``: that entry keeps
upstream's path.
"""

from __future__ import annotations

import functools
import weakref
from numbers import Number
from typing import Any

import torch

# dynamo's TensorGuards is private torch API: without it an entry that checks tensors keeps upstream's path
# (Unsupported). test_overhead.py's test_tensor_guards_behave_as_the_guards_rely_on pins what the guards rely on.
try:
    from torch._C._dynamo.guards import TensorGuards
except ImportError:
    TensorGuards = None

import thunder
from thunder.core.prims import PrimIDs
from thunder.core.proxies import Proxy, TensorProxy
from thunder.core.pytree import tree_flatten

MISS = object()
DECLINE = object()


class Unsupported(Exception):
    """The prologue uses something a guard cannot express; the entry stays on upstream's path."""


def alias_string(args, kwargs) -> str:
    """``cache_info["alias_tensor_indices"]`` exactly as upstream computes it (the slow, general case)."""
    flat, _ = tree_flatten((args, kwargs))
    groups: dict[int, list[int]] = {}
    for index, x in enumerate(flat):
        if type(x) is torch.Tensor and x.layout is torch.strided:
            groups.setdefault(x.untyped_storage().data_ptr(), []).append(index)
    return "-".join(",".join(map(str, g)) for g in groups.values() if len(g) > 1)


def thunder_module_in(compile_data, model):
    """``thunder.core.module.get_thunder_module(model)``, with the compile data given instead of read from the
    context that upstream's call sets: the ThunderModule made for ``model``, else ``model`` itself."""
    tm = compile_data._thunder_module_map.get(id(model))
    if tm and tm._model is not model:
        tm = None
    return model if tm is None else tm


def tensor_matches(t, shape, device: str, dtype: torch.dtype, requires_grad: bool) -> bool:
    """The prologue's ``check_tensor_metadata``, as a predicate (``None`` in ``shape`` is a symbolic dim).

    Plain loops, no generators: on a miss of an older cache entry this runs once per newer entry tried, and a
    generator expression per tensor made it cost about three times as much (BENCHMARKS.md, session 21)."""
    if not isinstance(t, torch.Tensor):
        return False
    size = t.shape
    if len(size) != len(shape):
        return False
    for d, ref in zip(size, shape, strict=False):
        if ref is not None and not d == ref:  # compared as the prologue compares
            return False
    return str(t.device) == device and t.dtype == dtype and t.requires_grad == requires_grad


def same_layout_check(tensors):
    """A check (TensorGuards, one C++ call) that passes while each tensor has the exact type, sizes, strides, dtype,
    device and dispatch keys that ``tensors`` have now. The guard's ``__observed_layout`` and a FusionRegion's layout
    check are both this: where the first passes on a region's inputs, so does the second (cache_hit.py,
    ``_entry_layout``). Raises RuntimeError for tensors without strides (sparse compressed layouts)."""
    return TensorGuards(
        *tensors,
        dynamic_dims_sizes=[list(t.shape) for t in tensors],
        dynamic_dims_strides=[list(t.stride()) for t in tensors],
    )


def check_tensors_slowly(tensors, specs, kinds):
    """After TensorGuards said no: ``MISS`` where the prologue's checks fail, ``DECLINE`` where they pass but a
    type or layout differs from the ``(type, layout)`` that the guard was built with, else ``True``. The alias check
    depends on both: upstream's alias detection reads plain strided tensors only, and the guard's alias check reads
    storage pointers at the positions that held such tensors when it was built (``GuardBuilder.alias_check``).

    TensorGuards also rejects what the prologue accepts: one tensor under two names where the guard was built with
    two tensors there (see ``tensor_check``), other dispatch keys. Among the latter are functorch's wrappers (inside
    ``torch.vmap``, ``torch.func.grad`` or ``functionalize``, or leaked from them), whose storage pointer upstream's
    alias detection cannot read: upstream raises on them before trying any entry, so ``DECLINE``.
    """
    for t, (shape, device, dtype, requires_grad) in zip(tensors, specs, strict=False):
        if not tensor_matches(t, shape, device, dtype, requires_grad):
            return MISS
    if any(type(t) is not typ or t.layout is not layout for t, (typ, layout) in zip(tensors, kinds, strict=False)):
        return DECLINE
    if not all(map(_storage_is_readable, tensors)):
        return DECLINE
    return True


def _storage_is_readable(t) -> bool:
    """Whether upstream's alias detection (``populate_cache_info``), which reads the storage pointer of every plain
    strided tensor, can read this one's."""
    if type(t) is not torch.Tensor or t.layout is not torch.strided:
        return True
    try:
        t.untyped_storage().data_ptr()
    except Exception:  # vmap's and grad's wrappers have no storage; functionalize's has no data pointer
        return False
    return True


_CACHE_INFO_KEYS = (
    "default_dtype",
    "default_device",
    "is_autocast_enabled",
    "alias_tensor_indices",
    "is_grad_enabled",
    "no_grad_sync",
    # present only for entries made under autocast (GuardBuilder.autocast_checks)
    "autocast_config_torch_enabled",
    "autocast_config_torch_cpu_enabled",
    "autocast_gpu_dtype",
    "autocast_cpu_dtype",
    "autocast_thunder_dtype",
)

# Names the generated code uses for its own globals; trace names never start with two underscores.
_GLOBALS = {
    "torch": torch,
    "__MISS": MISS,
    "__DECLINE": DECLINE,
    "__null": object(),
    "__alias_string": alias_string,
    "__get_default_dtype": torch.get_default_dtype,
    "__get_default_device": torch.get_default_device,
    "__len_torch_function_stack": torch._C._len_torch_function_stack,
    "__device_context": torch._GLOBAL_DEVICE_CONTEXT,
    "__is_grad_enabled": torch.is_grad_enabled,
    "__is_any_autocast_enabled": torch._C._is_any_autocast_enabled,
    "__is_autocast_enabled": torch.is_autocast_enabled,
}


class _TensorSpec:
    __slots__ = ("name", "shape", "device", "dtype", "requires_grad")

    def __init__(self, name, shape, device, dtype, requires_grad):
        self.name, self.shape, self.device = name, shape, device
        self.dtype, self.requires_grad = dtype, requires_grad

    def metadata(self) -> tuple:
        """What the prologue checks of the tensor, as ``tensor_matches`` takes it."""
        return self.shape, self.device, self.dtype, self.requires_grad


class GuardBuilder:
    """Translates one prologue trace into the source of a guard function, line by line."""

    def __init__(self, prologue_trace, *, thunder_module=None, compile_data=None, data_parallel=False):
        self.trace = prologue_trace
        self.thunder_module = thunder_module
        self.compile_data = compile_data
        self.data_parallel = data_parallel
        self.lines: list[str] = []
        self.globals = dict(_GLOBALS)
        self.constants: list = []
        self.tensors: list[_TensorSpec] = []
        self.cache_info_name: str | None = None
        self.cache_info_items: dict[str, str] = {}  # proxy name -> cache_info key
        self.expected_state: dict[str, Any] = {}  # cache_info key -> expected value
        self.checked: set[str] = set()  # names of leaves whose type the guard establishes
        self.top_level: dict[str, Any] = {}  # name -> ("args", index) | ("kwargs", key)
        self.arg_counts: dict[str, int] = {}
        self.thunder_module_names: set[str] = set()
        self.function_obj_names: set[str] = set()
        self.hoisted: set[str] = set()  # locals bound once per guard (a ThunderModule's dicts, its model)
        # Parameters read from the jitted module's ThunderModule's _overrides_parameters (see tensor_check)
        self.overridden_parameters: set[str] = set()
        self.returned = None
        # (device, Thunder dtype) of an entry made under autocast, as upstream pushes it per call (autocast_checks)
        self.autocast = None

    # -- helpers -----------------------------------------------------------------------------------
    def constant(self, value) -> str:
        if (
            value is None
            or type(value) in (bool, int, str)
            or (type(value) is float and value == value and abs(value) != float("inf"))
        ):
            return repr(value)
        if isinstance(value, torch.dtype):
            return str(value)
        if value in (bool, int, float, complex, str):
            return value.__name__
        name = f"__c{len(self.constants)}"
        self.constants.append(value)
        self.globals[name] = value
        return name

    def fmt(self, x) -> str:
        if isinstance(x, Proxy):
            return x.name
        if isinstance(x, tuple):
            return "(" + "".join(self.fmt(i) + ", " for i in x) + ")"
        if isinstance(x, list):
            return "[" + ", ".join(self.fmt(i) for i in x) + "]"
        if x is None or type(x) in (bool, int, float, str):
            return self.constant(x)
        raise Unsupported(f"cannot return {type(x).__name__}")

    def emit(self, line: str) -> None:
        self.lines.append(line)

    def hoist(self, local: str, expression: str) -> str:
        """Binds ``expression`` to ``local`` where it is first needed, once per guard; returns ``local``."""
        if local not in self.hoisted:
            self.hoisted.add(local)
            self.emit(f"{local} = {expression}")
        return local

    def miss_unless(self, condition: str) -> None:
        self.emit(f"if not ({condition}): return __MISS")

    # -- translation of the prologue's bound symbols -----------------------------------------------
    def build(self) -> list[str]:
        # Names read by anything but a jitted module's unpack_thunder_module, which the guard resolves through a
        # weak reference instead: the function object is unpacked only when something else reads it.
        self.read_names = {
            p.name
            for b in self.trace.bound_symbols
            if b.sym.id != PrimIDs.UNPACK_THUNDER_MODULE or self.thunder_module is None
            for p in b.flat_proxy_args
        }
        for bsym in self.trace.bound_symbols:
            self.translate(bsym)
        if self.returned is None:
            raise Unsupported("prologue without return")
        return self.lines

    def translate(self, bsym) -> None:
        sid, args, out = bsym.sym.id, bsym.args, bsym.output
        for p in bsym.flat_outs:
            if isinstance(p, Proxy) and (p.name.startswith("__") or p.name == "torch"):
                raise Unsupported(f"trace name {p.name!r} would shadow the guard's own names")
        if sid == PrimIDs.UNPACK_TRIVIAL:
            if getattr(out, "name", None) not in ("args", "kwargs"):
                raise Unsupported("unpack_trivial of an unknown value")
        elif sid == "check_len":
            self.miss_unless(f"len({args[0].name}) == {int(args[1])}")
            self.arg_counts[args[0].name] = int(args[1])
        elif sid == PrimIDs.UNPACK_GETITEM:
            self.unpack_getitem(args[0], args[1], out)
        elif sid == PrimIDs.UNPACK_ATTR:
            self.unpack_attr(args[0], args[1], out)
        elif sid == PrimIDs.UNPACK_FUNCTION_OBJ:
            self.function_obj_names.add(out.name)
            if out.name in self.read_names:
                self.globals["__function_obj"] = self.trace.fn
                self.emit(f"{out.name} = __function_obj")
        elif sid == PrimIDs.UNPACK_THUNDER_MODULE:
            if self.thunder_module is not None and args[0].name in self.function_obj_names:
                # The jitted module's own ThunderModule, held weakly (it holds this guard).
                self.globals["__thunder_module"] = weakref.ref(self.thunder_module)
                self.emit(f"{out.name} = __thunder_module()")
                self.thunder_module_names.add(out.name)
                return
            # Any other module: a function's (thunder.jit(model.forward)) or one that the code reaches through
            # globals or a closure. The prologue asks the compile data for its ThunderModule (get_thunder_module),
            # which is the module itself where there is none; its members are then read as the prologue reads them.
            if self.compile_data is None:
                raise Unsupported("a module's ThunderModule, without the compile data")
            self.globals["__get_thunder_module"] = functools.partial(thunder_module_in, self.compile_data)
            self.emit(f"{out.name} = __get_thunder_module({args[0].name})")
        elif sid in (PrimIDs.UNPACK_PARAMETER, PrimIDs.UNPACK_BUFFER, PrimIDs.UNPACK_SUBMODULE):
            self.unpack_module_member(sid, args[0], args[1], out)
        elif sid == PrimIDs.UNPACK_CACHE_INFO:
            self.cache_info_name = out.name
        elif sid == "shape":
            names = ", ".join(p.name for p in out)
            self.emit(f"({names},) = {args[0].name}.shape")
        elif sid == "check_tensor_metadata":
            self.check_tensor(*args)
        elif sid in (
            "check_number_type_and_value",
            "check_string_value",
            "check_literal_like",
            "check_none",
            "check_slice_value",
        ):
            self.check_value(sid, args)
        elif sid == PrimIDs.RETURN:
            self.returned = args[0]
        else:
            raise Unsupported(f"prologue symbol {sid}")

    def unpack_getitem(self, container, key, out) -> None:
        if container.name == self.cache_info_name:
            if key not in _CACHE_INFO_KEYS:
                raise Unsupported(f"cache_info[{key!r}]")
            self.cache_info_items[out.name] = key
            return
        if type(key) not in (int, str):
            raise Unsupported(f"subscript {type(key).__name__}")
        if container.name in ("args", "kwargs"):
            self.top_level[out.name] = (container.name, key)
        self.emit(f"{out.name} = {container.name}[{key!r}]")

    def unpack_attr(self, obj, name: str, out) -> None:
        if not name.isidentifier():
            raise Unsupported(f"attribute {name!r}")
        if (
            obj.name in self.thunder_module_names
            and not hasattr(type(self.thunder_module), name)
            and name not in self.thunder_module.__dict__
        ):
            # ThunderModule forwards unknown attributes to the wrapped model through a slow __getattr__;
            # read the model directly unless the ThunderModule's own __dict__ has the name by now.
            tm_dict = self.hoist(f"__{obj.name}_dict", f"{obj.name}.__dict__")
            model = self.hoist(f"__{obj.name}_model", f"{tm_dict}['_modules']['_model']")
            self.emit(f"{out.name} = {tm_dict}[{name!r}] if {name!r} in {tm_dict} else {model}.{name}")
        else:
            self.emit(f"{out.name} = {obj.name}.{name}")

    def unpack_module_member(self, sid, module, name: str, out) -> None:
        overrides, getter = {
            PrimIDs.UNPACK_PARAMETER: ("_overrides_parameters", "get_parameter"),
            PrimIDs.UNPACK_BUFFER: ("_overrides_buffers", "get_buffer"),
            PrimIDs.UNPACK_SUBMODULE: ("_module_cache", "get_submodule"),
        }[sid]
        if module.name not in self.thunder_module_names:
            self.emit(f"{out.name} = {module.name}.{getter}({name!r})")  # as the prologue's unpack does
            return
        # ThunderModule.get_parameter and friends: an override dict first, then the wrapped model.
        local = self.hoist(f"__{module.name}{overrides}", f"{module.name}.{overrides}")
        self.emit(f"{out.name} = {local}.get({name!r}, __null)")
        if sid != PrimIDs.UNPACK_PARAMETER:
            self.emit(f"if {out.name} is __null: {out.name} = {module.name}.{getter}({name!r})")
            return
        self.overridden_parameters.add(out.name)
        self.emit(f"if {out.name} is __null:")
        self.emit(f"    {out.name} = {module.name}.{getter}({name!r})")
        self.emit(f"    if {out.name}.is_nested: return __MISS")  # not from the dict: checked here (tensor_check)

    def check_tensor(self, t, shape, device, dtype, requires_grad) -> None:
        shape = tuple(None if isinstance(d, Proxy) else int(d) for d in shape)
        if not isinstance(dtype, torch.dtype):
            dtype = thunder.core.dtypes.to_torch_dtype(dtype)
        self.tensors.append(_TensorSpec(t.name, shape, str(device), dtype, bool(requires_grad)))
        self.checked.add(t.name)

    def check_value(self, sid, args) -> None:
        subject = args[0]
        if subject.name in self.cache_info_items:
            self.expected_state[self.cache_info_items[subject.name]] = args[1] if len(args) > 1 else None
            return
        name = subject.name
        if sid == "check_none":
            self.miss_unless(f"{name} is None")
        elif sid == "check_string_value":
            self.miss_unless(f"{name} == {self.constant(args[1])}")
        elif sid == "check_literal_like":
            self.miss_unless(f"{name} == {self.constant(args[1])}")
        elif sid == "check_slice_value":  # the prologue compares with == alone; an equal non-slice goes upstream's way
            self.miss_unless(f"type({name}) is slice and {name} == {self.constant(args[1])}")
        else:  # check_number_type_and_value
            value = args[1]
            if not isinstance(value, Number):
                raise Unsupported(f"number check of {type(value).__name__}")
            typ = self.constant(type(value))
            if value != value:  # NaN matches NaN
                self.miss_unless(f"type({name}) is {typ} and {name} != {name}")
            else:
                self.miss_unless(f"type({name}) is {typ} and {name} == {self.constant(value)}")
        if sid != "check_literal_like":
            self.checked.add(name)

    # -- the parts that follow the prologue's own lines ----------------------------------------------
    @property
    def grad_enabled(self) -> bool:
        """The grad mode the entry was made for (its computation runs under no_grad whatever it is)."""
        return bool(self.expected_state.get("is_grad_enabled", torch.is_grad_enabled()))

    def state_checks(self) -> list[str]:
        expected = self.expected_state
        unknown = set(expected) - set(_CACHE_INFO_KEYS)
        if unknown:
            raise Unsupported(f"cache_info {sorted(unknown)}")
        # One C call each. dynamo's GlobalStateGuard, which checks these in one call, was no faster (BENCHMARKS.md,
        # session 27) and is private API.
        lines = []
        if "is_grad_enabled" in expected:
            lines.append(f"if __is_grad_enabled() is not {bool(expected['is_grad_enabled'])}: return __MISS")
        if expected.get("is_autocast_enabled") is True:
            lines += self.autocast_checks()
        else:
            # Upstream looks at CPU's and CUDA's autocast: either on fails this entry's prologue where it checks
            # is_autocast_enabled. Any other autocast (or CPU's and CUDA's where the prologue does not check it): let
            # upstream decide.
            on_cpu_or_cuda = "__is_autocast_enabled('cuda') or __is_autocast_enabled('cpu')"
            miss = [f"    if {on_cpu_or_cuda}: return __MISS"] if "is_autocast_enabled" in expected else []
            lines += ["if __is_any_autocast_enabled():", *miss, "    return __DECLINE"]
        if "default_dtype" in expected:
            lines.append(f"if __get_default_dtype() is not {self.constant(expected['default_dtype'])}: return __MISS")
        if "default_device" in expected:
            device = torch.device(expected["default_device"])
            ref = self.constant(device)
            if device == torch.device("cpu"):
                # torch.get_default_device() costs microseconds; without a device mode on the torch-function
                # stack and without a global device context it is the CPU.
                lines.append(
                    "if (__len_torch_function_stack() or __device_context.__dict__.get('device_context') is not None)"
                    f" and __get_default_device() != {ref}: return __MISS"
                )
            else:
                lines.append(f"if __get_default_device() != {ref}: return __MISS")
        if "no_grad_sync" in expected:
            if self.data_parallel:
                from thunder.distributed import get_skip_data_parallel_grad_sync

                self.globals["__no_grad_sync"] = get_skip_data_parallel_grad_sync
                lines.append(f"if __no_grad_sync() is not {bool(expected['no_grad_sync'])}: return __MISS")
            elif expected["no_grad_sync"]:
                raise Unsupported("no_grad_sync without data parallelism")
        return lines

    def autocast_checks(self) -> list[str]:
        """The checks of an entry made under autocast: upstream's cache-info entries for it, read from torch. Sets
        ``self.autocast`` to what upstream's ``populate_cache_info`` pushes onto the compile data's autocast stack on
        every call under autocast (a hit must push it too: the stack decides later compilations)."""
        from thunder.core.dtypes import to_dtype

        expected = self.expected_state
        keys = (
            "autocast_config_torch_enabled",
            "autocast_config_torch_cpu_enabled",
            "autocast_gpu_dtype",
            "autocast_cpu_dtype",
            "autocast_thunder_dtype",
        )
        if any(k not in expected for k in keys):
            raise Unsupported("an entry made under autocast whose prologue checks part of the autocast state")
        cuda_on, cpu_on = expected["autocast_config_torch_enabled"], expected["autocast_config_torch_cpu_enabled"]
        if {cuda_on, cpu_on} != {True, False}:
            raise Unsupported(f"autocast on CUDA {cuda_on!r} and on CPU {cpu_on!r}")  # upstream raises on both
        # The cache info holds Thunder's dtypes as strings; the guard compares torch's dtypes.
        by_name = {str(to_dtype(d)): d for d in (torch.float16, torch.bfloat16, torch.float32, torch.float64)}
        gpu, cpu = by_name.get(expected["autocast_gpu_dtype"]), by_name.get(expected["autocast_cpu_dtype"])
        thunder_dtype = cpu if cpu_on else gpu
        if gpu is None or cpu is None or str(to_dtype(thunder_dtype)) != expected["autocast_thunder_dtype"]:
            raise Unsupported(f"autocast dtypes { ({k: expected[k] for k in keys[2:]}) }")
        self.autocast = ("cpu" if cpu_on else "cuda", to_dtype(thunder_dtype))
        self.globals["__get_autocast_dtype"] = torch.get_autocast_dtype
        return [
            f"if __is_autocast_enabled('cuda') is not {cuda_on} or __is_autocast_enabled('cpu') is not {cpu_on}:"
            " return __MISS",
            f"if __get_autocast_dtype('cuda') is not {gpu} or __get_autocast_dtype('cpu') is not {cpu}: return __MISS",
        ]

    def alias_check(self, expected: str, observed_args, observed_kwargs) -> list[str]:
        general = [f"if __alias_string(args, kwargs) != {expected!r}: return __MISS"]
        # Fast form, for no aliasing expected and every top-level argument unpacked: when each argument is a leaf,
        # the flattened inputs are exactly the arguments, and upstream inspects those that are exactly
        # torch.Tensor with the strided layout. The guard's own checks establish the type of most arguments (exact
        # tensor types and layouts through TensorGuards or check_tensors_slowly, numbers and strings by value);
        # others (a pruned prologue, as ThunderFX makes, checks none) are tested here to be strided torch.Tensors,
        # and anything else takes the general form.
        n_args, n_kwargs = self.arg_counts.get("args"), self.arg_counts.get("kwargs")
        first_name = {}  # position -> the first name it was unpacked to
        for name, pos in self.top_level.items():
            first_name.setdefault(pos, name)
        if n_args is None or n_kwargs is None or len(first_name) != n_args + n_kwargs:
            return general
        observed = {
            **{("args", i): v for i, v in enumerate(observed_args)},
            **{("kwargs", k): v for k, v in observed_kwargs.items()},
        }
        unchecked = [name for name in first_name.values() if name not in self.checked]
        storages = [
            name
            for pos, name in first_name.items()
            if name in unchecked or (type(observed.get(pos)) is torch.Tensor and observed[pos].layout is torch.strided)
        ]
        if expected != "":
            return self.expected_aliasing(expected, first_name, storages, n_kwargs, unchecked) or general
        ptrs = [f"{name}.untyped_storage().data_ptr()" for name in storages]
        if len(ptrs) < 2:
            distinct = []
        elif len(ptrs) == 2:
            distinct = [f"if {ptrs[0]} == {ptrs[1]}: return __MISS"]
        else:
            distinct = [f"if len({{{', '.join(ptrs)}}}) != {len(ptrs)}: return __MISS"]
        if not unchecked:
            return distinct
        plain = " and ".join(f"type({name}) is torch.Tensor and {name}.layout is torch.strided" for name in unchecked)
        return [
            f"if {plain}:",
            *(f"    {line}" for line in distinct or ["pass"]),
            "else:",
            *(f"    {line}" for line in general),
        ]

    def expected_aliasing(
        self, expected: str, first_name: dict, storages: list[str], n_kwargs: int, unchecked: list[str]
    ) -> list[str]:
        """The fast form of the alias check for arguments that share storage (``f(x, x)``; self-attention's
        ``mha(q, q, q)``), without keywords (whose flattened order upstream's pytree decides) and with every
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
        return lines + [f"if not ({' and '.join(same)}): return __MISS"]

    def tensor_check(self, observed: dict) -> tuple[list[str], list[str]]:
        """The tensor check, and the same check also noting in ``__same_layout`` whether every tensor has the sizes
        and strides of the observed call (checked first, by a second TensorGuards that pins them; the prologue
        itself does not look at strides). The fast path's direct region call uses the second form."""
        if not self.tensors:
            return [], []
        if TensorGuards is None:
            raise Unsupported("this torch has no torch._C._dynamo.guards.TensorGuards")
        specs = self.tensors
        tensors = [observed[s.name] for s in specs]
        # TensorGuards fails on a tensor passed twice, so a tensor under two names (tied weights: a language model's
        # output layer sharing its embedding's Parameter; f(x, x)) would send every hit to the slow check. It gets
        # each observed tensor once; a later name of the same tensor, under the same spec, is checked by identity
        # with the first, which then stands for it. Any other object there takes the slow check.
        unique, same_as = _tensors_once(specs, tensors)
        unique_tensors = [observed[s.name] for s in unique]
        try:  # first: it reads the strides in Python, before any TensorGuards sees such a tensor
            self.globals["__observed_layout"] = same_layout_check(unique_tensors)
        except RuntimeError as e:  # sparse compressed layouts (CSR, CSC, BSR, BSC) have no strides
            raise Unsupported(f"a tensor without strides: {e}") from None
        self.globals["__tensor_guards"] = TensorGuards(
            *unique_tensors,
            dynamic_dims_sizes=[list(s.shape) for s in unique],
            dynamic_dims_strides=[[None] * len(s.shape) for s in unique],
        )
        self.globals["__tensor_specs"] = [s.metadata() for s in specs]
        self.globals["__tensor_kinds"] = [(type(t), t.layout) for t in tensors]
        self.globals["__check_tensors_slowly"] = check_tensors_slowly
        names = ", ".join(s.name for s in specs)
        slowly = [
            f"    __verdict = __check_tensors_slowly(({names},), __tensor_specs, __tensor_kinds)",
            "    if __verdict is not True: return __verdict",
        ]
        checked = ", ".join(s.name for s in unique)
        same = "".join(f"{later} is {first} and " for later, first in same_as)
        passes = f"({same}__tensor_guards.check({checked}))" if same else f"__tensor_guards.check({checked})"
        # TensorGuards reads every tensor's strides, and a strided nested tensor's strides raise a C++ error that
        # aborts the process there; the prologue fails on one (its shape raises), so it is a miss. Parameters found
        # in a ThunderModule's _overrides_parameters are left out (a read costs ~0.05 µs on a slow CPU, and modules
        # have many): that dict is filled at jit time, and load_state_dict(assign=True), which replaces its values,
        # reads their shapes, which a nested tensor refuses. A later name of one tensor never reaches TensorGuards:
        # its first name does, and stands for it only while the two are one object.
        maybe_nested = [s.name for s in unique if s.name not in self.overridden_parameters]
        any_nested = " or ".join(f"{name}.is_nested" for name in maybe_nested)
        not_nested = [f"if {any_nested}: return __MISS"] if maybe_nested else []
        plain = [*not_nested, f"if not {passes}:", *slowly]
        noting_layout = [
            *not_nested,
            f"__same_layout = {same}__observed_layout.check({checked})",
            f"if not (__same_layout or {same}__tensor_guards.check({checked})):",
            *slowly,
        ]
        return plain, noting_layout


def _tensors_once(specs, tensors):
    """The specs whose observed tensors TensorGuards checks, each tensor once (its first name), and the later names
    that stand for the same tensor under the same spec, as ``(later name, first name)`` pairs. A tensor under two
    names with two specs keeps both (TensorGuards then fails, and the slow check decides)."""
    first_of: dict[int, _TensorSpec] = {}
    unique, same_as = [], []
    for spec, t in zip(specs, tensors, strict=False):
        first = first_of.setdefault(id(t), spec)
        if first is spec or first.metadata() != spec.metadata():
            unique.append(spec)
        else:
            same_as.append((spec.name, first.name))
    return unique, same_as


class Guard:
    """One cache entry's guard: its checks as source lines, compiled alone (``check``, for tests and benchmarks)
    and, by ``compile_with``, in front of the code that a hit runs (the fast path's per-entry function)."""

    def __init__(
        self,
        checks,
        namespace,
        input_list,
        pro_to_epi,
        grad_enabled,
        no_grad_inputs,
        checks_noting_layout=None,
        tensor_names=(),
        arg_shapes=None,
        autocast=None,
    ):
        self.checks = checks
        # The same checks, also setting `__same_layout`: every tensor has the sizes and strides of the call that the
        # guard was built from (None without tensors); `tensor_names`: the tensors that the guard checks.
        self.checks_noting_layout = checks_noting_layout
        self.tensor_names = frozenset(tensor_names)
        self.namespace = namespace
        self.input_list = input_list  # the computation's arguments, each as source
        self.inputs = "".join(x + ", " for x in input_list)  # the same as one argument list ("x, p, ")
        self.pro_to_epi = pro_to_epi  # what the prologue passes to the epilogue, as source
        self.grad_enabled = grad_enabled  # the grad mode the entry was made for
        self.no_grad_inputs = no_grad_inputs  # no tensor among the arguments requires grad (the guard pins it)
        # The shapes that the guard requires, in every dimension (tuples of ints), of tensors passed as arguments:
        # {position: shape}, a position being an index into args or a keyword. Any other shape there is a miss, as
        # for the prologue: the dispatcher skips this guard for such calls (cache_hit.py, calls_by_shape).
        self.arg_shapes = arg_shapes or {}
        # An entry made under autocast: (device, Thunder dtype), what upstream pushes onto the compile data's autocast
        # stack on each call under autocast, a hit too (see GuardBuilder.autocast_checks); None for other entries.
        self.autocast = autocast

    @functools.cached_property
    def check(self):
        """The guard alone: ``(computation_inputs, prologue_to_epilogue)``, ``MISS`` or ``DECLINE``. Compiled on
        first use, since only tests and benchmarks call it (a hit runs ``compile_with``'s function)."""
        return self.compile_with("guard", [f"return (({self.inputs}), ({self.pro_to_epi}))"], {})[0]

    def compile_with(self, name: str, on_pass: list[str], namespace: dict, *, noting_layout: bool = False):
        """A function ``name(args, kwargs)`` that returns ``MISS`` or ``DECLINE`` as the guard does, and otherwise
        runs the lines ``on_pass`` (which see the guard's locals and, besides its globals, ``namespace``; with
        ``noting_layout``, also ``__same_layout``)."""
        source = _function_source(name, self.checks_noting_layout if noting_layout else self.checks, on_pass)
        return _compile(source, name, {**self.namespace, **namespace}), source


def build_guard(prologue_trace, args, kwargs, *, thunder_module=None, compile_data=None, data_parallel=False) -> Guard:
    """Builds the ``Guard`` of a cache entry from its prologue trace and one call that hit it.

    The call's arguments give the exact types that the tensor guard pins; a call that fails the prologue's checks
    cannot (``Unsupported``).
    Raises ``Unsupported`` when the prologue cannot be expressed as a guard.
    """
    builder = GuardBuilder(
        prologue_trace, thunder_module=thunder_module, compile_data=compile_data, data_parallel=data_parallel
    )
    body = builder.build()
    # Evaluate the unpacking once on the observed call to learn each tensor's exact type and layout.
    probe = _compile(_function_source("probe", body, ["return locals()"]), "probe", builder.globals)
    observed = probe(args, kwargs)
    # The tensor guard pins what it observes, so the observed tensors must pass the prologue's tensor checks. They
    # need not: upstream keeps an entry whose prologue failed on the call that made it, and the fast path builds that
    # entry's guard after such a call too (cache_hit.py). One case: after `jitted.double()`, a module's buffer is
    # traced as float64 but read from the ThunderModule's overrides as float32.
    if observed is MISS or not all(_passes_tensor_check(observed[s.name], s) for s in builder.tensors):
        raise Unsupported("the entry's own call does not pass its guard")
    # Global state first (cheap, and it decides entries made under autocast before the tensor guard, whose
    # dispatch keys would differ), then tensors, then aliasing (which relies on the tensor guard's types and
    # layouts).
    state = builder.state_checks()
    tensors, tensors_noting_layout = builder.tensor_check(observed)
    aliasing = []
    if "alias_tensor_indices" in builder.expected_state:
        aliasing = builder.alias_check(builder.expected_state["alias_tensor_indices"], args, kwargs)
    returned = builder.returned
    if not (isinstance(returned, tuple) and len(returned) == 2 and all(isinstance(r, (tuple, list)) for r in returned)):
        raise Unsupported("prologue does not return (computation inputs, prologue-to-epilogue values)")
    input_list = [builder.fmt(x) for x in returned[0]]
    pro_to_epi = "".join(builder.fmt(x) + ", " for x in returned[1])
    # Whether every tensor among the computation's inputs is pinned by the tensor guard as not requiring grad.
    pinned_no_grad = {s.name for s in builder.tensors if not s.requires_grad}
    no_grad_inputs = all(not isinstance(x, TensorProxy) or x.name in pinned_no_grad for x in returned[0])
    checks = body + state + tensors + aliasing
    noting_layout = body + state + tensors_noting_layout + aliasing if tensors_noting_layout else None
    arg_shapes = {
        builder.top_level[s.name][1]: s.shape
        for s in builder.tensors
        if s.name in builder.top_level and None not in s.shape
    }
    return Guard(
        checks,
        builder.globals,
        input_list,
        pro_to_epi,
        builder.grad_enabled,
        no_grad_inputs,
        noting_layout,
        (s.name for s in builder.tensors),
        arg_shapes,
        builder.autocast,
    )


def _passes_tensor_check(t, spec: _TensorSpec) -> bool:
    try:
        return tensor_matches(t, *spec.metadata())
    except Exception:  # no sizes (a strided nested tensor): the prologue fails on it too
        return False


def _function_source(name: str, body: list[str], final: list[str]) -> str:
    lines = [f"def {name}(args, kwargs):", "    try:"]
    lines += [f"        {line}" for line in body]
    lines += ["    except Exception:", "        return __MISS"]
    lines += [f"    {line}" for line in final]
    return "\n".join(lines) + "\n"


def _compile(source: str, name: str, global_ns: dict):
    namespace = dict(global_ns)
    exec(compile(source, f"thunder.fastpath.{name}", "exec"), namespace)
    # namespace is the function's globals: left in it, the function would make a reference cycle with them.
    return namespace.pop(name)
