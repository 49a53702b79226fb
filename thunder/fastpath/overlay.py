"""The fast path on a Thunder without its entry points (lightning-thunder 0.2.6): installs them at import.

This is the one place where the fast path rebinds upstream attributes, each standing for a change that the
``upstream/`` stack of pull requests makes to Thunder's source:

* ``thunder.jit``: upstream's, with the ``fastpath`` keyword (``switch.compile_option``) put into the compile options,
  and ``entry.fast_jitted`` applied to what it returns;
* in the ``fn_`` that such a ``thunder.jit`` made, the cache lookup that it calls (the closure variable
  ``get_computation_and_inputs``): upstream's, recording the entry that it returns (``entry.LookupRecord``);
* ``thunder.executors.nvfuserex_impl.create_fusion_definition_wrapper``: upstream's, then ``nvfuser.fusion_region``;
* ``thunder.dynamo.compiler.ThunderCompiler.__call__``: upstream's, then ``thunderfx.thunderfx_graph``, installed when
  ``thunder.dynamo.compiler`` is first imported (it imports parts of inductor, which ``import thunder`` does not);
* where nvFuser is usable and the legacy ``nvfuser`` module is missing: a minimal ``nvfuser`` module with
  ``compute_tensor_descriptor``, which lightning-thunder 0.2.6 imports from it and nvFuser 0.2.36 no longer ships
  (only ``nvfuser_direct``). Thunder's main imports it from ``nvfuser_direct`` itself.

Importing ``thunder.fastpath`` here also turns the fast path on for callables jitted afterwards, unless
``THUNDER_FASTPATH`` says otherwise (``switch.turn_on_by_default``).
"""

from __future__ import annotations

import functools
import importlib.abc
import importlib.util
import inspect
import sys
import types

import thunder
from thunder.core.module import ThunderModule
from thunder.fastpath import switch
from thunder.fastpath.entry import LookupRecord, fast_jitted
from thunder.fastpath.nvfuser import fusion_region

# Keep the originals if this module is imported twice (importlib.reload, or two import paths).
_upstream_jit = getattr(thunder.jit, "_lc_upstream_jit", thunder.jit)


def thunder_has_entry_points() -> bool:
    """Whether the installed Thunder calls the fast path's entry points itself (its ``thunder.jit`` takes
    ``fastpath=``)."""
    return "fastpath" in inspect.signature(_upstream_jit).parameters


@functools.wraps(_upstream_jit)
def jit(fn, /, *, fastpath: bool | None = None, **options):
    options.update(switch.compile_option(fastpath))
    jitted = _upstream_jit(fn, **options)
    if not options.get("fastpath", False):
        return jitted
    return fast_jitted(jitted, _record_lookups(jitted))


jit._lc_upstream_jit = _upstream_jit


def _record_lookups(jitted) -> LookupRecord:
    """Makes the ``fn_`` of ``jitted`` record the entries that its cache lookups return, as the stack's ``jit``
    does when it makes ``fn_``: here by rebinding ``fn_``'s closure cell ``get_computation_and_inputs``. ``fn_`` is
    what ``update_call_statistics`` wraps (its closure cell ``fn``); ``jit`` rebinds that wrapper by ``@wraps`` only."""
    wrapper = jitted._forward_fn if isinstance(jitted, ThunderModule) else jitted
    fn_ = _closure_cell(wrapper, "fn").cell_contents
    cell = _closure_cell(fn_, "get_computation_and_inputs")
    lookups = LookupRecord()
    cell.cell_contents = lookups.recording(cell.cell_contents)
    return lookups


def _closure_cell(function, name: str):
    code = function.__code__
    if name not in code.co_freevars:
        raise RuntimeError(
            f"thunder.fastpath: {function.__qualname__} has no closure variable {name!r}; this lightning-thunder is"
            " not the release that the fast path's overlay is made for (0.2.6)"
        )
    return function.__closure__[code.co_freevars.index(name)]


def _signature_with_fastpath(upstream) -> inspect.Signature:
    # Upstream's parameters plus `fastpath`: code that reads jit's keyword names (ThunderFX's
    # get_thunder_jit_kwargs uses inspect.getfullargspec, which does not follow __wrapped__) sees all of them.
    sig = inspect.signature(upstream)
    if "fastpath" in sig.parameters:  # a Thunder that has the entry points: this module is imported, not installed
        return sig
    params = list(sig.parameters.values())
    fastpath = inspect.Parameter("fastpath", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=bool | None)
    at = next((i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_KEYWORD), len(params))
    return sig.replace(parameters=params[:at] + [fastpath] + params[at:])


jit.__signature__ = _signature_with_fastpath(_upstream_jit)


def _install_fusion_region() -> None:
    from thunder.executors.nvfuserex import nvfuser_available

    if not nvfuser_available():
        return
    _install_legacy_nvfuser_module()
    import thunder.executors.nvfuserex_impl as impl

    create = impl.create_fusion_definition_wrapper
    if getattr(create, "_lc_upstream", None) is not None:
        return  # installed already

    def create_fusion_definition_wrapper(bsyms, name, sorted_unique_inputs, sorted_unique_outputs):
        return fusion_region(create(bsyms, name, sorted_unique_inputs, sorted_unique_outputs), sorted_unique_inputs)

    create_fusion_definition_wrapper._lc_upstream = create
    impl.create_fusion_definition_wrapper = create_fusion_definition_wrapper


def _install_legacy_nvfuser_module() -> None:
    if "nvfuser" in sys.modules or importlib.util.find_spec("nvfuser") is not None:
        return
    import nvfuser_direct

    legacy = types.ModuleType("nvfuser", "thunder.fastpath: compute_tensor_descriptor from nvfuser_direct")
    legacy.compute_tensor_descriptor = nvfuser_direct.compute_tensor_descriptor
    sys.modules["nvfuser"] = legacy


def _install_thunderfx_graph(compiler_module) -> None:
    from thunder.fastpath.thunderfx import thunderfx_graph

    compiler = compiler_module.ThunderCompiler
    upstream_call = compiler.__call__
    if getattr(upstream_call, "_lc_upstream", None) is not None:
        return  # installed already

    @functools.wraps(upstream_call)
    def __call__(self, gm, sample_args, **compile_options):
        return thunderfx_graph(upstream_call(self, gm, sample_args, **compile_options), self.thunder_options)

    __call__._lc_upstream = upstream_call
    compiler.__call__ = __call__


class _AfterImport(importlib.abc.MetaPathFinder):
    """Calls ``then(module)`` once the module named ``name`` has been executed by its first import."""

    def __init__(self, name: str, then):
        self.name, self.then = name, then

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)  # the finders after this one, as the import would have asked
        execute, then = spec.loader.exec_module, self.then

        def exec_module(module):
            execute(module)
            then(module)

        spec.loader.exec_module = exec_module  # this spec's own loader instance
        return spec


def _when_imported(name: str, then) -> None:
    if name in sys.modules:
        then(sys.modules[name])
    elif not any(isinstance(f, _AfterImport) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport(name, then))


def install() -> None:
    """Installs the entry points (once) and turns the fast path on."""
    switch.turn_on_by_default()
    thunder.jit = jit
    _install_fusion_region()
    _when_imported("thunder.dynamo.compiler", _install_thunderfx_graph)
