// The CUDA-on-CPU layer: what the CPU backend compiles a kernel.cu against
// with the host compiler (the source rewriter includes it first). It offers
// the subset of CUDA a tiled SGEMM needs; the rewriter names what it lacks.
#pragma once
// What nvcc defines in every compilation, and nothing of the layer's own:
// code compiled here cannot tell it from nvcc's host pass by a macro.
// __CUDA_ARCH__ is left out: host and device code share one pass here, so
// a file whose code depends on it is refused (backends/cpu/cpu_build.cpp).
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 48
#define CUDART_VERSION 13000
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cudacpu/types.h"
#include "cudacpu/api.h"
#include "cudacpu/launch.h"
#include "cudacpu/device.h"
