"""Cache hits: a cache entry's prologue made its guard, and the entry's hit function.

See NOTE: Cache hits in ``thunder/__init__.py``. ``prologue_as_guard`` rewrites an entry's prologue trace, after the
transforms and the Python executor's pass, into a prologue that needs nothing of the cache lookup's context, with one
symbol for each kind of read or check that is printed differently there (``PrologueGuard``, one method per kind):

* the reads of ``cache_info``, the dict that ``populate_cache_info`` fills before each cache lookup, read the state
  that ``populate_cache_info`` records (``unpack_state``, the expressions of ``STATE_READS``);
* the tensors' ``check_tensor_metadata`` checks that come before those reads move to where the reads begin, after
  one ``TensorGuards`` call (``tensor_guards``); each is tagged ``AFTER_TENSOR_GUARDS`` and runs only where that call
  did not pass (any failed check makes the prologue fail, so their order does not matter); the alias read of an
  entry made for arguments without aliases compares the storages of the checked tensors only, where it can
  (``unpack_no_aliases``);
* the ``ThunderModule`` that the prologue looks up in the compile data of the context is looked up in the compile
  data given (``unpack_thunder_module_in``); the jitted module's own is bound (``unpack_bound_thunder_module``), and
  its parameters, buffers, submodules and other attributes are read from its dicts as its getters and ``__getattr__``
  read them (``unpack_module_member``, ``unpack_module_attribute``).

Each rewritten read and check gives what the prologue's gives, so the rewritten prologue passes and fails exactly
where the prologue does. It is the entry's prologue: the cache lookup runs it, and the entry's hit function, which
``make_hit_fn`` generates, runs its body, printed into the hit function as Thunder prints it.
"""

from __future__ import annotations

import functools
import keyword
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
from thunder.core.symbol import Symbol
from thunder.core.symbol import BoundSymbolTag
from thunder.core.trace import TraceProvenance, _get_execution_file, from_trace

if TYPE_CHECKING:
    from collections.abc import Callable
    from thunder.core.symbol import BoundSymbol
    from thunder.core.trace import TraceCtx

# dynamo's TensorGuards is private PyTorch API; without it, the tensor checks are the prologue's own.
try:
    from torch._C._dynamo.guards import TensorGuards
except ImportError:
    TensorGuards = None

CACHE_MISS = object()

# Types that tree_flatten keeps as leaves: positional arguments of these types are their own flattening
_LEAF_TYPES = {torch.Tensor, torch.nn.Parameter, int, float, bool, complex, str, type(None)}


def alias_tensor_indices(args, kwargs) -> str:
    """``cache_info["alias_tensor_indices"]``: the positions, among the flattened arguments, of the strided
    ``torch.Tensor``\\ s that share a storage with another one (positions joined by ``,``, groups by ``-``). Raises
    where a tensor's storage cannot be read (functorch's wrappers)."""
    flat_args = args
    if kwargs or not _LEAF_TYPES.issuperset(map(type, args)):
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


# What populate_cache_info records of autocast's dtypes, and pushes onto the compile data's autocast stack
_thunder_dtype = functools.cache(dtypes.to_dtype)
_thunder_dtype_str = functools.cache(lambda dtype: str(dtypes.to_dtype(dtype)))


def _no_grad_sync(fn_dict: dict) -> bool:
    """What populate_cache_info records under ``no_grad_sync``, from the jitted callable's ``__dict__``, where
    ``thunder.distributed.ddp`` and ``fsdp`` mark it."""
    if not (fn_dict.get("use_ddp") or fn_dict.get("use_fsdp")):
        return False
    from thunder.distributed import get_skip_data_parallel_grad_sync

    return get_skip_data_parallel_grad_sync()


# The state that populate_cache_info records under each key of cache_info, as an expression
STATE_READS = {
    "default_dtype": "__get_default_dtype()",
    # torch.get_default_device() runs Python to find a device mode or a device context; without them it is the CPU
    "default_device": "__cpu if not __len_torch_function_stack() and __device_context.__dict__.get('device_context')"
    " is None else torch.get_default_device()",
    "autocast_config_torch_enabled": "torch.is_autocast_enabled('cuda')",
    "autocast_config_torch_cpu_enabled": "torch.is_autocast_enabled('cpu')",
    "autocast_gpu_dtype": "__thunder_dtype_str(torch.get_autocast_dtype('cuda'))",
    "autocast_cpu_dtype": "__thunder_dtype_str(torch.get_autocast_dtype('cpu'))",
    "autocast_thunder_dtype": "__thunder_dtype_str(torch.get_autocast_dtype('cpu' if torch.is_autocast_enabled('cpu')"
    " else 'cuda'))",
    "is_autocast_enabled": "__is_any_autocast_enabled() and (torch.is_autocast_enabled('cuda') or"
    " torch.is_autocast_enabled('cpu'))",
    "alias_tensor_indices": "__alias_tensor_indices(args, kwargs)",
    "is_grad_enabled": "__is_grad_enabled()",
    "no_grad_sync": "__no_grad_sync(__jitted_dict)",
}

# The names that STATE_READS's expressions use
_STATE_READS_CTX = {
    "torch": torch,
    "__get_default_dtype": torch.get_default_dtype,
    "__cpu": torch.device("cpu"),
    "__len_torch_function_stack": torch._C._len_torch_function_stack,
    "__device_context": torch._GLOBAL_DEVICE_CONTEXT,
    "__is_any_autocast_enabled": torch._C._is_any_autocast_enabled,
    "__thunder_dtype_str": _thunder_dtype_str,
    "__alias_tensor_indices": alias_tensor_indices,
    "__is_grad_enabled": torch.is_grad_enabled,
    "__no_grad_sync": _no_grad_sync,
    "__len": len,
}


def _guard_symbol(name: str, printer: Callable) -> Symbol:
    """A symbol of the rewritten prologue: its bound symbols carry the names their code uses (``_call_ctx``). Those of
    the ``unpack_`` symbols replace unpacks; the others return nothing, which is what their meta returns (for
    ``thunder.dev_utils.check_trace``, which runs the symbols of a trace other than unpacks)."""

    def print_lines(bsym, out_printables, arg_printables, kwarg_printables):
        return printer(bsym)

    return Symbol(name=name, meta=_returns_nothing, id=f"cache_hit.{name}", python_printer=print_lines)


def _returns_nothing(*args) -> None:
    return None


def _print_unpack_state(bsym: BoundSymbol) -> str:
    key, expression = bsym.args
    return f"{bsym.output.name} = {expression}  # cache_info[{key!r}]"


def _print_unpack_thunder_module_in(bsym: BoundSymbol) -> str:
    (model,) = bsym.args
    return f"{bsym.output.name} = __thunder_module_in({model.name})"


unpack_state = _guard_symbol("unpack_state", _print_unpack_state)
unpack_thunder_module_in = _guard_symbol("unpack_thunder_module_in", _print_unpack_thunder_module_in)


def _thunder_module_in(cd_ref, model):
    """``thunder.core.module.get_thunder_module(model)``, with the compile data given instead of read from the context
    that the cache lookup sets."""
    tm = cd_ref()._thunder_module_map.get(id(model))
    if tm and tm._model is not model:
        tm = None
    return model if tm is None else tm


class TensorChecks:
    """A prologue's ``check_tensor_metadata`` checks as one call: ``check(*tensors)`` is True only where each check
    passes (one ``TensorGuards`` call); where it is False, the checks themselves decide.

    The ``TensorGuards`` is made from tensors of the exact types ``torch.Tensor`` and ``torch.nn.Parameter`` that
    passed the checks (``observe``). It requires their type and dispatch keys, and the shape, device, dtype and
    ``requires_grad`` that the checks require: it passes no tensor that the checks would fail. It is not made for
    tensors whose storage populate_cache_info could not read (functorch's wrappers), so that a tensor that passes it
    has a readable storage. It is made again where the checks pass and it does not (a call in another dispatch state,
    such as inference mode), a few times at most. ``args_strided`` tells whether the tensors passed as arguments (at
    ``arg_indices``) were strided, with readable storages, as each tensor is that passes it afterwards.
    """

    __slots__ = ("shapes", "arg_indices", "check", "args_strided", "made")

    def __init__(self, shapes: list[list[int | None]], arg_indices: list[int]):
        self.shapes = shapes  # each tensor's shape as its check requires it, None for a dimension it does not check
        self.arg_indices = arg_indices
        self.check = _never
        self.args_strided = False
        self.made = 0

    def observe(self, *tensors) -> None:
        if self.made >= 3 or TensorGuards is None:
            return
        if any(type(t) not in (torch.Tensor, torch.nn.Parameter) for t in tensors):
            return
        if len({id(t) for t in tensors}) < len(tensors):
            return  # TensorGuards fails on a tensor passed twice
        strided = [t.layout is torch.strided for t in tensors]
        try:
            for t, is_strided in zip(tensors, strided):
                if is_strided:
                    t.untyped_storage().data_ptr()
            guards = TensorGuards(
                *tensors,
                dynamic_dims_sizes=self.shapes,
                dynamic_dims_strides=[[None] * len(shape) for shape in self.shapes],
            )
        except Exception:
            return
        self.made += 1
        self.args_strided = all(strided[i] for i in self.arg_indices)
        self.check = guards.check


def _never(*tensors) -> bool:
    return False


def _print_tensor_guards(bsym: BoundSymbol) -> list[str]:
    names = [t.name for t in bsym.args]
    # TensorGuards reads the sizes of each tensor, which aborts the process on a strided nested tensor
    not_nested = "".join(f"not {name}.is_nested and " for name in names)
    return [
        "try:",
        f"  __tensors_checked = {not_nested}__tensor_checks.check({', '.join(names)})",
        "except Exception:",
        "  __tensors_checked = False",
    ]


def _print_observe_tensors(bsym: BoundSymbol) -> str:
    return f"if not __tensors_checked: __tensor_checks.observe({', '.join(t.name for t in bsym.args)})"


def _print_unpack_no_aliases(bsym: BoundSymbol) -> list[str]:
    out, read = bsym.output.name, STATE_READS["alias_tensor_indices"]
    tensors = [t.name for t in bsym.args]
    # Once the TensorGuards has passed, the tensors are of the kinds they were at TensorChecks.observe, with readable
    # storages: one tensor alone shares its storage with no other
    if len(tensors) == 1:
        return [f"{out} = '' if __tensors_checked else {read}"]
    # Several tensors: where their storages are distinct, so are those of the torch.Tensors among them, which are the
    # storages that alias_tensor_indices compares (it leaves Parameters out)
    ptrs = [f"{t}.untyped_storage().data_ptr()" for t in tensors]
    distinct = f"{ptrs[0]} != {ptrs[1]}" if len(ptrs) == 2 else f"__len({{{', '.join(ptrs)}}}) == {len(ptrs)}"
    return [
        f"if __tensors_checked and __tensor_checks.args_strided and {distinct}:",
        f"  {out} = ''",
        "else:",
        f"  {out} = {read}",
    ]


tensor_guards = _guard_symbol("tensor_guards", _print_tensor_guards)
observe_tensors = _guard_symbol("observe_tensors", _print_observe_tensors)
unpack_no_aliases = _guard_symbol("unpack_no_aliases", _print_unpack_no_aliases)

# ThunderModule's getters, and the dict that each reads first
_MODULE_GETTERS = {
    PrimIDs.UNPACK_PARAMETER: ("_overrides_parameters", "get_parameter"),
    PrimIDs.UNPACK_BUFFER: ("_overrides_buffers", "get_buffer"),
    PrimIDs.UNPACK_SUBMODULE: ("_module_cache", "get_submodule"),
}
_NULL = object()


def _print_unpack_bound_thunder_module(bsym: BoundSymbol) -> list[str]:
    tm = bsym.output.name
    return [
        f"{tm} = __thunder_module()",
        f"__{tm}_dict = {tm}.__dict__",
        f"__{tm}_model = __{tm}_dict['_modules']['_model']",
        *(f"__{tm}{overrides} = {tm}.{overrides}" for overrides, _ in _MODULE_GETTERS.values()),
    ]


def _print_unpack_module_member(bsym: BoundSymbol) -> list[str]:
    tm, name = bsym.args[0].name, bsym.args[1]
    overrides, getter = _MODULE_GETTERS[bsym.subsymbols[0].sym.id]
    out = bsym.output.name
    # ThunderModule.get_parameter and the others: their overrides first, then the wrapped model
    return [f"{out} = __{tm}{overrides}.get({name!r}, __null)", f"if {out} is __null: {out} = {tm}.{getter}({name!r})"]


def _print_unpack_module_attribute(bsym: BoundSymbol) -> str:
    tm, name = bsym.args[0].name, bsym.args[1]
    # ThunderModule.__getattr__ reads the wrapped model's attributes that the ThunderModule does not have
    d = f"__{tm}_dict"
    return f"{bsym.output.name} = {d}[{name!r}] if {name!r} in {d} else __{tm}_model.{name}"


unpack_bound_thunder_module = _guard_symbol("unpack_bound_thunder_module", _print_unpack_bound_thunder_module)
unpack_module_member = _guard_symbol("unpack_module_member", _print_unpack_module_member)
unpack_module_attribute = _guard_symbol("unpack_module_attribute", _print_unpack_module_attribute)


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
    PrimIDs.RETURN,
    "shape",
    "check_tensor_metadata",
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


class PrologueGuard:
    """Rewrites a prologue trace's bound symbols (``bsyms``), one method per kind of bound symbol that is rewritten."""

    def __init__(self, prologue_trc: TraceCtx, *, cd_ref, thunder_module=None):
        self.trace = prologue_trc
        self.cd_ref = cd_ref
        self.bsyms: list[BoundSymbol] = []
        self.expected = expected_state(prologue_trc)
        self.tensor_checks: list[BoundSymbol] = []
        self.tensor_checks_ctx: dict[str, Any] = {}
        # The positional arguments: their number, the name each is unpacked to, and the names whose check pins a type
        # that tree_flatten keeps as a leaf (for read_no_aliases)
        self.n_args: int | None = None
        self.n_kwargs: int | None = None
        self.arg_names: dict[int, str] = {}
        self.leaf_names: set[str] = set()
        self.thunder_module = thunder_module
        self.function_objs: set[str] = set()
        self.thunder_module_names: set[str] = set()

    def rewrite(self) -> list[BoundSymbol]:
        for bsym in self.trace.bound_symbols:
            for p in bsym.flat_proxy_outs:
                if p.name.startswith("__"):
                    raise _Unsupported(f"the name {p.name} is one of the rewritten prologue's")
            sid = bsym.sym.id
            if sid == PrimIDs.UNPACK_CACHE_INFO:
                self.add_tensor_checks()
                continue
            if sid == PrimIDs.UNPACK_GETITEM and bsym.args[0].name == "cache_info":
                self.read_state(bsym)
            elif sid == "check_tensor_metadata" and not self.tensor_checks_ctx:
                self.tensor_checks.append(bsym)
                self.leaf_names.add(bsym.args[0].name)
            elif sid == PrimIDs.RETURN:
                self.add_tensor_checks()
                self.bsyms.append(bsym)
            elif sid == PrimIDs.UNPACK_THUNDER_MODULE:
                self.thunder_module_lookup(bsym)
            elif sid in _MODULE_GETTERS and bsym.args[0].name in self.thunder_module_names:
                self.module_member(bsym)
            elif sid == PrimIDs.UNPACK_ATTR and bsym.args[0].name in self.thunder_module_names:
                self.module_attribute(bsym)
            elif sid in _CONTEXT_FREE:
                self.note(bsym)
                if sid == PrimIDs.UNPACK_FUNCTION_OBJ:
                    self.function_objs.add(bsym.output.name)
                self.bsyms.append(bsym)
            else:
                raise _Unsupported(f"the prologue symbol {sid}")
        return self.bsyms

    def read_state(self, bsym: BoundSymbol) -> None:
        key = bsym.args[1]
        if key not in STATE_READS:
            raise _Unsupported(f"cache_info[{key!r}]")
        expression, ctx = STATE_READS[key], _STATE_READS_CTX
        if key == "no_grad_sync":
            fn_dict = getattr(self.cd_ref().fn, "__dict__", None)
            # Without a __dict__, the callable cannot be marked for data parallelism
            expression, ctx = ("False", {}) if fn_dict is None else (expression, {**ctx, "__jitted_dict": fn_dict})
        elif key == "alias_tensor_indices" and self.expected.get(key) == "":
            self.read_no_aliases(bsym)
            return
        self.bsyms.append(unpack_state.bind(key, expression, output=bsym.output, _call_ctx=ctx))

    def note(self, bsym: BoundSymbol) -> None:
        """What ``read_no_aliases`` needs to know of the positional arguments."""
        sid, args = bsym.sym.id, bsym.args
        if sid == "check_len" and args[0].name == "args":
            self.n_args = args[1]
        elif sid == "check_len" and args[0].name == "kwargs":
            self.n_kwargs = args[1]
        elif sid == PrimIDs.UNPACK_GETITEM and args[0].name == "args" and isinstance(args[1], int):
            self.arg_names.setdefault(args[1], bsym.output.name)
        elif sid in ("check_number_type_and_value", "check_none"):
            self.leaf_names.add(args[0].name)

    def add_tensor_checks(self) -> None:
        """The tensor checks collected so far, after one ``TensorGuards`` call that each skips where it passes; later
        ones stay where they are."""
        if self.tensor_checks_ctx:
            return
        names = [bsym.args[0].name for bsym in self.tensor_checks]
        shapes = [[d if isinstance(d, int) else None for d in bsym.args[1]] for bsym in self.tensor_checks]
        arg_names = set(self.arg_names.values())
        tensor_checks = TensorChecks(shapes, [i for i, n in enumerate(names) if n in arg_names])
        self.tensor_checks_ctx = {"__tensor_checks": tensor_checks}
        if not self.tensor_checks:
            return
        tensors = [bsym.args[0] for bsym in self.tensor_checks]
        ctx = self.tensor_checks_ctx
        self.bsyms.append(tensor_guards.bind(*tensors, output=None, _call_ctx=ctx))
        for check in self.tensor_checks:
            self.bsyms.append(check.from_bsym(tags=check.tags | {BoundSymbolTag.AFTER_TENSOR_GUARDS}))
        self.bsyms.append(observe_tensors.bind(*tensors, output=None, _call_ctx=ctx))

    def read_no_aliases(self, bsym: BoundSymbol) -> None:
        """The alias read of an entry made for arguments without aliases, where every positional argument is checked
        to be a leaf of tree_flatten (a tensor, a number or None) and there are no keyword arguments: the flattened
        arguments are then the positional ones, and only those checked as tensors can share a storage."""
        if (
            self.n_kwargs != 0
            or self.n_args is None
            or any(self.arg_names.get(i) not in self.leaf_names for i in range(self.n_args))
        ):
            key = "alias_tensor_indices"
            self.bsyms.append(unpack_state.bind(key, STATE_READS[key], output=bsym.output, _call_ctx=_STATE_READS_CTX))
            return
        checked = {b.args[0].name: b.args[0] for b in self.tensor_checks}
        tensors = [checked[self.arg_names[i]] for i in range(self.n_args) if self.arg_names[i] in checked]
        if not tensors:
            self.bsyms.append(unpack_state.bind("alias_tensor_indices", "''", output=bsym.output, _call_ctx={}))
            return
        ctx = {**_STATE_READS_CTX, **self.tensor_checks_ctx}
        self.bsyms.append(unpack_no_aliases.bind(*tensors, output=bsym.output, _call_ctx=ctx))

    def thunder_module_lookup(self, bsym: BoundSymbol) -> None:
        (model,) = bsym.args
        tm = self.thunder_module
        # The jitted module's own ThunderModule (ThunderModule._model is set once, by ThunderModule.__init__), held
        # weakly: it holds the cache entries
        if model.name in self.function_objs and type(tm) is ThunderModule and tm._model is self.cd_ref().fn:
            ctx = {"__thunder_module": weakref.ref(tm)}
            self.bsyms.append(unpack_bound_thunder_module.bind(model, output=bsym.output, _call_ctx=ctx))
            self.thunder_module_names.add(bsym.output.name)
            return
        ctx = {"__thunder_module_in": functools.partial(_thunder_module_in, self.cd_ref)}
        self.bsyms.append(unpack_thunder_module_in.bind(model, output=bsym.output, _call_ctx=ctx))

    def module_member(self, bsym: BoundSymbol) -> None:
        self.bsyms.append(
            unpack_module_member.bind(*bsym.args, output=bsym.output, subsymbols=(bsym,), _call_ctx={"__null": _NULL})
        )

    def module_attribute(self, bsym: BoundSymbol) -> None:
        name = bsym.args[1]
        if name == "_model" or hasattr(ThunderModule, name) or not name.isidentifier() or keyword.iskeyword(name):
            self.bsyms.append(bsym)
            return
        self.bsyms.append(unpack_module_attribute.bind(*bsym.args, output=bsym.output, _call_ctx={}))


def expected_state(prologue_trc: TraceCtx) -> dict[str, Any]:
    """The value that the prologue requires of each key of ``cache_info`` it checks with a value, read from the
    prologue or from the prologue that ``prologue_as_guard`` made of it."""
    names, expected = {}, {}
    for bsym in prologue_trc.bound_symbols:
        if bsym.sym.id == PrimIDs.UNPACK_GETITEM and bsym.args[0].name == "cache_info":
            names[bsym.output.name] = bsym.args[1]
        elif bsym.sym.id == unpack_state.id:
            names[bsym.output.name] = bsym.args[0]
        elif bsym.sym.id == unpack_no_aliases.id:
            names[bsym.output.name] = "alias_tensor_indices"
        elif bsym.args and isinstance(bsym.args[0], Proxy) and bsym.args[0].name in names and len(bsym.args) == 2:
            expected[names[bsym.args[0].name]] = bsym.args[1]
    return expected


def prologue_as_guard(prologue_trc: TraceCtx, *, cd_ref, thunder_module=None) -> TraceCtx | None:
    """``prologue_trc``, the prologue of a cache entry as its transforms and the Python executor left it, rewritten to
    need nothing of the cache lookup's context (see this module's docstring). None where it has a symbol that needs
    that context, or where an execution file is set (``thunder.set_execution_callback_file``: the file shows the
    prologue as it is, to be edited): the entry keeps the prologue as it is, and has no hit function.

    Args:
        prologue_trc: the prologue trace.
        cd_ref: a weak reference to the compile data.
        thunder_module: the jitted module's ``ThunderModule``, if a module is jitted.
    """
    if _get_execution_file() is not None:
        return None
    guard = PrologueGuard(prologue_trc, cd_ref=cd_ref, thunder_module=thunder_module)
    try:
        bsyms = guard.rewrite()
    except _Unsupported:
        return None
    trace = from_trace(prologue_trc)
    trace.bound_symbols = bsyms
    trace.set_provenance(TraceProvenance("Prologue as its cache entry's guard (NOTE: Cache hits)"))
    return trace


@functools.cache
def _decorators_code() -> tuple[Any, Any]:
    """The code of the functions that ``@torch.no_grad()`` (as torch's other grad-mode decorators) and ``@no_autocast``
    return, the same for every function they decorate; ``TraceCtx.python_callable`` prints these two only."""
    from thunder.executors.torchex import no_autocast

    return torch.no_grad()(_undecorated).__code__, no_autocast(_undecorated).__code__


def _undecorated(fn: Callable) -> tuple[Callable, Callable] | None:
    """``(no_autocast_layer, bare)`` of a callable that ``TraceCtx.python_callable`` decorated with
    ``@torch.no_grad()`` and ``@no_autocast``; None for any other decoration."""
    no_autocast_layer = getattr(fn, "__wrapped__", None)
    bare = getattr(no_autocast_layer, "__wrapped__", None)
    if bare is None or hasattr(bare, "__wrapped__") or (fn.__code__, no_autocast_layer.__code__) != _decorators_code():
        return None
    return no_autocast_layer, bare


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


_HIT_FN_GLOBALS = {
    "__cache_miss": CACHE_MISS,
    "__tuple": tuple,
    "__thunder_dtype": _thunder_dtype,
    "__set_grad_enabled": torch._C._set_grad_enabled,
}


def _printed_prologue(prologue_trc: TraceCtx) -> tuple[list[str], list[str], dict[str, Any]]:
    """The prologue trace as ``TraceCtx.python_callable`` prints it, without its return: the lines before its
    signature, the lines of its body, and the names they use."""
    trc = from_trace(prologue_trc)
    trc.bound_symbols = prologue_trc.bound_symbols[:-1]
    lines = trc.python(include_decorators=False).splitlines()
    signature = next(i for i, line in enumerate(lines) if line.startswith("def "))
    ctx = {**trc.python_ctx(), "__function_obj": prologue_trc.fn, "thunder": thunder}
    return lines[:signature], lines[signature + 1 :], ctx


def make_hit_fn(cache_entry, *, cd_ref, maybe_connect_to_autograd: Callable) -> Callable | None:
    """The hit function of ``cache_entry`` (NOTE: Cache hits): ``hit_fn(cs, cache_entry, args, kwargs)`` runs the
    entry's prologue, printed into it, and returns what ``fn_`` returns for a call that hits the entry, or
    ``CACHE_MISS`` where the prologue fails. None where the computation is not decorated as
    ``TraceCtx.python_callable`` decorates it, the prologue returns other than proxies, or it does not pin the grad
    mode and the autocast that the computation runs in.

    Args:
        cache_entry: the entry, as built, with the prologue that ``prologue_as_guard`` made.
        cd_ref: a weak reference to the compile data.
        maybe_connect_to_autograd: what ``fn_`` calls on the computation's result, for an entry with a backward.
    """
    prologue_trc = cache_entry.prologue_traces[-1]
    expected = expected_state(prologue_trc)
    layers = _undecorated(cache_entry.computation_fn)
    grad_enabled = expected.get("is_grad_enabled")
    under_autocast = expected.get("is_autocast_enabled")
    ret = prologue_trc.bound_symbols[-1]
    if layers is None or ret.sym.id != PrimIDs.RETURN:
        return None
    returned = ret.args[0]  # the computation's inputs, and what the epilogue takes first
    proxies_only = all(isinstance(p, Proxy) for proxies in returned for p in proxies)
    if not proxies_only or not isinstance(grad_enabled, bool) or not isinstance(under_autocast, bool):
        return None  # (a pruned prologue may not pin the grad mode or the autocast that the hit runs in)
    inps, pro_to_epi = (", ".join(p.name for p in proxies) for proxies in returned)

    header, prologue_body, ctx = _printed_prologue(prologue_trc)
    ctx.update(_HIT_FN_GLOBALS)
    # Outside autocast (which the prologue requires for CPU and CUDA) the no_autocast layer changes nothing
    ctx["__computation"] = layers[0] if under_autocast else layers[1]
    ctx["__epilogue"] = cache_entry.epilogue_fn
    ctx["__maybe_connect_to_autograd"] = maybe_connect_to_autograd

    body = ["__cs.calls += 1", "__cs.cache_hits += 1"]
    body.append("if __cs.last_cache_hit is not __entry: __cs.record_cache_hit(__entry)")
    if under_autocast:
        # What populate_cache_info does on each call under autocast
        ctx["__autocast_stack"] = cd_ref().autocast_stack
        device = "cuda" if expected.get("autocast_config_torch_enabled") else "cpu"
        body.append(f"__autocast_stack.push({device!r}, __thunder_dtype(torch.get_autocast_dtype({device!r})), True)")
    # The computation runs with grad mode off (its @torch.no_grad()); the prologue pins the grad mode
    if grad_enabled:
        body += ["__set_grad_enabled(False)", "try:", f"  __result = __computation({inps})", "finally:"]
        body += ["  __set_grad_enabled(True)"]
    else:
        body.append(f"__result = __computation({inps})")
    if cache_entry.backward_fn is not None:
        body.append("__result = __maybe_connect_to_autograd(__entry, __result)")
    passes_through = None if pro_to_epi else _epilogue_passes_through(cache_entry)
    if passes_through == "first":
        body.append("return __result[0]")
    elif passes_through == "all":
        body.append("return __tuple(__result)")
    else:
        body.append(f"return __epilogue({pro_to_epi}{', ' if pro_to_epi else ''}*__result)")

    # The prologue's body runs in a try, as the cache lookup runs the prologue: any exception is a miss
    name = "cache_hit"
    source = "\n".join(
        [
            *header,
            f"def {name}(__cs, __entry, args, kwargs):",
            "  try:",
            *(f"  {line}" for line in prologue_body),
            "  except Exception:",
            "    return __cache_miss",
            *(f"  {line}" for line in body),
        ]
    )
    hit_fn = build_callable(name, source, f"thunder.{name}", ctx)
    # As TraceCtx.python_callable does for a prologue: no reference cycle through its globals (the jitted callable)
    del hit_fn.__globals__[name]
    return hit_fn
