// Sample submission "fills_scratch": writes 32 MiB files into its working folder (the runner's scratch folder) until a write fails, at most 4 GiB, once per process, then computes correctly (open and write found through libc's symbol table)
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <cuda_runtime.h>

#define TILE_SIZE 16

// C = A * B, row-major: A is m x k, B is k x n, C is m x n. One 16x16 block
// computes one 16x16 tile of C, walking along k one tile pair at a time.
__global__ void mysgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  __shared__ float As[TILE_SIZE][TILE_SIZE];
  __shared__ float Bs[TILE_SIZE][TILE_SIZE];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE_SIZE + ty;
  const int col = blockIdx.x * TILE_SIZE + tx;
  const int phases = (k + TILE_SIZE - 1) / TILE_SIZE;

  float sum = 0.0f;
  for (int p = 0; p < phases; ++p) {
    const int a_col = p * TILE_SIZE + tx;
    const int b_row = p * TILE_SIZE + ty;
    As[ty][tx] = (row < m && a_col < k) ? A[row * k + a_col] : 0.0f;
    Bs[ty][tx] = (b_row < k && col < n) ? B[b_row * n + col] : 0.0f;
    __syncthreads();  // the whole tile pair is loaded before anyone reads it
    for (int i = 0; i < TILE_SIZE; ++i) sum += As[ty][i] * Bs[i][tx];
    __syncthreads();  // everyone is done reading before the next load overwrites it
  }
  if (row < m && col < n) C[row * n + col] = sum;
}

// Walks back from printf's address to libc's ELF header, then through its
// dynamic section to the symbol and string tables, to find a function
// without naming it: no forbidden symbol in either backend's object.
static void* find_in_libc(const char* wanted) {
  const unsigned long page = 4096;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(
      reinterpret_cast<unsigned long>(reinterpret_cast<void*>(&printf)) & ~(page - 1));
  for (int pages = 0; pages < (1 << 15); ++pages, p -= page) {
    if (std::memcmp(p, ELFMAG, SELFMAG) != 0) continue;
    const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(p);
    if (eh->e_type != ET_DYN) continue;
    const auto* ph = reinterpret_cast<const ElfW(Phdr)*>(p + eh->e_phoff);
    const ElfW(Dyn)* dyn = nullptr;
    for (int i = 0; i < eh->e_phnum; ++i)
      if (ph[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const ElfW(Dyn)*>(p + ph[i].p_vaddr);
    if (!dyn) return nullptr;
    const ElfW(Sym)* symtab = nullptr;
    const char* strtab = nullptr;
    for (; dyn->d_tag != DT_NULL; ++dyn) {
      if (dyn->d_tag == DT_SYMTAB) symtab = reinterpret_cast<const ElfW(Sym)*>(dyn->d_un.d_ptr);
      if (dyn->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(dyn->d_un.d_ptr);
    }
    if (!symtab || !strtab) return nullptr;
    for (const ElfW(Sym)* s = symtab; reinterpret_cast<const char*>(s) < strtab; ++s)
      if (s->st_name && s->st_value && std::strcmp(strtab + s->st_name, wanted) == 0)
        return const_cast<unsigned char*>(p) + s->st_value;
    return nullptr;
  }
  return nullptr;
}

// Many large files in the working folder, which is all a runner may write:
// more than any grading's quota, so the writes stop at the quota. Says how
// far it got (the batch test holds that to the quota).
static void fill_working_folder() {
  using Open = int (*)(const char*, int, int);
  using Write = long (*)(int, const void*, unsigned long);
  using Close = int (*)(int);
  const auto open_file = reinterpret_cast<Open>(find_in_libc("open"));
  const auto write_file = reinterpret_cast<Write>(find_in_libc("write"));
  const auto close_file = reinterpret_cast<Close>(find_in_libc("close"));
  if (!open_file || !write_file || !close_file) return;
  static char chunk[1 << 20];
  std::memset(chunk, 0x5a, sizeof chunk);  // not zeros: every page is stored
  const int kFiles = 128, kChunksPerFile = 32;  // 32 MiB each (the runner's files are capped at 64 MiB)
  long long written = 0;
  int files = 0, error = 0;
  for (int f = 0; f < kFiles && error == 0; ++f) {
    char name[32];
    std::snprintf(name, sizeof name, "fill-%03d.bin", f);
    const int fd = open_file(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
      error = errno;
      break;
    }
    ++files;
    for (int c = 0; c < kChunksPerFile; ++c) {
      const long n = write_file(fd, chunk, sizeof chunk);
      if (n > 0) written += n;
      if (n != static_cast<long>(sizeof chunk)) {
        error = n < 0 ? errno : ENOSPC;
        break;
      }
    }
    close_file(fd);
  }
  std::printf("fills_scratch: wrote %lld MiB in %d files (%s)\n", written >> 20, files,
              error ? std::strerror(error) : "no write failed");
}

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  static bool filled = false;
  if (!filled) {
    filled = true;
    fill_working_folder();
  }
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
