// The CUDA-on-CPU layer: what the CPU backend compiles a kernel.cu against
// with the host compiler (the source rewriter includes it first). It offers
// the subset of CUDA a tiled SGEMM needs; the rewriter names what it lacks.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define __CUDACPU__ 1

#include "cudacpu/types.h"
#include "cudacpu/api.h"
#include "cudacpu/launch.h"
#include "cudacpu/ext.h"
#include "cudacpu/device.h"
