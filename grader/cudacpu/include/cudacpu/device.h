// What device code sees on the CPU backend: the function and variable
// qualifiers, the built-in index variables, barriers, fences, atomics, cache
// hints and the math intrinsics a tiled kernel uses.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "cudacpu/types.h"

// Qualifiers. Every function is a host function here. The source rewriter
// gives each `__shared__` declaration in a function storage of its own per
// resident block; a `__shared__` it cannot see (made by a macro) becomes
// `static thread_local`, one copy for all resident blocks. `__noinline__` is
// no macro here: libstdc++ spells the GCC attribute the same way (the
// rewriter turns the student's into __attribute__((noinline))).
#define __global__
#define __device__
#define __host__
#define __constant__
#define __grid_constant__
// A `__shared__` the rewriter did not see (made by a macro) would be one copy
// for all resident blocks: refused with this message instead.
#define __shared__ \
  static_assert(false, "__shared__ written through a macro is not supported on the CPU backend (write __shared__ in the declaration itself)"); \
  static thread_local
#define __forceinline__ __inline__
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __cudart_builtin__
#define CUDART_CB

namespace cudacpu::detail {

[[noreturn]] void used_outside_kernel(const char* what);

// The block barrier: suspends this thread until every thread of the block
// has arrived (see block_scheduler.cpp). `predicate` feeds __syncthreads_count.
int barrier(const char* file, int line, int predicate);
int block_thread_count();

// An access the instrumentation does not see (an atomic) is about to happen:
// the running thread's pending bookkeeping is settled first (launch_tracking.h).
void unseen_access();

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
// switches to another GPU thread (grader/cudacpu/lib/block_scheduler.cpp).
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;
static constexpr int warpSize = 32;

// Functions, as in CUDA (a file can test for a macro); the default
// arguments name the caller's line for the barrier's messages.
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  (void)::cudacpu::detail::fenced_barrier(file, line, 0);
}
inline int __syncthreads_count(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return ::cudacpu::detail::fenced_barrier(file, line, predicate != 0);
}
inline int __syncthreads_and(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return ::cudacpu::detail::fenced_barrier(file, line, predicate != 0) == ::cudacpu::detail::block_thread_count();
}
inline int __syncthreads_or(int predicate, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return ::cudacpu::detail::fenced_barrier(file, line, predicate != 0) != 0;
}

// Threads never run at the same time (one worker thread runs every block).
inline void __threadfence_block() { __asm__ __volatile__("" ::: "memory"); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// Atomics. Not seen by the access hooks (no_sanitize_address): an atomic
// update of a word other blocks update too is no race. One worker thread
// runs every block, but they are real atomics all the same.
#define CUDACPU_ATOMIC __attribute__((no_sanitize_address)) inline
#define CUDACPU_RMW(name, op)                                                                              \
  CUDACPU_ATOMIC int name(int* p, int v) { ::cudacpu::detail::unseen_access(); return op(p, v, __ATOMIC_RELAXED); } \
  CUDACPU_ATOMIC unsigned int name(unsigned int* p, unsigned int v) {                                      \
    ::cudacpu::detail::unseen_access();                                                                   \
    return op(p, v, __ATOMIC_RELAXED);                                                                    \
  }                                                                                                        \
  CUDACPU_ATOMIC unsigned long long name(unsigned long long* p, unsigned long long v) {                    \
    ::cudacpu::detail::unseen_access();                                                                   \
    return op(p, v, __ATOMIC_RELAXED);                                                                    \
  }
CUDACPU_RMW(atomicAdd, __atomic_fetch_add)
CUDACPU_RMW(atomicAnd, __atomic_fetch_and)
CUDACPU_RMW(atomicOr, __atomic_fetch_or)
CUDACPU_RMW(atomicXor, __atomic_fetch_xor)
CUDACPU_RMW(atomicExch, __atomic_exchange_n)
#undef CUDACPU_RMW
CUDACPU_ATOMIC int atomicSub(int* p, int v) { ::cudacpu::detail::unseen_access(); return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
CUDACPU_ATOMIC unsigned int atomicSub(unsigned int* p, unsigned int v) {
  ::cudacpu::detail::unseen_access();
  return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
}
// A compare-and-swap loop: f(old) is the value stored; returns the old value.
template <typename T, typename F>
CUDACPU_ATOMIC T cudacpu_atomic_update(T* p, F f) {
  ::cudacpu::detail::unseen_access();
  T old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, f(old), true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
#define CUDACPU_MINMAX(T)                                                                                  \
  CUDACPU_ATOMIC T atomicMin(T* p, T v) { return cudacpu_atomic_update(p, [v](T o) { return v < o ? v : o; }); } \
  CUDACPU_ATOMIC T atomicMax(T* p, T v) { return cudacpu_atomic_update(p, [v](T o) { return v > o ? v : o; }); }
CUDACPU_MINMAX(int)
CUDACPU_MINMAX(unsigned int)
CUDACPU_MINMAX(long long)
CUDACPU_MINMAX(unsigned long long)
#undef CUDACPU_MINMAX
CUDACPU_ATOMIC unsigned int atomicInc(unsigned int* p, unsigned int limit) {
  return cudacpu_atomic_update(p, [limit](unsigned int o) { return o >= limit ? 0u : o + 1; });
}
CUDACPU_ATOMIC unsigned int atomicDec(unsigned int* p, unsigned int limit) {
  return cudacpu_atomic_update(p, [limit](unsigned int o) { return (o == 0 || o > limit) ? limit : o - 1; });
}
template <typename T>
CUDACPU_ATOMIC T cudacpu_atomic_cas(T* p, T compare, T value) {
  ::cudacpu::detail::unseen_access();
  __atomic_compare_exchange_n(p, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;
}
CUDACPU_ATOMIC int atomicCAS(int* p, int compare, int value) { return cudacpu_atomic_cas(p, compare, value); }
CUDACPU_ATOMIC unsigned int atomicCAS(unsigned int* p, unsigned int compare, unsigned int value) {
  return cudacpu_atomic_cas(p, compare, value);
}
CUDACPU_ATOMIC unsigned long long atomicCAS(unsigned long long* p, unsigned long long compare,
                                            unsigned long long value) {
  return cudacpu_atomic_cas(p, compare, value);
}
// Floating-point atomics work on the bit pattern.
template <typename F, typename U, typename Op>
CUDACPU_ATOMIC F cudacpu_atomic_float(F* p, Op op) {
  static_assert(sizeof(F) == sizeof(U), "bit pattern type must match");
  const U before = cudacpu_atomic_update(reinterpret_cast<U*>(p), [op](U old) {
    F value;
    std::memcpy(&value, &old, sizeof value);
    value = op(value);
    U updated;
    std::memcpy(&updated, &value, sizeof updated);
    return updated;
  });
  F result;
  std::memcpy(&result, &before, sizeof result);
  return result;
}
CUDACPU_ATOMIC float atomicAdd(float* p, float v) {
  return cudacpu_atomic_float<float, std::uint32_t>(p, [v](float o) { return o + v; });
}
CUDACPU_ATOMIC double atomicAdd(double* p, double v) {
  return cudacpu_atomic_float<double, std::uint64_t>(p, [v](double o) { return o + v; });
}
CUDACPU_ATOMIC float atomicExch(float* p, float v) {
  return cudacpu_atomic_float<float, std::uint32_t>(p, [v](float) { return v; });
}
#undef CUDACPU_ATOMIC

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
