// The cuBLAS calls the judge's oracle makes, loaded with dlopen when the
// oracle starts (on CUDA's start-up thread, beside the compiler) instead of
// linked: a linked cuBLAS's relocations delay every grade process's start,
// those that never use it included (the cpu backend, a batch's driver;
// grader/bench/RESULTS.md).
#pragma once
#ifndef SG_NO_CUDA
#include <cublas_v2.h>

#include <string>

namespace sg {

struct CublasCalls {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasDgemm_v2) dgemm = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
};

// The library of the cuBLAS these headers are of: libcublas.so.<major>,
// found through the grader's run path (a library of another major version
// would not match the headers).
std::string cublas_library_name();

// `library` loaded (never unloaded: cuBLAS keeps state until the process
// ends) and its calls bound; throws std::runtime_error naming the library
// and the loader's reason.
CublasCalls load_cublas(const std::string& library = cublas_library_name());

}  // namespace sg
#endif  // SG_NO_CUDA
