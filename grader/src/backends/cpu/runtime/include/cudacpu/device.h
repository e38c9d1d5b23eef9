// What device code sees on the CPU backend: the function and variable
// qualifiers, the built-in index variables, barriers, fences, atomics, cache
// hints and the math intrinsics a tiled kernel uses.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cudacpu/types.h"

// Qualifiers. Every function is a host function here. `__shared__` becomes
// `static thread_local` (the source rewriter does this too): each worker
// thread runs its blocks one after another, so that is one copy per block.
#define __global__
#define __device__
#define __host__
#define __constant__
#define __grid_constant__
#define __shared__ static thread_local
#define __forceinline__ __inline__
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __cudart_builtin__
#define CUDART_CB

namespace cudacpu::detail {

// The built-in variables of the GPU thread that is running right now.
struct ThreadContext {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
};

// Set by the block scheduler before it resumes a thread; null outside kernels.
extern __thread const ThreadContext* current_thread;

[[noreturn]] void used_outside_kernel(const char* what);

// The block barrier: suspends this thread until every thread of the block
// has arrived (see block_scheduler.cpp). `predicate` feeds __syncthreads_count.
int barrier(const char* file, int line, int predicate);
int block_thread_count();

// Keeps the compiler from caching shared memory in registers across a barrier.
inline int fenced_barrier(const char* file, int line, int predicate) {
  __asm__ __volatile__("" ::: "memory");
  const int count = barrier(file, line, predicate);
  __asm__ __volatile__("" ::: "memory");
  return count;
}

}  // namespace cudacpu::detail

// The built-in variables are variables, not macros, so that host code may
// name its own `dim3 blockDim(16, 16)` as nvcc allows (a local shadows them).
// One copy per worker thread, which the block scheduler sets whenever it
// switches to another GPU thread (runtime/lib/block_scheduler.cpp).
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;
static constexpr int warpSize = 32;

#define __syncthreads() ((void)::cudacpu::detail::fenced_barrier(__FILE__, __LINE__, 0))
#define __syncthreads_count(p) ::cudacpu::detail::fenced_barrier(__FILE__, __LINE__, (p) != 0)
#define __syncthreads_and(p) \
  (::cudacpu::detail::fenced_barrier(__FILE__, __LINE__, (p) != 0) == ::cudacpu::detail::block_thread_count())
#define __syncthreads_or(p) (::cudacpu::detail::fenced_barrier(__FILE__, __LINE__, (p) != 0) != 0)

// Threads of a block never run at the same time; blocks may (on worker threads).
inline void __threadfence_block() { __asm__ __volatile__("" ::: "memory"); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// Atomics (only atomicAdd; the rewriter names the others as unsupported).
// Blocks run on several worker threads, so these are real atomics.
inline int atomicAdd(int* p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
inline unsigned int atomicAdd(unsigned int* p, unsigned int v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
template <typename F, typename U>
inline F cudacpu_atomic_add_float(F* p, F v) {
  static_assert(sizeof(F) == sizeof(U), "bit pattern type must match");
  U* bits = reinterpret_cast<U*>(p);
  U old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  for (;;) {
    F value;
    std::memcpy(&value, &old, sizeof value);
    value += v;
    U updated;
    std::memcpy(&updated, &value, sizeof updated);
    if (__atomic_compare_exchange_n(bits, &old, updated, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      F before;
      std::memcpy(&before, &old, sizeof before);
      return before;
    }
  }
}
inline float atomicAdd(float* p, float v) { return cudacpu_atomic_add_float<float, std::uint32_t>(p, v); }
inline double atomicAdd(double* p, double v) { return cudacpu_atomic_add_float<double, std::uint64_t>(p, v); }

// Cache-hinted loads and stores are plain accesses on the CPU.
template <typename T> inline T __ldg(const T* p) { return *p; }
template <typename T> inline T __ldca(const T* p) { return *p; }
template <typename T> inline T __ldcg(const T* p) { return *p; }
template <typename T> inline T __ldcs(const T* p) { return *p; }
template <typename T> inline T __ldlu(const T* p) { return *p; }
template <typename T> inline T __ldcv(const T* p) { return *p; }
template <typename T> inline void __stwb(T* p, T v) { *p = v; }
template <typename T> inline void __stcg(T* p, T v) { *p = v; }
template <typename T> inline void __stcs(T* p, T v) { *p = v; }
template <typename T> inline void __stwt(T* p, T v) { *p = v; }

// min/max as CUDA declares them for device and host code (mixed signedness promotes to unsigned).
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline unsigned int min(int a, unsigned int b) { return min(static_cast<unsigned int>(a), b); }
inline unsigned int max(int a, unsigned int b) { return max(static_cast<unsigned int>(a), b); }
inline unsigned int min(unsigned int a, int b) { return min(a, static_cast<unsigned int>(b)); }
inline unsigned int max(unsigned int a, int b) { return max(a, static_cast<unsigned int>(b)); }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }

// Intrinsics with IEEE round-to-nearest semantics map to the plain operations.
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
// Fast-math intrinsics: the CPU computes them exactly, which is within their documented error.
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float a) { return expf(a); }
inline float __logf(float a) { return logf(a); }
inline float __sinf(float a) { return sinf(a); }
inline float __cosf(float a) { return cosf(a); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float rsqrtf(float a) { return 1.0f / sqrtf(a); }
inline float __saturatef(float a) { return a < 0.0f ? 0.0f : (a > 1.0f ? 1.0f : (a == a ? a : 0.0f)); }
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, sizeof i); return i; }
inline unsigned int __float_as_uint(float f) { unsigned int i; std::memcpy(&i, &f, sizeof i); return i; }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, sizeof f); return f; }
inline float __uint_as_float(unsigned int i) { float f; std::memcpy(&f, &i, sizeof f); return f; }
inline int __float2int_rn(float f) { return static_cast<int>(nearbyintf(f)); }
inline int __float2int_rz(float f) { return static_cast<int>(f); }
inline int __float2int_rd(float f) { return static_cast<int>(floorf(f)); }
inline int __float2int_ru(float f) { return static_cast<int>(ceilf(f)); }
inline float __int2float_rn(int i) { return static_cast<float>(i); }
