"""The nvFuser region call of the fast path (stands for changes to ``thunder/executors/nvfuserex_impl.py``).

Upstream's ``FusionDefinitionWrapper.__call__`` recomputes every tensor input's descriptor (contiguity and stride
order, through an ``lru_cache``, plus a DTensor key) to look the FusionDefinition up, calls
``torch.distributed.is_available()`` twice, scans for AsyncCollectiveTensors and DTensors, enters two profiler
annotations and passes four keyword arguments to ``fd.execute``, whose Python wrapper parses the device again.

``FusionRegion`` replaces it for callables jitted with the fast path (``create_fusion_definition_wrapper`` is
wrapped so that it decides per callable being compiled):

* It keeps the FusionDefinition of the last input layout and reuses it while every tensor input has the same
  type (``torch.Tensor``) and strides (and shape, where the region has symbolic shapes) as last time: Thunder's
  cache does not key on strides, so these can change between calls (Lightning-AI/lightning-thunder#1840 review).
  Any other layout goes through upstream's descriptor cache (``get_fd(to_descriptors(args))``), which builds or
  finds the right definition; anything that is not a plain tensor goes through upstream's wrapper unchanged.
* It calls the definition's ``FusionExecutorCache.execute`` directly, with the device and options resolved once.
* Regions that a DTensor can reach (decided from the region's proxies at fusion time), and all regions while
  Thunder's profiling annotations are enabled or fake inputs are saved, keep upstream's wrapper.

It also registers a minimal legacy ``nvfuser`` module with ``compute_tensor_descriptor``: lightning-thunder 0.2.6
imports that function from ``nvfuser``, which nvFuser 0.2.36 no longer ships (only ``nvfuser_direct``).
"""

from __future__ import annotations

import functools
import importlib.util
import sys
import types

import torch

Tensor = torch.Tensor
_upstream_create_wrapper = None  # upstream's create_fusion_definition_wrapper, once wrapped


class FusionRegion:
    """A drop-in for ``FusionDefinitionWrapper`` (other attributes are read from the upstream wrapper it holds)."""

    __slots__ = ("upstream", "name", "tensor_indices", "check_shapes", "layout", "execute", "last_used",
                 "last_inputs", "store_inputs", "check_layout")

    def __init__(self, upstream, tensor_indices, check_shapes: bool):
        self.upstream = upstream
        self.name = upstream.name
        self.tensor_indices = tensor_indices
        self.check_shapes = check_shapes
        self.check_layout = upstream.use_cache  # nv_skip_cache=True: reuse the first definition, as upstream
        self.layout = None  # ((index, stride[, shape]), ...) of the inputs the current `execute` was made for
        self.execute = None
        self.last_used = None
        self.last_inputs = None
        self.store_inputs = upstream.store_inputs

    def __getattr__(self, name):  # get_fd, cache_info, enable_options, ... of the upstream wrapper
        return getattr(self.upstream, name)

    def __repr__(self):
        return f"FusionRegion({self.name})"

    def __call__(self, *args):
        layout = self.layout
        if layout is not None:
            for entry in layout:
                a = args[entry[0]]
                if type(a) is not Tensor or a.stride() != entry[1] or (len(entry) == 3 and a.shape != entry[2]):
                    break
            else:
                if self.store_inputs:
                    self.last_inputs = args
                return self.execute(args)
        return self.prepare_and_call(args)

    def prepare_and_call(self, args):
        """A layout not seen last time: upstream's descriptor cache, then remember the layout for the next call."""
        if any(type(args[i]) is not Tensor for i in self.tensor_indices):
            # Subclasses (DTensor, AsyncCollectiveTensor, ...) keep upstream's handling.
            self.layout = None
            out = self.upstream(*args)
            self.last_used, self.last_inputs = self.upstream.last_used, self.upstream.last_inputs
            return out
        up = self.upstream
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
        self.execute = functools.partial(fd.fec.execute, **kwargs) if kwargs else fd.fec.execute
        if self.check_layout:
            self.layout = tuple(
                (i, args[i].stride(), args[i].shape) if self.check_shapes else (i, args[i].stride())
                for i in self.tensor_indices
            )
        else:
            self.layout = ()  # the first definition serves every call
        return out


def _create_wrapper(bsyms, name, sorted_unique_inputs, sorted_unique_outputs):
    """Wraps upstream's ``create_fusion_definition_wrapper``: a FusionRegion for callables on the fast path."""
    from thunder.core.compile_data import get_compile_data
    from thunder.core.profile import profiling_enabled
    from thunder.core.proxies import NumberProxy, TensorProxy
    from thunder.torch.experimental.dtensor_proxy import DTensorProxy

    upstream = _upstream_create_wrapper(bsyms, name, sorted_unique_inputs, sorted_unique_outputs)
    cd = get_compile_data()
    if not getattr(cd, "_lc_fastpath", False) or profiling_enabled() or upstream.save_fake_inputs:
        return upstream
    if any(isinstance(p, DTensorProxy) for p in sorted_unique_inputs):
        return upstream
    tensors = [(i, p) for i, p in enumerate(sorted_unique_inputs) if isinstance(p, TensorProxy)]
    symbolic = any(isinstance(d, NumberProxy) for _, p in tensors for d in p._shape)
    return FusionRegion(upstream, tuple(i for i, _ in tensors), check_shapes=symbolic)


def _install_legacy_alias() -> None:
    if "nvfuser" in sys.modules or importlib.util.find_spec("nvfuser") is not None:
        return
    import nvfuser_direct

    legacy = types.ModuleType("nvfuser", "thunder.fastpath: compute_tensor_descriptor from nvfuser_direct")
    legacy.compute_tensor_descriptor = nvfuser_direct.compute_tensor_descriptor
    sys.modules["nvfuser"] = legacy


def install() -> None:
    """Puts the FusionRegion factory in place (once; it picks per compiled callable), where nvFuser is usable."""
    global _upstream_create_wrapper
    from thunder.executors.nvfuserex import nvfuser_available

    if not nvfuser_available():
        return
    _install_legacy_alias()
    import thunder.executors.nvfuserex_impl as impl

    if _upstream_create_wrapper is None:
        _upstream_create_wrapper = impl.create_fusion_definition_wrapper
        impl.create_fusion_definition_wrapper = _create_wrapper
