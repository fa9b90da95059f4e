# SPDX-License-Identifier: Apache-2.0
"""Times the gelu package beside PyTorch's CPU GELU, forward and backward, in one process.

Used by bench/python_vs_torch.py (the full table) and gelu.claims (claim 3: is the exact form dearer than the
approximations?). Both sides write into preallocated outputs for forward/backward, so neither pays for allocation;
each pair is timed interleaved, round by round, so that a noisy machine slows both alike. PyTorch has no "sigmoid"
form: its column is the eager x * torch.sigmoid(1.702 * x) and its gradient g * (s + 1.702 x s (1 - s)), what a
user would write.
"""
import platform
import time

import numpy as np
import torch

import gelu
import gelu.torch as gelu_torch

FORMS = gelu.APPROXIMATIONS
OPS = ("forward", "backward", "module")


def cpu_model():
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def best_time(fn, min_time, clock=time.perf_counter):
    """Seconds per call of fn: calls are repeated until one timing block lasts min_time.

    clock: the wall clock, or time.thread_time for one-thread work, which other tenants of a shared machine
    barely disturb (as bench/peers_torch.py and gelu_benchmark do)."""
    fn()  # warm up (page faults, thread pools)
    reps = 1
    while True:
        t0 = clock()
        for _ in range(reps):
            fn()
        dt = clock() - t0
        if dt >= min_time:
            return dt / reps
        reps = max(reps * 2, int(reps * min_time / max(dt, 1e-9)) + 1)


def measure(pairs, rounds, min_time, clock=time.perf_counter):
    """{name: best seconds per call}, with every function timed once per round, interleaved."""
    best = {name: float("inf") for name, _ in pairs}
    for _ in range(rounds):
        for name, fn in pairs:
            best[name] = min(best[name], best_time(fn, min_time, clock))
    return best


def cases(n, form, dtype=np.float32, dist="normal"):
    """{op: [("ours", fn), ("torch", fn)]} for op in OPS, on n inputs N(0, 1) (or U[-10, 10]), fixed seed.

    forward   gelu.forward(x, a, out=y)            vs  torch._C._nn.gelu(x, approximate=a, out=y)
    backward  gelu.backward(g, x, a, out=d)        vs  aten::gelu_backward.grad_input(g, x, a, grad_input=d)
    module    gelu.torch.GELU: y = m(x); y.backward(g) vs  torch.nn.GELU, the same (autograd, allocating)
    """
    rng = np.random.default_rng(12345)
    xs = rng.standard_normal(n) if dist == "normal" else rng.uniform(-10, 10, n)
    x_np = xs.astype(dtype)
    g_np = rng.standard_normal(n).astype(dtype)
    y_np, d_np = np.empty_like(x_np), np.empty_like(x_np)
    x, g, y, d = (torch.from_numpy(a) for a in (x_np, g_np, np.empty_like(x_np), np.empty_like(x_np)))

    if form == "sigmoid":  # no PyTorch op: its composition in torch ops (gelu.torch's fallback)
        def torch_forward():
            gelu_torch._sigmoid_form(x, out=y)

        def torch_backward():
            gelu_torch._sigmoid_form_backward(g, x, out=d)

        torch_module = gelu_torch._sigmoid_form  # autograd of the eager expression
    else:
        def torch_forward():
            torch._C._nn.gelu(x, approximate=form, out=y)

        def torch_backward():
            torch.ops.aten.gelu_backward.grad_input(g, x, approximate=form, grad_input=d)

        torch_module = torch.nn.GELU(approximate=form)

    xr = x.clone().requires_grad_(True)

    def module_step(m):
        def step():
            xr.grad = None
            m(xr).backward(g)
        return step

    return {
        "forward": [("ours", lambda: gelu.forward(x_np, form, out=y_np)), ("torch", torch_forward)],
        "backward": [("ours", lambda: gelu.backward(g_np, x_np, form, out=d_np)), ("torch", torch_backward)],
        "module": [("ours", module_step(gelu_torch.GELU(form))), ("torch", module_step(torch_module))],
    }


class TransformerBlock(torch.nn.Module):
    """A pre-norm transformer encoder block with an nn.GELU in its MLP, the model of bench/torch_ops.py and of
    the torch.compile tests (python/tests/test_torch_compile.py): x + attention(LN(x)), then + MLP(LN(.)),
    MLP = Linear(width, 4 width) -> GELU -> Linear(4 width, width); input (batch, tokens, width)."""

    def __init__(self, width=256, heads=4, approximate="none"):
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(width)
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.proj = torch.nn.Linear(width, width)
        self.norm2 = torch.nn.LayerNorm(width)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(approximate),
                                       torch.nn.Linear(4 * width, width))

    def forward(self, x):
        b, t, w = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, w // self.heads).permute(2, 0, 3, 1, 4)
        attention = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        x = x + self.proj(attention.transpose(1, 2).reshape(b, t, w))
        return x + self.mlp(self.norm2(x))
