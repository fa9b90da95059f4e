# SPDX-License-Identifier: Apache-2.0
# gelu_find_cuda_compiler(<out>): sets <out> TRUE if a working CUDA compiler exists (CMAKE_CUDA_COMPILER is then
# cached), FALSE otherwise. Used by src/cuda/CMakeLists.txt, which builds gelu::gelu_cuda where one is found.
include(CheckLanguage)
macro(gelu_find_cuda_compiler out)
  # nvcc is commonly installed in /usr/local/cuda/bin without being on PATH (as on the Debian build machines
  # here); check_language looks at CUDACXX, so point it there when nothing else names a compiler.
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(GELU_NVCC_ON_PATH nvcc)
    if(NOT GELU_NVCC_ON_PATH AND EXISTS /usr/local/cuda/bin/nvcc)
      set(ENV{CUDACXX} /usr/local/cuda/bin/nvcc)
    endif()
  endif()
  check_language(CUDA)  # runs a test project once; caches CMAKE_CUDA_COMPILER (a path or NOTFOUND)
  if(CMAKE_CUDA_COMPILER)
    set(${out} TRUE)
  else()
    set(${out} FALSE)
  endif()
endmacro()
