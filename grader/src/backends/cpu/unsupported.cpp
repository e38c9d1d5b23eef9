// The lists behind unsupported.h.
#include "backends/cpu/unsupported.h"

#include <iterator>
#include <unordered_set>

namespace sg {
namespace {

const char* const kNames[] = {
    // Warp-level primitives: the CPU backend has no warps.
    "__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
    "__shfl_xor_sync", "__ballot", "__ballot_sync", "__any", "__all", "__any_sync", "__all_sync", "__uni_sync",
    "__activemask", "__syncwarp", "__match_any_sync", "__match_all_sync", "__reduce_add_sync",
    "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
    "__lanemask_lt", "__nanosleep",
    // Inline assembly (PTX).
    "asm", "__asm", "__asm__",
    // Textures and surfaces.
    "tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex1DLod", "tex2DLod", "tex2DLayered", "texCubemap",
    "surf1Dread", "surf1Dwrite", "surf2Dread", "surf2Dwrite", "surf3Dread", "surf3Dwrite", "cudaTextureObject_t",
    "cudaSurfaceObject_t", "cudaCreateTextureObject", "cudaCreateSurfaceObject", "cudaBindTexture",
    "cudaBindTexture2D", "cudaBindTextureToArray", "cudaMallocArray", "cudaMemcpyToArray", "cudaMemcpy2DToArray",
    // Cooperative groups, tensor cores, asynchronous copies.
    "cooperative_groups", "this_thread_block", "this_grid", "tiled_partition", "thread_block_tile", "grid_group",
    "cudaLaunchCooperativeKernel", "wmma", "nvcuda", "memcpy_async", "__pipeline_memcpy_async",
    "__pipeline_commit", "__pipeline_wait_prior",
    // Managed memory and runtime calls the layer does not provide.
    "__managed__", "cudaMallocManaged", "cudaMallocPitch", "cudaMemcpy2D", "cudaMalloc3D", "cudaMemcpy3D",
    "cudaMallocAsync", "cudaFreeAsync", "cudaMemPrefetchAsync", "cudaLaunchKernel", "cudaLaunchKernelEx",
    "cudaGraphCreate", "cudaStreamBeginCapture", "cudaLaunchHostFunc", "cudaStreamAddCallback",
    "cudaStreamWaitEvent", "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxPotentialBlockSize",
};

// Atomics: every one of device scope; the _block and _system scopes are not provided.
const char* const kAtomics[] = {"atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc", "atomicDec",
                                "atomicCAS", "atomicAnd", "atomicOr",  "atomicXor", "atomicAdd"};

const char* const kHeaderPrefixes[] = {
    "cuda_fp16", "cuda_bf16", "cuda_fp8", "mma.h", "cooperative_groups", "cublas", "cusparse", "cufft", "curand",
    "cusolver", "cudnn", "cutlass", "cub/", "thrust/", "cuda/", "cuda_pipeline", "cuda_awbarrier", "sm_",
    "texture_", "surface_", "nvrtc", "nvToolsExt", "nvtx3/", "crt/",
    // The host's vector intrinsics: their builtins' loads are not seen by the access hooks.
    "immintrin", "xmmintrin", "emmintrin", "pmmintrin", "tmmintrin", "smmintrin", "nmmintrin", "avxintrin",
    "avx2intrin", "x86intrin", "x86gprintrin", "ia32intrin", "mmintrin", "wmmintrin", "arm_neon", "arm_sve",
};

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

bool unsupported_identifier(const std::string& name, const std::string& next) {
  if (name == "texture" || name == "surface") return next == "<";
  // Asked of every identifier of a submission: one look-up, not a walk through the lists.
  static const std::unordered_set<std::string> kNameSet(std::begin(kNames), std::end(kNames));
  if (kNameSet.count(name)) return true;
  if (!starts_with(name, "atomic")) return false;
  for (const std::string base : kAtomics) {
    if (!starts_with(name, base)) continue;
    const std::string scope = name.substr(base.size());
    if (scope == "_block" || scope == "_system") return true;
  }
  return false;
}

bool unsupported_header(const std::string& header) {
  for (const std::string prefix : kHeaderPrefixes)
    if (starts_with(header, prefix)) return true;
  return false;
}

}  // namespace sg
