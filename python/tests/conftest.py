# SPDX-License-Identifier: Apache-2.0
"""Shared pytest fixtures for the Python tests."""
import os

import pytest


@pytest.fixture
def cuda_device():
    """A CUDA device for the test, or a skip where there is none, except on a GPU run.

    On the GPU machine (bench/gpu/check.sh sets GELU_REQUIRE_GPU=1) a CUDA test that cannot run is a failure, as in
    the C++ GPU tests (tests/cuda/gpu_availability.h, SkipIsFailure): a skipped test there would pass the run unchecked.
    """
    import torch

    if torch.cuda.is_available():
        return torch.device("cuda")
    if os.environ.get("GELU_REQUIRE_GPU") == "1":
        pytest.fail("GELU_REQUIRE_GPU=1 is set but torch.cuda.is_available() is False")
    pytest.skip("needs PyTorch with a CUDA GPU")
