"""The prologue's own lines, translated into a guard's steps (part of ``guard.py``'s ``GuardBuilder``).

A prologue trace unpacks the call's arguments (and a module's parameters, buffers and attributes, a function's
globals and closure cells), checks the values it reads (``check_len``, ``check_number_type_and_value``, ...) and the
tensors' metadata (``check_tensor_metadata``), reads the cache info, and returns the computation's inputs.
``PrologueTranslator`` turns each bound symbol into the same unpacking and value checks in Python source, through a
table keyed by the symbol's id; it collects the tensor checks (made at once, ``tensor_checks.py``) and the cache-info
values (checked against torch's state, ``state_checks.py``). Each value also gets a path in words (``args[0] (x)``,
``self.lin.weight``) for explaining a miss.
"""

from __future__ import annotations

import functools
import weakref
from numbers import Number

import torch

import thunder
from thunder.core.prims import PrimIDs
from thunder.core.proxies import Proxy
from thunder.fastpath.codegen import block
from thunder.fastpath.guard_steps import Reason, Step, Unsupported, ValueReason, bind, miss_if, miss_unless
from thunder.fastpath.state_checks import CACHE_INFO_KEYS
from thunder.fastpath.tensor_checks import TensorSpec


def thunder_module_in(compile_data, model):
    """``thunder.core.module.get_thunder_module(model)``, with the compile data given instead of read from the
    context that Thunder's call sets: the ThunderModule made for ``model``, else ``model`` itself."""
    tm = compile_data._thunder_module_map.get(id(model))
    if tm and tm._model is not model:
        tm = None
    return model if tm is None else tm


class PrologueTranslator:
    """Translates one prologue trace, bound symbol by bound symbol (``_HANDLERS``), into ``steps``."""

    def __init__(self, trace, *, thunder_module, compile_data, constant, namespace, arg_names=(), cache_note=""):
        self.trace = trace
        self.thunder_module = thunder_module
        self.compile_data = compile_data
        self.constant = constant  # a codegen.Constants: the guard's source for a value
        self.namespace = namespace
        self.arg_names = tuple(arg_names)  # the function's positional parameters, to name args[i] in explanations
        self.cache_note = cache_note  # said of Python values' checks in explanations
        self.steps: list[Step] = []
        self.tensors: list[TensorSpec] = []
        self.paths: dict[str, str] = {}  # name -> the value's path in words
        self.cache_info_name: str | None = None
        self.cache_info_items: dict[str, str] = {}  # proxy name -> cache_info key
        self.expected_state: dict = {}  # cache_info key -> expected value
        self.checked: set[str] = set()  # names of leaves whose type the guard establishes
        self.top_level: dict[str, tuple] = {}  # name -> ("args", index) | ("kwargs", key)
        self.arg_counts: dict[str, int] = {}
        self.thunder_module_names: set[str] = set()
        self.function_obj_names: set[str] = set()
        self.hoisted: set[str] = set()  # locals bound once per guard (a ThunderModule's dicts, its model)
        # Parameters read from the jitted module's ThunderModule's _overrides_parameters (see tensor_check_steps)
        self.overridden_parameters: set[str] = set()
        self.returned = None

    def translate(self) -> list[Step]:
        # Names read by anything but a jitted module's unpack_thunder_module, which the guard resolves through a
        # weak reference instead: the function object is unpacked only when something else reads it.
        self.read_names = {
            p.name
            for b in self.trace.bound_symbols
            if b.sym.id != PrimIDs.UNPACK_THUNDER_MODULE or self.thunder_module is None
            for p in b.flat_proxy_args
        }
        for bsym in self.trace.bound_symbols:
            for p in bsym.flat_outs:
                if isinstance(p, Proxy) and (p.name.startswith("__") or p.name == "torch"):
                    raise Unsupported(f"trace name {p.name!r} would shadow the guard's own names")
            handler = _HANDLERS.get(bsym.sym.id)
            if handler is None:
                raise Unsupported(f"prologue symbol {bsym.sym.id}")
            handler(self, bsym.sym.id, bsym.args, bsym.output)
        if self.returned is None:
            raise Unsupported("prologue without return")
        return self.steps

    # -- helpers -----------------------------------------------------------------------------------
    def emit(self, step: Step) -> None:
        self.steps.append(step)

    def hoist(self, local: str, expression: str) -> str:
        """Binds ``expression`` to ``local`` where it is first needed, once per guard; returns ``local``."""
        if local not in self.hoisted:
            self.hoisted.add(local)
            self.emit(bind(local, expression))
        return local

    def path(self, name: str) -> str:
        return self.paths.get(name, name)

    def value_reason(self, name: str, expected) -> Reason:
        return ValueReason(self.path(name), repr(expected), name, note=self.cache_note, value=expected)

    # -- unpacking ---------------------------------------------------------------------------------
    def unpack_trivial(self, sid, args, out) -> None:
        if getattr(out, "name", None) not in ("args", "kwargs"):
            raise Unsupported("unpack_trivial of an unknown value")
        self.paths[out.name] = out.name

    def unpack_getitem(self, sid, args, out) -> None:
        container, key = args
        if container.name == self.cache_info_name:
            if key not in CACHE_INFO_KEYS:
                raise Unsupported(f"cache_info[{key!r}]")
            self.cache_info_items[out.name] = key
            return
        if type(key) not in (int, str):
            raise Unsupported(f"subscript {type(key).__name__}")
        if container.name in ("args", "kwargs"):
            self.top_level[out.name] = (container.name, key)
        self.paths[out.name] = self.item_path(container.name, key)
        self.emit(bind(out.name, f"{container.name}[{key!r}]"))

    def item_path(self, container: str, key) -> str:
        base = self.path(container)
        if container == "args" and type(key) is int and key < len(self.arg_names):
            return f"args[{key}] ({self.arg_names[key]})"
        if base.endswith(".__globals__"):
            return f"global {key}"
        return f"{base}[{key!r}]"

    def unpack_attr(self, sid, args, out) -> None:
        obj, name = args
        if not name.isidentifier():
            raise Unsupported(f"attribute {name!r}")
        self.paths[out.name] = f"{self.path(obj.name)}.{name}"
        if (
            obj.name in self.thunder_module_names
            and not hasattr(type(self.thunder_module), name)
            and name not in self.thunder_module.__dict__
        ):
            # ThunderModule forwards unknown attributes to the wrapped model through a slow __getattr__;
            # read the model directly unless the ThunderModule's own __dict__ has the name by now.
            tm_dict = self.hoist(f"__{obj.name}_dict", f"{obj.name}.__dict__")
            model = self.hoist(f"__{obj.name}_model", f"{tm_dict}['_modules']['_model']")
            self.emit(bind(out.name, f"{tm_dict}[{name!r}] if {name!r} in {tm_dict} else {model}.{name}"))
        else:
            self.emit(bind(out.name, f"{obj.name}.{name}"))

    def unpack_function_obj(self, sid, args, out) -> None:
        self.function_obj_names.add(out.name)
        self.paths[out.name] = getattr(self.trace.fn, "__name__", "the function")
        if out.name in self.read_names:
            self.namespace["__function_obj"] = self.trace.fn
            self.emit(bind(out.name, "__function_obj"))

    def unpack_thunder_module(self, sid, args, out) -> None:
        if self.thunder_module is not None and args[0].name in self.function_obj_names:
            # The jitted module's own ThunderModule, held weakly (it holds this guard).
            self.namespace["__thunder_module"] = weakref.ref(self.thunder_module)
            self.emit(bind(out.name, "__thunder_module()"))
            self.thunder_module_names.add(out.name)
            self.paths[out.name] = "self"
            return
        # Any other module: a function's (thunder.jit(model.forward)) or one that the code reaches through
        # globals or a closure. The prologue asks the compile data for its ThunderModule (get_thunder_module),
        # which is the module itself where there is none; its members are then read as the prologue reads them.
        if self.compile_data is None:
            raise Unsupported("a module's ThunderModule, without the compile data")
        self.namespace["__get_thunder_module"] = functools.partial(thunder_module_in, self.compile_data)
        self.paths[out.name] = self.path(args[0].name)
        self.emit(bind(out.name, f"__get_thunder_module({args[0].name})"))

    def unpack_module_member(self, sid, args, out) -> None:
        module, name = args
        overrides, getter = {
            PrimIDs.UNPACK_PARAMETER: ("_overrides_parameters", "get_parameter"),
            PrimIDs.UNPACK_BUFFER: ("_overrides_buffers", "get_buffer"),
            PrimIDs.UNPACK_SUBMODULE: ("_module_cache", "get_submodule"),
        }[sid]
        self.paths[out.name] = f"{self.path(module.name)}.{name}"
        if module.name not in self.thunder_module_names:
            self.emit(bind(out.name, f"{module.name}.{getter}({name!r})"))  # as the prologue's unpack does
            return
        # ThunderModule.get_parameter and friends: an override dict first, then the wrapped model.
        local = self.hoist(f"__{module.name}{overrides}", f"{module.name}.{overrides}")
        lines = [f"{out.name} = {local}.get({name!r}, __null)"]
        if sid != PrimIDs.UNPACK_PARAMETER:
            lines.append(f"if {out.name} is __null: {out.name} = {module.name}.{getter}({name!r})")
            self.emit(Step(tuple(lines)))
            return
        self.overridden_parameters.add(out.name)
        # Not from the dict: checked for a nested tensor here (tensor_check_steps leaves it out).
        lines += block(
            f"if {out.name} is __null:",
            [f"{out.name} = {module.name}.{getter}({name!r})", miss_if(f"{out.name}.is_nested")],
        )
        self.emit(Step(tuple(lines), Reason(self.path(out.name), "a strided tensor", "'a nested tensor'", words=True)))

    def unpack_cache_info(self, sid, args, out) -> None:
        self.cache_info_name = out.name

    def unpack_shape(self, sid, args, out) -> None:
        names = ", ".join(p.name for p in out)
        for i, p in enumerate(out):
            self.paths[p.name] = f"{self.path(args[0].name)}.shape[{i}]"
        self.emit(bind(f"({names},)", f"{args[0].name}.shape"))

    # -- checks ------------------------------------------------------------------------------------
    def check_len(self, sid, args, out) -> None:
        container, n = args[0].name, int(args[1])
        what = {"args": "positional arguments", "kwargs": "keyword arguments"}.get(container, self.path(container))
        self.emit(miss_unless(f"len({container}) == {n}", Reason(f"number of {what}", str(n), f"len({container})")))
        self.arg_counts[container] = n

    def check_tensor_metadata(self, sid, args, out) -> None:
        t, shape, device, dtype, requires_grad = args
        shape = tuple(None if isinstance(d, Proxy) else int(d) for d in shape)
        if not isinstance(dtype, torch.dtype):
            dtype = thunder.core.dtypes.to_torch_dtype(dtype)
        self.tensors.append(TensorSpec(t.name, shape, str(device), dtype, bool(requires_grad)))
        self.checked.add(t.name)

    def is_cache_info(self, subject, args) -> bool:
        """A check of a cache-info value records what the entry expects; the state checks compare it."""
        if subject.name not in self.cache_info_items:
            return False
        self.expected_state[self.cache_info_items[subject.name]] = args[1] if len(args) > 1 else None
        return True

    def check_none(self, sid, args, out) -> None:
        if self.is_cache_info(args[0], args):
            return
        name = args[0].name
        self.emit(miss_unless(f"{name} is None", Reason(self.path(name), "None", name)))
        self.checked.add(name)

    def check_equal(self, sid, args, out) -> None:
        # check_string_value and check_literal_like: the prologue compares with ==
        if self.is_cache_info(args[0], args):
            return
        name = args[0].name
        self.emit(miss_unless(f"{name} == {self.constant(args[1])}", self.value_reason(name, args[1])))
        if sid != "check_literal_like":
            self.checked.add(name)

    def check_slice(self, sid, args, out) -> None:
        if self.is_cache_info(args[0], args):
            return
        # The prologue compares with == alone; an equal non-slice goes Thunder's way.
        name = args[0].name
        condition = f"type({name}) is slice and {name} == {self.constant(args[1])}"
        self.emit(miss_unless(condition, self.value_reason(name, args[1])))
        self.checked.add(name)

    def check_number(self, sid, args, out) -> None:
        if self.is_cache_info(args[0], args):
            return
        name, value = args[0].name, args[1]
        if not isinstance(value, Number):
            raise Unsupported(f"number check of {type(value).__name__}")
        typ = self.constant(type(value))
        reason = self.value_reason(name, value)
        if value != value:  # NaN matches NaN
            self.emit(miss_unless(f"type({name}) is {typ} and {name} != {name}", reason))
        else:
            self.emit(miss_unless(f"type({name}) is {typ} and {name} == {self.constant(value)}", reason))
        self.checked.add(name)

    def check_instance(self, sid, args, out) -> None:
        # Under "symbolic values" a number's type, where the prologue checks it: the prologue calls isinstance.
        if self.is_cache_info(args[0], args):
            return
        name, types = args[0].name, tuple(args[1])
        if not all(isinstance(typ, type) for typ in types):
            raise Unsupported(f"check_instance of {types!r}")
        names = " or ".join(typ.__name__ for typ in types)
        reason = Reason(self.path(name), f"an instance of {names}", f"type({name}).__name__", words=True)
        self.emit(miss_unless(f"isinstance({name}, {self.constant(types)})", reason))
        if not any(issubclass(typ, torch.Tensor) for typ in types):
            self.checked.add(name)  # not a tensor: the alias check need not look at it

    def return_(self, sid, args, out) -> None:
        self.returned = args[0]


# The translation of each prologue symbol, by its id. A table of the class's functions, not of bound methods: a
# translator that held its own bound methods would be a reference cycle, and it holds the jitted module until freed.
_HANDLERS = {
    PrimIDs.UNPACK_TRIVIAL: PrologueTranslator.unpack_trivial,
    "check_len": PrologueTranslator.check_len,
    PrimIDs.UNPACK_GETITEM: PrologueTranslator.unpack_getitem,
    PrimIDs.UNPACK_ATTR: PrologueTranslator.unpack_attr,
    PrimIDs.UNPACK_FUNCTION_OBJ: PrologueTranslator.unpack_function_obj,
    PrimIDs.UNPACK_THUNDER_MODULE: PrologueTranslator.unpack_thunder_module,
    PrimIDs.UNPACK_PARAMETER: PrologueTranslator.unpack_module_member,
    PrimIDs.UNPACK_BUFFER: PrologueTranslator.unpack_module_member,
    PrimIDs.UNPACK_SUBMODULE: PrologueTranslator.unpack_module_member,
    PrimIDs.UNPACK_CACHE_INFO: PrologueTranslator.unpack_cache_info,
    "shape": PrologueTranslator.unpack_shape,
    "check_tensor_metadata": PrologueTranslator.check_tensor_metadata,
    "check_number_type_and_value": PrologueTranslator.check_number,
    "check_string_value": PrologueTranslator.check_equal,
    "check_literal_like": PrologueTranslator.check_equal,
    "check_none": PrologueTranslator.check_none,
    "check_slice_value": PrologueTranslator.check_slice,
    "check_instance": PrologueTranslator.check_instance,
    PrimIDs.RETURN: PrologueTranslator.return_,
}
