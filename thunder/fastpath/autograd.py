"""The autograd connection of a cache hit (stands for changes to ``thunder/executors/torch_autograd.py``).

Thunder's ``connect_to_autograd`` joins a computation's outputs to PyTorch's autograd graph through two autograd
Functions, ``ThunderFunction`` and ``ThunderOutputFunction``, linked by a one-element tensor on the meta device
("split autograd"). The classes here are Thunder's, with the same names (so ``grad_fn.name()`` and the graph's
structure stay Thunder's), changed where a training step pays for nothing:

* The link tensor (``ThunderFunction.forward``) and its gradient (``ThunderOutputFunction.backward``) are made by
  ``torch.empty``, not ``torch.randn``, which on the meta device runs Python decompositions: same shape, dtype,
  device and ``requires_grad``, no random state touched either way.
* ``AutogradConnection`` applies both Functions through the C++ ``apply`` when no functorch transform is active:
  ``torch.autograd.Function.apply``'s Python wrapper then only binds arguments that need no binding and unwraps
  functorch wrappers that the guard has ruled out (it declines such tensors).
* ``ThunderFunction.backward`` runs the compiled backward without Thunder's ``once_differentiable`` wrapper and the
  backward's ``torch.no_grad``/``no_autocast`` decorators where they change nothing: the autograd engine calls it with
  grad mode off unless ``create_graph=True`` (then Thunder's backward runs, with its error for a second-order
  backward), and with autocast off unless the caller's backward runs under autocast (then the decorated one runs).

Calls that Thunder connects without the split (CUDA-graph capture, ``thunderfx_disable_split_autograd``,
``is_differentiable_outputs``) go to Thunder's function.
"""

from __future__ import annotations

import types

import torch

from thunder.executors import pythonex
from thunder.executors import torch_autograd as upstream
from thunder.executors.utils import is_cudagraph_capturing

_is_grad_enabled = torch.is_grad_enabled
_is_any_autocast_enabled = torch._C._is_any_autocast_enabled
_functorch_transforms_active = torch._C._are_functorch_transforms_active


def _clear_mutable_collection(a) -> None:
    """pythonex's ``clear_mutable_collection``, with lists (what a compiled backward passes it) first: Thunder's tests
    ``isinstance`` against three ABCs, about 0.2 µs each call, four calls or more per backward."""
    if type(a) is list:
        a.clear()
    else:
        _upstream_clear_mutable_collection(a)


_upstream_clear_mutable_collection = pythonex._clear_mutable_collection_prim_impl


class CompiledBackward:
    """An entry's compiled backward, as Thunder decorates it and bare (``__wrapped__`` of its ``torch.no_grad`` and
    ``no_autocast`` layers, with ``_clear_mutable_collection`` for pythonex's). Calling it calls the decorated one, as
    Thunder's ``ThunderFunction.backward`` does."""

    __slots__ = ("decorated", "bare")

    def __init__(self, backward_fn):
        self.decorated = backward_fn
        bare = backward_fn
        while hasattr(bare, "__wrapped__"):
            bare = bare.__wrapped__
        if bare.__globals__.get("clear_mutable_collection") is _upstream_clear_mutable_collection:
            # The same code with its own globals: Thunder's function is left as it is.
            namespace = {**bare.__globals__, "clear_mutable_collection": _clear_mutable_collection}
            bare = types.FunctionType(bare.__code__, namespace, bare.__name__, bare.__defaults__, bare.__closure__)
        self.bare = bare

    def __call__(self, saved_for_backward, cotangents):
        return self.decorated(saved_for_backward, cotangents)


class ThunderFunction(upstream.ThunderFunction):
    """Thunder's ThunderFunction for split autograd (a side channel is given), with an empty link tensor and a
    backward without the layers that change nothing."""

    @staticmethod
    def forward(
        ctx,
        return_none_instead_of_grads,
        compiled_backward,
        side_channel,
        saved_tensors,
        saved_other,
        is_differentiable_outputs,
        flat_output,
        *flat_args,
    ):
        ctx.return_none_instead_of_grads = return_none_instead_of_grads
        ctx.saved_other = saved_other
        ctx.compiled_backward = compiled_backward
        ctx.side_channel = side_channel
        # ThunderOutputFunction saves these; views are detached first, as Thunder does (a saved view of a Function's
        # output leaks: pytorch/pytorch#94990).
        side_channel["fw"] = flat_output
        side_channel["tensors_to_save"] = tuple(
            t.detach() if isinstance(t, torch.Tensor) and t._base is not None else t for t in saved_tensors
        )
        return torch.empty(1, device="meta", requires_grad=True)

    @staticmethod
    def backward(ctx, *raw_args):
        if _is_grad_enabled():  # create_graph=True: Thunder's once_differentiable backward
            return upstream.ThunderFunction.backward(ctx, *raw_args)
        side_channel = ctx.side_channel
        args = side_channel.pop("bw")
        saved_tensors_list = side_channel.pop("saved_tensors")
        assert not side_channel
        compiled = ctx.compiled_backward
        backward_fn = compiled.decorated if _is_any_autocast_enabled() else compiled.bare
        grads = backward_fn([saved_tensors_list, ctx.saved_other], args)
        # The compiled backward empties both lists as it goes, which frees each saved tensor as soon as it is used.
        assert not args
        assert not saved_tensors_list, "saved_tensors_list must be empty after calling compiled_backward"
        if ctx.return_none_instead_of_grads:
            return (None,) * (7 + len(grads))
        return (None, None, None, None, None, None, None, *grads)


class ThunderOutputFunction(upstream.ThunderOutputFunction):
    """Thunder's ThunderOutputFunction, whose backward returns an empty gradient for the link tensor."""

    @staticmethod
    def backward(ctx, *grads):
        ctx.side_channel["bw"] = list(grads)
        ctx.side_channel["saved_tensors"] = list(ctx.saved_tensors)
        ctx.maybe_clear_saved_tensors()  # the compiled backward frees them as it goes
        return torch.empty(1, device="meta"), None, *([None] * ctx.num_args)


# torch.autograd.Function.apply's C++ part (torch._C._FunctionBase.apply), bound to each class.
_apply_thunder_function = super(torch.autograd.Function, ThunderFunction).apply
_apply_output_function = super(torch.autograd.Function, ThunderOutputFunction).apply


class AutogradConnection:
    """How one cache entry's outputs join PyTorch's autograd graph on a hit: Thunder's ``maybe_connect_to_autograd``
    for that entry. ``connection(result)`` takes the computation's result and returns the outputs that the epilogue
    gets."""

    __slots__ = ("backward", "return_none_instead_of_grads", "disable_split_autograd", "is_differentiable_outputs")

    def __init__(self, entry, *, disable_split_autograd: bool, is_differentiable_outputs):
        self.backward = CompiledBackward(entry.backward_fn)
        self.return_none_instead_of_grads = entry.return_none_instead_of_grads
        self.disable_split_autograd = disable_split_autograd
        self.is_differentiable_outputs = is_differentiable_outputs

    def __call__(self, result):
        data_for_autograd, (saved_tensors, saved_other) = result
        flat_args = data_for_autograd["flat_args"]
        if (
            self.disable_split_autograd
            or self.is_differentiable_outputs is not None
            or not _is_grad_enabled()
            or is_cudagraph_capturing()
        ):
            self.connect_as_upstream(data_for_autograd, saved_tensors, saved_other)
            return data_for_autograd["output"]
        if _functorch_transforms_active():  # Function.apply's functorch handling
            apply_function, apply_output_function = ThunderFunction.apply, ThunderOutputFunction.apply
        else:
            apply_function, apply_output_function = _apply_thunder_function, _apply_output_function
        side_channel = {}
        link = apply_function(
            self.return_none_instead_of_grads,
            self.backward,
            side_channel,
            saved_tensors,
            saved_other,
            None,
            data_for_autograd["flat_output"],
            *flat_args,
        )
        # The inputs go along so that an output that is an input as it is does not become a leaf inside the graph.
        apply_output_function(link, side_channel, *flat_args)
        return data_for_autograd["output"]

    def connect_as_upstream(self, data_for_autograd, saved_tensors, saved_other) -> None:
        """Thunder's function: its enable_grad, its checks, its unsplit Function where it does not split."""
        upstream.connect_to_autograd(
            backward_fn=self.backward.decorated,
            flat_args=data_for_autograd["flat_args"],
            flat_output=data_for_autograd["flat_output"],
            saved_tensors=saved_tensors,
            saved_other=saved_other,
            return_none_instead_of_grads=self.return_none_instead_of_grads,
            disable_split_autograd=self.disable_split_autograd,
            is_differentiable_outputs=self.is_differentiable_outputs,
        )
