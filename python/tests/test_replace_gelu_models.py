# SPDX-License-Identifier: Apache-2.0
"""replace_gelu on a torchvision model, on the CPU and (on a GPU run) on CUDA: every replaced GELU layer within its
bound of the exact value on the activations the model really produces, and the model's output close to F.gelu's."""
import copy

import torch
import torch.nn.functional as F
import torchvision  # in scripts/python-requirements.txt: a missing one fails, never skips
from torch import nn

import gelu.torch as gt


def _ulp_apart(got, want):
    """|got - want| in float32 ULPs (ordered bit patterns; +0 and -0 are 0 apart)."""
    def key(t):
        b = t.contiguous().view(torch.int32).to(torch.int64)
        return torch.where(b < 0, -(b & 0x7FFFFFFF), b)
    return (key(got) - key(want)).abs()


def _check_vit(device):
    torch.manual_seed(0)
    reference = torchvision.models.vit_b_16(weights=None).to(device).eval()
    ours = gt.replace_gelu(copy.deepcopy(reference))
    replaced = [m for m in ours.modules() if isinstance(m, gt.GELU)]
    assert len(replaced) == 12 and not any(type(m) is nn.GELU for m in ours.modules())
    seen = []
    hooks = [m.register_forward_hook(lambda m, i, o: seen.append((i[0].detach(), o.detach()))) for m in replaced]
    x = torch.randn(1, 3, 224, 224, device=device)
    with torch.no_grad():
        y_ours, y_ref = ours(x), reference(x)
    for h in hooks:
        h.remove()
    assert len(seen) == 12
    for inp, out in seen:
        # The exact value: F.gelu in float64 (relative error < 2^-40 for x > -5, where 1 + erf does not cancel
        # below float32's resolution), rounded to float32. Our exact form is within 1 ULP of it everywhere.
        want = F.gelu(inp.double()).float()
        accurate = inp > -5
        assert _ulp_apart(out[accurate], want[accurate]).max().item() <= 1
    # Each layer is within 1 ULP of F.gelu's float32 result where both are accurate, so the logits differ by
    # rounding carried through the network, not by a different function.
    torch.testing.assert_close(y_ours, y_ref, rtol=1e-4, atol=1e-4)


def test_replace_gelu_vit_cpu():
    _check_vit(torch.device("cpu"))


def test_replace_gelu_vit_cuda(cuda_device):
    _check_vit(cuda_device)
