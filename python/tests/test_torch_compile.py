# SPDX-License-Identifier: Apache-2.0
"""Models after gelu.torch.replace_gelu under torch.compile(fullgraph=True) (inductor, CPU) and torch.export: they
trace without a graph break through the registered operators and give the eager outputs and gradients.

The GELU itself is an opaque operator to inductor, so a model of GELUs alone gives the eager bits. In a whole model
inductor fuses and reorders the float32 sums around it (layer norms, softmax, bias adds), so the compiled model
agrees with the eager one within TOLERANCE.

ViT-B/16 (the cheapest torchvision model to compile: inductor compiles its 12 identical layers' kernels once) and the
transformer block run by default; ConvNeXt-T and Swin-T take minutes more to compile and run with
GELU_COMPILE_ALL_MODELS=1 (docs/PYTHON.md)."""
import copy
import os

import pytest
import torch
import torchvision
from torch import nn

import gelu
import gelu.torch as gt
from gelu.speed import TransformerBlock

FORMS = gelu.APPROXIMATIONS
# float32 compiled vs eager: relative 1e-4 of each tensor's largest magnitude (sums of up to ~3000 float32 terms
# re-associated, compounded over the layers of the torchvision models).
TOLERANCE = 1e-4
ALL_MODELS = os.environ.get("GELU_COMPILE_ALL_MODELS") == "1"


def _count_library_gelus(model):
    return sum(isinstance(m, gt.GELU) for m in model.modules())


def _outputs_and_gradients(model, x):
    model.zero_grad(set_to_none=True)
    x = x.clone().requires_grad_(True)
    y = model(x)
    y.backward(torch.randn(y.shape, generator=torch.Generator().manual_seed(7)))
    grads = {name.removeprefix("_orig_mod."): p.grad for name, p in model.named_parameters()}
    return y.detach(), x.grad, grads


def _assert_close(got, want, what):
    scale = want.abs().max().item()
    err = (got - want).abs().max().item()  # NaN anywhere makes err NaN and fails the comparison
    assert err <= TOLERANCE * scale, f"{what}: max |compiled - eager| = {err:.3g}, scale {scale:.3g}"


def _check_compiled_matches_eager(model, x):
    eager = _outputs_and_gradients(model, x)
    compiled = _outputs_and_gradients(torch.compile(model, fullgraph=True), x)
    _assert_close(compiled[0], eager[0], "output")
    _assert_close(compiled[1], eager[1], "input gradient")
    for name, g in eager[2].items():
        _assert_close(compiled[2][name], g, f"gradient of {name}")


@pytest.mark.parametrize("approximate", FORMS)
def test_compiled_gelus_give_the_eager_bits(approximate):
    # Nothing for inductor to reorder: forward and backward are the library's kernels, called from the graph.
    torch._dynamo.reset()
    model = nn.Sequential(gt.GELU(approximate), gt.GELU(approximate))
    x = torch.randn(4, 256, generator=torch.Generator().manual_seed(1)) * 4
    eager = _outputs_and_gradients(model, x)
    compiled = _outputs_and_gradients(torch.compile(model, fullgraph=True), x)
    assert torch.equal(compiled[0], eager[0]) and torch.equal(compiled[1], eager[1])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_transformer_block_compiles_fullgraph(approximate):
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = gt.replace_gelu(TransformerBlock(width=64, heads=4, approximate=approximate))
    assert _count_library_gelus(model) == 1
    _check_compiled_matches_eager(model, torch.randn(2, 16, 64))


def test_transformer_block_exports():
    torch.manual_seed(0)
    model = gt.replace_gelu(TransformerBlock(width=64, heads=4)).eval()
    x = torch.randn(2, 16, 64)
    exported = torch.export.export(model, (x,))
    assert "torch.ops.gelu.gelu.default" in str(exported.graph_module.code)
    # The exported program runs the same ATen and gelu operators as eager, unfused: the same bits.
    with torch.no_grad():
        assert torch.equal(exported.module()(x), model(x))


def _torchvision_model(name):
    torch.manual_seed(0)
    # Random weights; the smallest input each model allows keeps inductor's work the same and the run short. Eval
    # mode: ConvNeXt's and Swin's stochastic depth would otherwise drop different blocks in the two runs.
    if name == "vit_b_16":
        return torchvision.models.vit_b_16(weights=None, image_size=32).eval(), torch.randn(1, 3, 32, 32)
    if name == "convnext_tiny":
        return torchvision.models.convnext_tiny(weights=None).eval(), torch.randn(1, 3, 32, 32)
    return torchvision.models.swin_t(weights=None).eval(), torch.randn(1, 3, 64, 64)


@pytest.mark.parametrize("name", [
    "vit_b_16",
    pytest.param("convnext_tiny", marks=pytest.mark.skipif(not ALL_MODELS, reason="GELU_COMPILE_ALL_MODELS=1")),
    pytest.param("swin_t", marks=pytest.mark.skipif(not ALL_MODELS, reason="GELU_COMPILE_ALL_MODELS=1")),
])
def test_torchvision_model_compiles_fullgraph(name):
    torch._dynamo.reset()
    reference, x = _torchvision_model(name)
    model = gt.replace_gelu(copy.deepcopy(reference))
    assert _count_library_gelus(model) == sum(isinstance(m, nn.GELU) for m in reference.modules()) > 0
    _check_compiled_matches_eager(model, x)
