"""Does the fast path change what lightning-thunder's test_parse_resnet18 compares? (session 32, call B)

    python resnet18_calls.py [--repeats 1]

Call A's one difference (test_update_aliases' test_parse_resnet18, torch executor, float32, train=True: failed with
the fast path on, passed off, in runs that each spread the tests over 7 pytest-xdist workers) is a tolerance check
of a jitted resnet18's first call against eager (atol 1e-4). A first call goes through upstream's path with or
without the fast path. Here, in one process, each configuration of that test is jitted twice from identical models
and inputs, with the fast path off and on, and called twice (a miss, then a hit): the outputs are compared bitwise,
and each one's largest difference from eager is printed, with whether it is within the test's tolerance. Then the
same with TF32 convolutions off (the test's fixture sets NVIDIA_TF32_OVERRIDE=0, which may not act when set after
CUDA has started in that process, if it acts then at all: under xdist a worker has run other tests first).
"""

import argparse
import copy

import torch
import torchvision

import thunder
import thunder.fastpath  # noqa: F401


def one_config(executor, dtype, train, repeats):
    torch.manual_seed(42)
    model = torchvision.models.resnet18(weights=None).to(device="cuda", dtype=dtype)
    model = model.train() if train else model.eval()
    x = torch.randn(1, 3, 224, 224, device="cuda", dtype=dtype)
    ctx = torch.enable_grad if train else torch.no_grad
    line = []
    for r in range(repeats):
        models = {name: copy.deepcopy(model) for name in ("eager", "upstream", "fast")}
        with ctx():
            eager = models["eager"](x)
            up = thunder.jit(models["upstream"], fastpath=False, executors=[executor])
            fast = thunder.jit(models["fast"], fastpath=True, executors=[executor])
            outs = {}
            for call in (1, 2):
                outs[("upstream", call)] = up(x)
                outs[("fast", call)] = fast(x)
        hits = (thunder.cache_hits(up), thunder.cache_hits(fast))
        same = all(torch.equal(outs[("upstream", c)], outs[("fast", c)]) for c in (1, 2))
        diffs = {k: (v - eager).abs().max().item() for k, v in outs.items()}
        close = {k: _close(eager, v) for k, v in outs.items()}
        line.append(
            f"  repeat {r}: fast == upstream bitwise (calls 1, 2): {same}; hits (upstream, fast) {hits}; "
            + "; ".join(f"{k[0]} call {k[1]} max|diff| {diffs[k]:.3g} {'ok' if close[k] else 'NOT within the test tolerance'}"
                        for k in sorted(outs))
        )
    return line


def _close(a, b):
    try:
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-1)
        return True
    except AssertionError:
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    executors = {"torch": thunder.executors.get_torch_executor(), "nvfuser": thunder.executors.get_nvfuser_executor()}
    for tf32 in (True, False):
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        print(f"== cudnn.allow_tf32 = {tf32}")
        for name, executor in executors.items():
            for dtype in (torch.float32, torch.float64) if tf32 else (torch.float32,):  # no TF32 in float64
                for train in (False, True):
                    print(f"{name} {dtype} train={train}")
                    for line in one_config(executor, dtype, train, args.repeats):
                        print(line, flush=True)


if __name__ == "__main__":
    main()
