"""The nvFuser region call of the fast path (stands for changes to ``thunder/executors/nvfuserex_impl.py``).

Thunder's ``FusionDefinitionWrapper.__call__`` recomputes every tensor input's descriptor (contiguity and stride
order, through an ``lru_cache``, plus a DTensor key) to look the FusionDefinition up, calls
``torch.distributed.is_available()`` twice, scans for AsyncCollectiveTensors and DTensors, enters two profiler
annotations and passes four keyword arguments to ``fd.execute``, whose Python wrapper parses the device again.

``FusionRegion`` replaces it for callables jitted with the fast path (``fusion_region``, called at the end of
``create_fusion_definition_wrapper``, decides per callable being compiled):

* It keeps the FusionDefinition of the last input layout and reuses it while every tensor input has the same
  type (``torch.Tensor`` or ``nn.Parameter``), shape and strides as last time, checked in one C++ call (dynamo's
  ``TensorGuards``; a tensor in two input places is checked at the first and by identity at the other): Thunder's
  cache does not key on strides, so these can change between calls (Lightning-AI/lightning-thunder#1840 review).
  Any other layout is first compared with the region's first one (kept, with its definition: coming back to it
  costs one check), then goes through Thunder's descriptor cache (``get_fd(to_descriptors(args))``), which builds
  or finds the right definition; anything that is not a plain tensor goes through Thunder's wrapper unchanged.
* It calls the definition's ``FusionExecutorCache.execute`` directly, with the device and options resolved once.
  Where a computation is nothing but one region call, the cache hit's function does the same without the
  computation's and the region's frames (``single_region_call``), and where no input requires grad and the
  layout's outputs were neither views nor inputs, without switching grad mode off: nvFuser made those outputs
  itself, so grad mode changes nothing about them. While the guard finds the sizes and strides of the call that the
  region's layout was prepared for, the hit also skips the layout check (the guard's own check then implies it).
* Regions that a DTensor can reach (decided from the region's proxies at fusion time), and all regions while
  Thunder's profiling annotations are enabled or fake inputs are saved, keep Thunder's wrapper.
"""

from __future__ import annotations

import functools
import operator
from typing import NamedTuple

import torch

# TensorGuards: private torch API (see guard.py), None without it; regions then keep Thunder's wrapper.
from thunder.fastpath.tensor_checks import TensorGuards, outputs_are_new, same_layout_check

# What the region hands to nvFuser's executor itself; other tensor subclasses go through Thunder's wrapper.
_PLAIN_TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)


class _AnyLayout:
    """The layout check of a region that reuses its first definition whatever the inputs (``nv_skip_cache``)."""

    @staticmethod
    def check(*tensors):
        return True


class _LayoutWithRepeats:
    """The layout check of a region that gets one tensor in two input places or more (``f(x, x)``, a tied weight):
    TensorGuards fails on a tensor passed twice, so it gets each tensor at its first place, and a later place passes
    while it holds the very tensor of that first place."""

    __slots__ = ("first_places", "repeats", "guards")

    def __init__(self, tensors):
        first_place = {}
        self.first_places, self.repeats = [], []  # repeats: (later place, first place)
        for i, t in enumerate(tensors):
            first = first_place.setdefault(id(t), i)
            if first == i:
                self.first_places.append(i)
            else:
                self.repeats.append((i, first))
        self.guards = same_layout_check([tensors[i] for i in self.first_places])

    def check(self, *tensors):
        for later, first in self.repeats:
            if tensors[later] is not tensors[first]:
                return False
        return self.guards.check(*[tensors[i] for i in self.first_places])


class PreparedLayout(NamedTuple):
    """What a region prepared for one layout of its tensor inputs."""

    # `layout.check(*tensors)` passes while every tensor input has the layout's exact type, sizes, strides, dtype,
    # device and dispatch keys (dynamo's TensorGuards: one C++ call for all of them; or _AnyLayout, _LayoutWithRepeats)
    layout: object
    execute: object  # the definition's FusionExecutorCache.execute, with what fd.execute would pass it
    outputs_are_new: bool  # the layout's outputs were neither views nor inputs (see `single_region_call`)
    definition: object  # the FusionDefinition


class FusionRegion:
    """A drop-in for ``FusionDefinitionWrapper``, around the Thunder wrapper that it holds."""

    __slots__ = (
        "upstream",
        "name",
        "tensor_indices",
        "pick_tensors",
        "prepared",
        "first_prepared",
        "last_used",
        "last_inputs",
        "store_inputs",
    )

    def __init__(self, upstream, tensor_indices: tuple[int, ...], n_inputs: int):
        self.upstream = upstream
        self.name = upstream.name
        self.tensor_indices = tensor_indices
        # The region's tensor inputs out of all its inputs, for the layout check (None: all inputs are tensors).
        if tensor_indices == tuple(range(n_inputs)):
            self.pick_tensors = None
        elif not tensor_indices:
            self.pick_tensors = lambda args: ()
        elif len(tensor_indices) == 1:
            index = tensor_indices[0]
            self.pick_tensors = lambda args: (args[index],)
        else:
            self.pick_tensors = operator.itemgetter(*tensor_indices)  # a tuple for two indices or more
        # The PreparedLayout of the last layout, or None. One tuple, so that a reader sees one layout's fields.
        self.prepared = None
        # The first layout's tuple, tried again first whenever the layout changes: coming back to it costs one check,
        # and it stays the same object, which the cache hit that knows it relies on (hit_function.py, entry_layout).
        self.first_prepared = None
        self.last_used = None
        self.last_inputs = None
        self.store_inputs = upstream.store_inputs

    def __repr__(self):
        return f"FusionRegion({self.name})"

    def __call__(self, *args):
        prepared = self.prepared
        tensors = args if self.pick_tensors is None else self.pick_tensors(args)
        if prepared is not None and prepared.layout.check(*tensors):
            if self.store_inputs:
                self.last_inputs = args
            return prepared.execute(args)
        return self.prepare_and_call(args)

    @property
    def same_layout(self):
        """The layout check of the last layout (None: the next call goes through ``prepare_and_call``)."""
        return None if self.prepared is None else self.prepared.layout

    def prepare_and_call(self, args):
        """A layout not seen last time: the first layout again, or Thunder's descriptor cache; then remember the
        layout for the next call."""
        tensors = [args[i] for i in self.tensor_indices]
        if any(type(t) not in _PLAIN_TENSOR_TYPES for t in tensors):
            # Subclasses (DTensor, AsyncCollectiveTensor, ...) keep Thunder's handling.
            self.prepared = None
            out = self.upstream(*args)
            self.last_used, self.last_inputs = self.upstream.last_used, self.upstream.last_inputs
            return out
        up = self.upstream
        first = self.first_prepared
        if first is not None and first.layout.check(*tensors):
            # Back to the first layout: its definition, as the descriptor cache would give it again.
            self.prepared = first
            self.last_used = up.last_used = first.definition
            if self.store_inputs:
                self.last_inputs = up.last_inputs = args
            return first.execute(args)
        if up.use_cache or self.last_used is None:
            self.last_used = up.get_fd(up.to_descriptors(args))
        fd = self.last_used
        up.last_used = fd
        if self.store_inputs:
            self.last_inputs = up.last_inputs = args
        out = fd.execute(
            args,
            device=fd._selected_device,
            save_repro_inputs=up.save_fake_inputs,
            _enable_options=up.enable_options,
            _disable_options=up.disable_options,
        )
        # fd.execute made fd.fec; call it directly from now on, with what fd.execute would pass it.
        kwargs = {}
        device = fd._get_device_index(fd._selected_device)
        if device is not None:
            kwargs["device"] = device
        if up.enable_options or up.disable_options:
            kwargs.update(_enable_options=up.enable_options or [], _disable_options=up.disable_options or [])
        execute = functools.partial(fd.fec.execute, **kwargs) if kwargs else fd.fec.execute
        if not up.use_cache:
            layout = _AnyLayout  # nv_skip_cache=True: the first definition serves every call, as Thunder
        elif len({id(t) for t in tensors}) < len(tensors):
            layout = _LayoutWithRepeats(tensors)
        else:
            layout = same_layout_check(tensors)
        # nv_skip_cache serves every layout with one definition, whose outputs may differ by layout: not "new".
        new_outputs = layout is not _AnyLayout and outputs_are_new(out, args)
        self.prepared = PreparedLayout(layout, execute, new_outputs, fd)
        if self.first_prepared is None:
            self.first_prepared = self.prepared
        return out


class RegionCall(NamedTuple):
    """A computation that is one region call, as positions: the hit function then calls the region's executor
    itself (``hit_function.py``), without the computation's and the region's frames."""

    region: FusionRegion
    arg_positions: tuple[int, ...]  # each region argument's position among the computation's parameters
    tensor_positions: tuple[int, ...]  # the same, for the arguments that the layout check covers, in its order
    returned: tuple[int, ...]  # each of the computation's results, as a position among the region's outputs


def single_region_call(trace, computation) -> RegionCall | None:
    """The ``RegionCall`` of a computation whose trace is its parameters, one ``FusionRegion`` call on them and the
    return of (some of) that call's outputs; ``None`` for any other computation."""
    from thunder.core.prims import PrimIDs

    *body, ret = trace.bound_symbols
    body = [b for b in body if b.sym.id not in (PrimIDs.UNPACK_TRIVIAL, PrimIDs.DEL, PrimIDs.COMMENT)]
    if len(body) != 1 or ret.sym.id != PrimIDs.RETURN or trace.kwargs:
        return None
    call = body[0]
    region = computation.__globals__.get(call.sym.name)
    if type(region) is not FusionRegion or region.store_inputs:
        return None  # store_inputs: the region's own call records last_inputs
    params = [getattr(p, "name", None) for p in trace.args]
    outputs = [getattr(p, "name", None) for p in call.flat_outs]
    args = [getattr(p, "name", None) for p in call.args]
    returned = ret.args[0] if len(ret.args) == 1 else None
    if (
        not isinstance(returned, tuple)
        or len(set(params)) != len(params)
        or any(a is None or a not in params for a in args)
        or len(call.args) != len(call.flat_args)  # nested arguments
        or any(getattr(r, "name", None) not in outputs for r in returned)
    ):
        return None
    arg_positions = tuple(params.index(a) for a in args)
    return RegionCall(
        region,
        arg_positions,
        tuple(arg_positions[i] for i in region.tensor_indices),
        tuple(outputs.index(r.name) for r in returned),
    )


# The rest of FusionDefinitionWrapper's interface, read from the Thunder wrapper. Properties, not __getattr__: a
# class with __getattr__ makes every attribute read in __call__ slower.
for _name in (
    "get_fd",
    "to_descriptors",
    "use_cache",
    "cache_info",
    "cache_clear",
    "save_fake_inputs",
    "enable_options",
    "disable_options",
):
    setattr(FusionRegion, _name, property(operator.attrgetter(f"upstream.{_name}")))
del _name


def fusion_region(wrapper, sorted_unique_inputs):
    """The end of ``create_fusion_definition_wrapper``: a ``FusionRegion`` around Thunder's ``wrapper`` where the
    callable being compiled takes the fast path (its ``fastpath`` compile option), else ``wrapper`` itself."""
    from thunder.core.compile_data import get_compile_option
    from thunder.core.profile import profiling_enabled
    from thunder.core.proxies import TensorProxy
    from thunder.torch.experimental.dtensor_proxy import DTensorProxy

    if TensorGuards is None or not get_compile_option(
        "fastpath", "nvFuser regions reuse the last layout's definition."
    ):
        return wrapper
    if profiling_enabled() or wrapper.save_fake_inputs:
        return wrapper
    if any(isinstance(p, DTensorProxy) for p in sorted_unique_inputs):
        return wrapper
    tensor_indices = tuple(i for i, p in enumerate(sorted_unique_inputs) if isinstance(p, TensorProxy))
    return FusionRegion(wrapper, tensor_indices, len(sorted_unique_inputs))
