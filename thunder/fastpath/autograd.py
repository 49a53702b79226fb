"""The autograd connection of a cache hit (stands for changes to ``thunder/executors/torch_autograd.py``).

Upstream's ``connect_to_autograd`` joins a computation's outputs to PyTorch's autograd graph through two
autograd Functions, ``ThunderFunction`` and ``ThunderOutputFunction``, linked by a one-element tensor on the meta
device ("split autograd"). Both that tensor (``ThunderFunction.forward``) and the gradient returned for it
(``ThunderOutputFunction.backward``) are made with ``torch.randn``, which on the meta device runs through Python
decompositions: about 15 µs each on the developers' CPU, two per training step, for tensors that hold no data.
The classes here are upstream's with those two tensors made by ``torch.empty`` (under 1 µs): same shape, dtype,
device and ``requires_grad``, no random state touched either way. The two methods that make them are restated
(``ThunderFunction.forward`` only for the split); ``ThunderFunction.backward`` and ``ThunderOutputFunction.forward``
are upstream's, inherited, and the class names stay upstream's, so ``grad_fn.name()`` does too. Calls that upstream
connects without the split (CUDA-graph capture, ``thunderfx_disable_split_autograd``) go to upstream's function.
"""

from __future__ import annotations

import torch

from thunder.executors import torch_autograd as upstream
from thunder.executors.utils import is_cudagraph_capturing


class ThunderFunction(upstream.ThunderFunction):
    """Upstream's ThunderFunction for split autograd (a side channel is given), with an empty link tensor."""

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
        # ThunderOutputFunction saves these; views are detached first, as upstream does (a saved view of a Function's
        # output leaks: pytorch/pytorch#94990).
        side_channel["fw"] = flat_output
        side_channel["tensors_to_save"] = tuple(
            t.detach() if isinstance(t, torch.Tensor) and t._base is not None else t for t in saved_tensors
        )
        return torch.empty(1, device="meta", requires_grad=True)


class ThunderOutputFunction(upstream.ThunderOutputFunction):
    """Upstream's ThunderOutputFunction, whose backward returns an empty gradient for the link tensor."""

    @staticmethod
    def backward(ctx, *grads):
        ctx.side_channel["bw"] = list(grads)
        ctx.side_channel["saved_tensors"] = list(ctx.saved_tensors)
        ctx.maybe_clear_saved_tensors()  # the compiled backward frees them as it goes
        return torch.empty(1, device="meta"), None, *([None] * ctx.num_args)


def connect_to_autograd(
    *,
    backward_fn,
    flat_args,
    flat_output,
    saved_tensors,
    saved_other,
    return_none_instead_of_grads,
    disable_split_autograd,
    is_differentiable_outputs,
):
    """``thunder.executors.torch_autograd.connect_to_autograd`` with the classes above where it splits."""
    if (
        disable_split_autograd
        or is_differentiable_outputs is not None
        or not torch.is_grad_enabled()
        or is_cudagraph_capturing()
    ):
        # Upstream's function: its enable_grad, its checks and its unsplit Function.
        return upstream.connect_to_autograd(
            backward_fn=backward_fn,
            flat_args=flat_args,
            flat_output=flat_output,
            saved_tensors=saved_tensors,
            saved_other=saved_other,
            return_none_instead_of_grads=return_none_instead_of_grads,
            disable_split_autograd=disable_split_autograd,
            is_differentiable_outputs=is_differentiable_outputs,
        )
    side_channel = {}
    link = ThunderFunction.apply(
        return_none_instead_of_grads,
        backward_fn,
        side_channel,
        saved_tensors,
        saved_other,
        None,
        flat_output,
        *flat_args,
    )
    # The inputs go along so that an output that is an input as it is does not become a leaf inside the graph.
    ThunderOutputFunction.apply(link, side_channel, *flat_args)
