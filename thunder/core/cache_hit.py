"""A cache entry's hit function: one generated function that runs a cache hit of the entry.

See NOTE: Cache hits in ``thunder/__init__.py``. ``make_hit_fn`` prints the entry's prologue, bound symbol by bound
symbol with the symbols' own printers, as the body of a ``try`` block (a check that fails means a miss), followed by
what ``fn_`` runs after its cache lookup: the computation, the autograd connection and the epilogue. Some prologue
symbols are printed differently (``GuardPrinter``, one method per kind):

* the reads of ``cache_info``, the dict that ``populate_cache_info`` fills before each cache lookup, read the state
  that ``populate_cache_info`` records (``CACHE_INFO_READS``);
* the tensors' ``check_tensor_metadata`` checks are one ``TensorGuards`` call (``TensorChecks``), and the checks
  themselves where it does not pass;
* the ``ThunderModule`` that the prologue looks up in the compile data (``get_thunder_module``) is looked up in the
  compile data given; the jitted module's own is bound directly, and its parameters, buffers, submodules and other
  attributes are read from its dicts as its getters and ``__getattr__`` read them.

Each printed check passes exactly where the prologue's passes, so a hit function returns ``CACHE_MISS`` exactly where
its entry's prologue fails.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any, TYPE_CHECKING

import torch

import thunder
from thunder.core import dtypes
from thunder.core.baseutils import build_callable
from thunder.core.module import ThunderModule
from thunder.core.prims import PrimIDs
from thunder.core.proxies import Proxy
from thunder.core.pytree import tree_flatten
from thunder.core.symbol import default_python_printer
from thunder.core.trace import tracectx

if TYPE_CHECKING:
    from collections.abc import Callable
    from thunder.core.trace import TraceCtx

# dynamo's TensorGuards is private PyTorch API; without it, the tensor checks are the prologue's own.
try:
    from torch._C._dynamo.guards import TensorGuards
except ImportError:
    TensorGuards = None

CACHE_MISS = object()


def alias_tensor_indices(args, kwargs) -> str:
    """``cache_info["alias_tensor_indices"]``: the positions, among the flattened arguments, of the strided
    ``torch.Tensor``\\ s that share a storage with another one (positions joined by ``,``, groups by ``-``). Raises
    where a tensor's storage cannot be read (functorch's wrappers)."""
    flat_args = args
    if kwargs or any(type(a) not in _LEAF_TYPES for a in args):
        flat_args, _ = tree_flatten((args, kwargs))
    # Subclasses are left out: some do not support data_ptr()
    strided = [(i, t) for i, t in enumerate(flat_args) if type(t) is torch.Tensor and t.layout is torch.strided]
    ptrs = [t.untyped_storage().data_ptr() for _, t in strided]
    if len(set(ptrs)) == len(ptrs):
        return ""
    groups: dict[int, list[int]] = {}
    for (i, _), ptr in zip(strided, ptrs):
        groups.setdefault(ptr, []).append(i)
    return "-".join(",".join(map(str, g)) for g in groups.values() if len(g) > 1)


# Types that tree_flatten keeps as leaves: positional arguments of these types are their own flattening
_LEAF_TYPES = {torch.Tensor, torch.nn.Parameter, int, float, bool, complex, str, type(None)}


class _Memo(dict):
    """A function of torch dtypes, each value computed once."""

    def __init__(self, fn):
        self.fn = fn

    def __missing__(self, dtype: torch.dtype):
        self[dtype] = value = self.fn(dtype)
        return value


# What populate_cache_info records of autocast's dtypes, and pushes onto the compile data's autocast stack
_THUNDER_DTYPES = _Memo(dtypes.to_dtype)
_THUNDER_DTYPE_STRS = _Memo(lambda dtype: str(dtypes.to_dtype(dtype)))


def _no_grad_sync() -> bool:
    from thunder.distributed import get_skip_data_parallel_grad_sync

    return get_skip_data_parallel_grad_sync()


# How a hit function reads each entry of cache_info: an expression with the value that populate_cache_info records.
CACHE_INFO_READS = {
    "default_dtype": "__get_default_dtype()",
    # torch.get_default_device() runs Python to find a device mode or a device context; without them it is the CPU
    "default_device": "__cpu if not __len_torch_function_stack() and __device_context.__dict__.get('device_context')"
    " is None else torch.get_default_device()",
    "autocast_config_torch_enabled": "torch.is_autocast_enabled('cuda')",
    "autocast_config_torch_cpu_enabled": "torch.is_autocast_enabled('cpu')",
    "autocast_gpu_dtype": "__thunder_dtype_strs[torch.get_autocast_dtype('cuda')]",
    "autocast_cpu_dtype": "__thunder_dtype_strs[torch.get_autocast_dtype('cpu')]",
    "autocast_thunder_dtype": "__thunder_dtype_strs[torch.get_autocast_dtype('cpu' if torch.is_autocast_enabled('cpu')"
    " else 'cuda')]",
    "is_autocast_enabled": "__is_any_autocast_enabled() and (torch.is_autocast_enabled('cuda') or"
    " torch.is_autocast_enabled('cpu'))",
    "alias_tensor_indices": "__alias_tensor_indices(args, kwargs)",
    "is_grad_enabled": "__is_grad_enabled()",
    "no_grad_sync": "__no_grad_sync()",
}

_HIT_FN_GLOBALS = {
    "torch": torch,
    "thunder": thunder,
    "CACHE_MISS": CACHE_MISS,
    "__get_default_dtype": torch.get_default_dtype,
    "__cpu": torch.device("cpu"),
    "__len_torch_function_stack": torch._C._len_torch_function_stack,
    "__device_context": torch._GLOBAL_DEVICE_CONTEXT,
    "__is_any_autocast_enabled": torch._C._is_any_autocast_enabled,
    "__is_grad_enabled": torch.is_grad_enabled,
    "__thunder_dtypes": _THUNDER_DTYPES,
    "__thunder_dtype_strs": _THUNDER_DTYPE_STRS,
    "__alias_tensor_indices": alias_tensor_indices,
    "__no_grad_sync": _no_grad_sync,
    "__null": object(),
    "__set_grad_enabled": torch._C._set_grad_enabled,
}


class TensorChecks:
    """A prologue's ``check_tensor_metadata`` checks as one call: ``check(*tensors)`` is True only where each check
    passes (one ``TensorGuards`` call); where it is False, the checks themselves decide.

    The ``TensorGuards`` is made from the first tensors that pass the checks (``observe``). It requires their type and
    dispatch keys, and the shape, device, dtype and ``requires_grad`` that the checks require: it passes no tensor that
    the checks would fail. It is not made for tensors whose storage populate_cache_info could not read (functorch's
    wrappers), so that a tensor that passes it has a readable storage. ``args_plain`` tells whether the tensors passed
    as arguments (at ``arg_indices``) were strided ``torch.Tensor``\\ s, as each tensor is that passes it afterwards.
    """

    __slots__ = ("shapes", "arg_indices", "check", "args_plain")

    def __init__(self, shapes: list[list[int | None]], arg_indices: list[int]):
        self.shapes = shapes  # each tensor's shape as its check requires it, None for a dimension it does not check
        self.arg_indices = arg_indices
        self.check = _never
        self.args_plain = False

    def observe(self, *tensors) -> None:
        if self.check is not _never or TensorGuards is None:
            return
        if len({id(t) for t in tensors}) < len(tensors):
            return  # TensorGuards fails on a tensor passed twice
        plain = [type(t) is torch.Tensor and t.layout is torch.strided for t in tensors]
        try:
            for t, is_plain in zip(tensors, plain):
                if is_plain:
                    t.untyped_storage().data_ptr()
            guards = TensorGuards(
                *tensors,
                dynamic_dims_sizes=self.shapes,
                dynamic_dims_strides=[[None] * len(shape) for shape in self.shapes],
            )
        except Exception:
            return
        self.args_plain = all(plain[i] for i in self.arg_indices)
        self.check = guards.check


def _never(*tensors) -> bool:
    return False


def _thunder_module_in(cd_ref, model):
    """``thunder.core.module.get_thunder_module(model)``, with the compile data given instead of read from the context
    that the cache lookup sets."""
    tm = cd_ref()._thunder_module_map.get(id(model))
    if tm and tm._model is not model:
        tm = None
    return model if tm is None else tm


def _undecorated(fn: Callable) -> tuple[Callable, Callable] | None:
    """``(no_autocast_layer, bare)`` of a callable that ``TraceCtx.python_callable`` decorated with
    ``@torch.no_grad()`` and ``@no_autocast``; None for any other decoration."""
    no_autocast_layer = getattr(fn, "__wrapped__", None)
    bare = getattr(no_autocast_layer, "__wrapped__", None)
    if (
        bare is None
        or hasattr(bare, "__wrapped__")
        or fn.__code__.co_name != "decorate_context"
        or no_autocast_layer.__code__.co_name != "no_autocast_fn"
    ):
        return None
    return no_autocast_layer, bare


class _Unsupported(Exception):
    pass


# The prologue symbols whose printed code needs nothing of the cache lookup's context (the compile data, cache_info)
_CONTEXT_FREE = {
    PrimIDs.UNPACK_TRIVIAL,
    PrimIDs.UNPACK_GETITEM,
    PrimIDs.UNPACK_ATTR,
    PrimIDs.UNPACK_FUNCTION_OBJ,
    PrimIDs.UNPACK_PARAMETER,
    PrimIDs.UNPACK_BUFFER,
    PrimIDs.UNPACK_SUBMODULE,
    "shape",
    "check_literal_like",
    "check_none",
    "check_type",
    "check_instance",
    "check_number_type_and_value",
    "check_bool_conversion",
    "check_string_value",
    "check_slice_value",
    "check_empty",
    "check_len",
}

# ThunderModule's getters, and the dict that each reads first
_MODULE_GETTERS = {
    PrimIDs.UNPACK_PARAMETER: ("_overrides_parameters", "get_parameter"),
    PrimIDs.UNPACK_BUFFER: ("_overrides_buffers", "get_buffer"),
    PrimIDs.UNPACK_SUBMODULE: ("_module_cache", "get_submodule"),
}


class GuardPrinter:
    """Prints a prologue trace as the guard of a hit function (``lines``), one method per kind of bound symbol that is
    printed differently there, and collects what the rest of the hit function needs."""

    def __init__(self, prologue_trc: TraceCtx, *, cd_ref, thunder_module=None):
        self.trace = prologue_trc
        self.cd_ref = cd_ref
        self.thunder_module = thunder_module
        # thunder.distributed.ddp and fsdp mark the function or module before it is jitted
        fn = cd_ref().fn
        self.data_parallel = bool(getattr(fn, "use_ddp", False) or getattr(fn, "use_fsdp", False))
        self.ctx: dict[str, Any] = {}
        self.lines: list[str] = []
        self.cache_info_keys: dict[str, str] = {}  # proxy name -> cache_info key
        self.expected: dict[str, Any] = {}  # cache_info key -> the value that the prologue requires
        self.tensor_checks: list = []
        self.tensor_checks_printed = False
        # The positional arguments: their number, the name each is unpacked to, and the names whose check pins a type
        # that tree_flatten keeps as a leaf (for print_no_aliases)
        self.n_args: int | None = None
        self.n_kwargs: int | None = None
        self.arg_names: dict[int, str] = {}
        self.leaf_names: set[str] = set()
        self.function_objs: set[str] = set()
        self.thunder_module_names: set[str] = set()
        self.hoisted: set[str] = set()
        self.from_overrides: set[str] = set()  # parameters read from a ThunderModule's overrides
        self.returned = None

    def print(self) -> list[str]:
        self.read_expected_cache_info()
        for bsym in self.trace.bound_symbols:
            for p in bsym.flat_proxy_outs:
                if p.name.startswith("__"):
                    raise _Unsupported(f"the name {p.name} is one of the hit function's")
            sid = bsym.sym.id
            if sid == PrimIDs.UNPACK_CACHE_INFO:
                self.print_tensor_checks()
                continue
            if sid == PrimIDs.UNPACK_GETITEM and bsym.args[0].name == "cache_info":
                self.print_cache_info_read(bsym)
            elif sid == "check_tensor_metadata":
                self.tensor_checks.append(bsym)
                self.leaf_names.add(bsym.args[0].name)
            elif sid == PrimIDs.RETURN:
                self.print_tensor_checks()
                self.returned = bsym.args[0]
            elif sid == PrimIDs.UNPACK_THUNDER_MODULE:
                self.print_thunder_module(bsym)
            elif sid in _MODULE_GETTERS and bsym.args[0].name in self.thunder_module_names:
                self.print_module_member(bsym)
            elif sid == PrimIDs.UNPACK_ATTR and bsym.args[0].name in self.thunder_module_names:
                self.print_module_attribute(bsym)
            elif sid in _CONTEXT_FREE:
                self.note(bsym)
                if sid == PrimIDs.UNPACK_FUNCTION_OBJ:
                    self.function_objs.add(bsym.output.name)
                self.print_context_free(bsym)
            else:
                raise _Unsupported(f"the prologue symbol {sid}")
        if self.returned is None:
            raise _Unsupported("a prologue without a return")
        if self.from_overrides:
            self.lines.insert(0, "__unchecked = False")
        return self.lines

    def read_expected_cache_info(self) -> None:
        names = {}
        for bsym in self.trace.bound_symbols:
            if bsym.sym.id == PrimIDs.UNPACK_GETITEM and bsym.args[0].name == "cache_info":
                names[bsym.output.name] = bsym.args[1]
            elif bsym.args and isinstance(bsym.args[0], Proxy) and bsym.args[0].name in names and len(bsym.args) == 2:
                self.expected[names[bsym.args[0].name]] = bsym.args[1]

    def note(self, bsym) -> None:
        """What ``print_no_aliases`` needs to know of the positional arguments."""
        sid, args = bsym.sym.id, bsym.args
        if sid == "check_len" and args[0].name in ("args", "kwargs"):
            setattr(self, f"n_{args[0].name}", args[1])
        elif sid == PrimIDs.UNPACK_GETITEM and args[0].name == "args" and isinstance(args[1], int):
            self.arg_names.setdefault(args[1], bsym.output.name)
        elif sid in ("check_number_type_and_value", "check_none"):
            self.leaf_names.add(args[0].name)

    def print_context_free(self, bsym) -> None:
        args = bsym.args
        if bsym.sym.id == "check_literal_like" and args[0].name in self.cache_info_keys:
            if isinstance(args[1], torch.device):
                # As printed, the check would make the device anew on each call
                key = self.cache_info_keys[args[0].name]
                self.ctx[f"__expected_{key}"] = args[1]
                call = default_python_printer(bsym, bsym._out_printables, bsym._arg_printables, bsym._kwarg_printables)
                self.lines.append(f"if not ({args[0].name} == __expected_{key}): {call}")
                return
        self.lines.extend(bsym.python(indent=0))

    def print_cache_info_read(self, bsym) -> None:
        key = bsym.args[1]
        if key not in CACHE_INFO_READS:
            raise _Unsupported(f"cache_info[{key!r}]")
        self.cache_info_keys[bsym.output.name] = key
        out = bsym.output.name
        if key == "no_grad_sync" and not self.data_parallel:
            self.lines.append(f"{out} = False")  # what populate_cache_info records without data parallelism
        elif key == "alias_tensor_indices" and self.expected.get(key) == "":
            self.print_no_aliases(out)
        else:
            self.lines.append(f"{out} = {CACHE_INFO_READS[key]}")

    def print_no_aliases(self, out: str) -> None:
        """The alias read of an entry made for arguments without aliases, where every positional argument is checked
        to be a leaf of tree_flatten (a tensor, a number or None) and there are no keyword arguments: the flattened
        arguments are then the positional ones, and only those checked as tensors can share a storage."""
        read = CACHE_INFO_READS["alias_tensor_indices"]
        if (
            self.n_kwargs != 0
            or self.n_args is None
            or any(self.arg_names.get(i) not in self.leaf_names for i in range(self.n_args))
        ):
            self.lines.append(f"{out} = {read}")
            return
        tensor_names = {b.args[0].name for b in self.tensor_checks}
        tensors = [self.arg_names[i] for i in range(self.n_args) if self.arg_names[i] in tensor_names]
        if not tensors:
            self.lines.append(f"{out} = ''")
            return
        # Once the TensorGuards has passed, the tensors are of the kinds they were at TensorChecks.observe, with
        # readable storages: one tensor alone shares its storage with no other
        if len(tensors) == 1:
            self.lines.append(f"{out} = '' if __tensors_checked else {read}")
            return
        ptrs = ", ".join(f"{t}.untyped_storage().data_ptr()" for t in tensors)
        self.lines += [
            f"if __tensors_checked and __tensor_checks.args_plain and len({{{ptrs}}}) == {len(tensors)}:",
            f"  {out} = ''",
            "else:",
            f"  {out} = {read}",
        ]

    def print_thunder_module(self, bsym) -> None:
        (model,) = bsym.args
        out = bsym.output.name
        tm = self.thunder_module
        if model.name in self.function_objs and type(tm) is ThunderModule:
            # The jitted module's ThunderModule, held weakly: it holds the cache entries
            self.ctx["__thunder_module"] = weakref.ref(tm)
            self.lines += [
                f"{out} = __thunder_module()",
                f"__{out}_dict = {out}.__dict__",
                f"__{out}_model = __{out}_dict['_modules']['_model']",
            ]
            self.thunder_module_names.add(out)
            return
        self.ctx["__thunder_module_in"] = functools.partial(_thunder_module_in, self.cd_ref)
        self.lines.append(f"{out} = __thunder_module_in({model.name})")

    def print_module_member(self, bsym) -> None:
        module, name = bsym.args
        overrides, getter = _MODULE_GETTERS[bsym.sym.id]
        out = bsym.output.name
        # ThunderModule.get_parameter and the others: their overrides first, then the wrapped model
        local = f"__{module.name}{overrides}"
        if local not in self.hoisted:
            self.hoisted.add(local)
            self.lines.append(f"{local} = {module.name}.{overrides}")
        self.lines.append(f"{out} = {local}.get({name!r}, __null)")
        if bsym.sym.id != PrimIDs.UNPACK_PARAMETER:
            self.lines.append(f"if {out} is __null: {out} = {module.name}.{getter}({name!r})")
            return
        # A ThunderModule's overrides hold the module's parameters as it was jitted, and the tensors that
        # load_state_dict assigned after reading their shapes, which a strided nested tensor does not have: those need
        # no check for nesting (print_tensor_checks). A parameter read otherwise takes the prologue's own checks.
        self.lines.append(f"if {out} is __null: {out} = {module.name}.{getter}({name!r}); __unchecked = True")
        self.from_overrides.add(out)

    def print_module_attribute(self, bsym) -> None:
        module, name = bsym.args
        out = bsym.output.name
        if hasattr(ThunderModule, name) or not name.isidentifier():
            self.lines.extend(bsym.python(indent=0))
            return
        # ThunderModule.__getattr__ reads the wrapped model's attributes that the ThunderModule does not have
        d = f"__{module.name}_dict"
        self.lines.append(f"{out} = {d}[{name!r}] if {name!r} in {d} else __{module.name}_model.{name}")

    def print_tensor_checks(self) -> None:
        if self.tensor_checks_printed:
            return
        self.tensor_checks_printed = True
        if not self.tensor_checks:
            return
        names = [bsym.args[0].name for bsym in self.tensor_checks]
        shapes = [[d if isinstance(d, int) else None for d in bsym.args[1]] for bsym in self.tensor_checks]
        arg_names = set(self.arg_names.values())
        self.ctx["__tensor_checks"] = TensorChecks(shapes, [i for i, n in enumerate(names) if n in arg_names])
        tensors = ", ".join(names)
        # TensorGuards reads the sizes of each tensor, which aborts the process on a strided nested tensor
        not_nested = "".join(f"not {name}.is_nested and " for name in names if name not in self.from_overrides)
        if self.from_overrides:
            not_nested = f"not __unchecked and {not_nested}"
        self.lines += [
            "try:",
            f"  __tensors_checked = {not_nested}__tensor_checks.check({tensors})",
            "except Exception:",
            "  __tensors_checked = False",
            "if not __tensors_checked:",
            *(line for bsym in self.tensor_checks for line in bsym.python(indent=1)),
            f"  __tensor_checks.observe({tensors})",
        ]


def _names(x) -> str:
    """What the prologue returns, as names (each followed by a comma)."""
    if isinstance(x, Proxy):
        return f"{x.name}, "
    if isinstance(x, (tuple, list)):
        return "".join(_names(i) for i in x)
    raise _Unsupported(f"the prologue returns {type(x).__name__}")


def _epilogue_passes_through(cache_entry) -> str | None:
    """How the epilogue's result follows from the computation's outputs where it only returns them: ``"first"`` (the
    first output), ``"all"`` (all of them as a tuple); None where it must run."""
    epilogue = cache_entry.epilogue_traces[-1]
    *unpacks, ret = epilogue.bound_symbols
    if ret.sym.id != PrimIDs.RETURN or any(b.sym.id != PrimIDs.UNPACK_TRIVIAL for b in unpacks):
        return None
    params, value = tuple(epilogue.args), ret.args[0]
    if len(params) == 1 and value is params[0]:
        return "first"
    if isinstance(value, tuple) and len(value) == len(params) and all(v is p for v, p in zip(value, params)):
        return "all"
    return None


def make_hit_fn(
    cache_entry,
    *,
    cd_ref,
    thunder_module=None,
    maybe_connect_to_autograd: Callable | None = None,
) -> Callable | None:
    """The hit function of ``cache_entry`` (NOTE: Cache hits): ``hit_fn(cs, cache_entry, args, kwargs)`` returns what
    ``fn_`` returns for a call that hits the entry, or ``CACHE_MISS`` where the entry's prologue fails. None where the
    prologue has symbols that need the cache lookup's context, or the computation is not decorated as
    ``TraceCtx.python_callable`` decorates it: the cache lookup alone tries such an entry.

    Args:
        cache_entry: the entry, as built.
        cd_ref: a weak reference to the compile data.
        thunder_module: the jitted module's ``ThunderModule``, if a module is jitted.
        maybe_connect_to_autograd: what ``fn_`` calls on the computation's result, for an entry with a backward.
    """
    guard = GuardPrinter(cache_entry.prologue_traces[-1], cd_ref=cd_ref, thunder_module=thunder_module)
    try:
        with tracectx(guard.trace):
            guard_lines = guard.print()
        pro_to_comp, pro_to_epi = guard.returned
        inputs, pro_to_epi = _names(pro_to_comp), _names(pro_to_epi)
    except _Unsupported:
        return None
    layers = _undecorated(cache_entry.computation_fn)
    grad_enabled = guard.expected.get("is_grad_enabled")
    under_autocast = guard.expected.get("is_autocast_enabled")
    if layers is None or not isinstance(grad_enabled, bool) or not isinstance(under_autocast, bool):
        return None  # (a pruned prologue may not pin the grad mode or the autocast that the hit runs in)

    ctx = {**guard.trace.python_ctx(), **_HIT_FN_GLOBALS, **guard.ctx}
    ctx["__function_obj"] = guard.trace.fn
    # Outside autocast (which the prologue requires for CPU and CUDA) the no_autocast layer changes nothing
    ctx["__computation"] = layers[0] if under_autocast else layers[1]
    ctx["__epilogue"] = cache_entry.epilogue_fn
    ctx["__maybe_connect_to_autograd"] = maybe_connect_to_autograd

    body = [
        "__cs.calls += 1",
        "__cs.cache_hits += 1",
        "if __cs.last_cache_hit is not __entry: __cs.record_cache_hit(__entry)",
    ]
    if under_autocast:
        # What populate_cache_info does on each call under autocast
        ctx["__autocast_stack"] = cd_ref().autocast_stack
        device = "cuda" if guard.expected.get("autocast_config_torch_enabled") else "cpu"
        body.append(f"__autocast_stack.push({device!r}, __thunder_dtypes[torch.get_autocast_dtype({device!r})], True)")
    # The computation runs with grad mode off (its @torch.no_grad()); the prologue pins the grad mode
    if grad_enabled:
        body += ["__set_grad_enabled(False)", "try:", f"  __result = __computation({inputs})", "finally:"]
        body += ["  __set_grad_enabled(True)"]
    else:
        body.append(f"__result = __computation({inputs})")
    if cache_entry.backward_fn is not None:
        body.append("__result = __maybe_connect_to_autograd(__entry, __result)")
    passes_through = None if pro_to_epi else _epilogue_passes_through(cache_entry)
    if passes_through == "first":
        body.append("return __result[0]")
    elif passes_through == "all":
        body.append("return tuple(__result)")
    else:
        body.append(f"return __epilogue({pro_to_epi}*__result)")

    name = "cache_hit"
    source = "\n".join(
        [
            f"def {name}(__cs, __entry, args, kwargs):",
            "  try:",
            *(f"    {line}" for line in guard_lines),
            "  except Exception:",
            "    return CACHE_MISS",
            *(f"  {line}" for line in body),
        ]
    )
    hit_fn = build_callable(name, source, f"thunder.{name}", ctx)
    # Its globals hold the jitted function or module (__function_obj), which holds the cache entry that holds it
    del hit_fn.__globals__[name]
    return hit_fn
