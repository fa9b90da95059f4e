# SPDX-License-Identifier: Apache-2.0
# CTest python_install: `cmake --install` the build tree into a scratch prefix, then import the installed
# package from a directory outside the build tree, so the RPATH (extension -> libgelu) and the install
# layout are what is tested, not the build tree's copies.
#   cmake -DBUILD_DIR=... -DPREFIX=... -DPYTHON=... -DPYTHON_DIR=<relative site dir> -P install_test.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
  OUTPUT_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
set(site ${PREFIX}/${PYTHON_DIR})
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH PYTHONPATH=${site}
    ${PYTHON} -c "import gelu, gelu.torch, numpy as np, torch; \
assert gelu.__file__.startswith('${site}'), gelu.__file__; \
y = gelu.forward(np.array([-14.0, 1.0], np.float32)); assert y[0] < 0 and y[1] > 0.84, y; \
assert gelu.torch.gelu(torch.ones(2)).tolist() == y[1:].tolist() * 2; \
print('installed gelu', gelu.__version__, gelu.simd_target(), 'from', gelu.__file__)"
  WORKING_DIRECTORY ${PREFIX}
  RESULT_VARIABLE rc)
file(REMOVE_RECURSE ${PREFIX})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "importing the installed gelu package failed (${rc})")
endif()
