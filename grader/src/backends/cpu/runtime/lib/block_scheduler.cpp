// Runs a grid. Blocks are dealt round-robin to a few worker threads (fresh
// for every launch, so shared memory starts zeroed); within a block, the
// GPU threads are fibers switched only at barriers. The schedule inside a
// block is fixed, so every run interleaves the same way, and it is chosen to
// expose missing barriers: each thread runs alone until it reaches a barrier
// (or returns), in descending order of its linear index. Without the barrier
// after the loads, the last thread computes with tile entries the others have
// not loaded yet (with k < 16 the entries that matter are the first ones,
// loaded by low-numbered threads, which is why the order is descending);
// without the barrier after the compute, it overwrites its tile entries with
// the next phase while the others have still to read them.
// CUDACPU_SCHEDULE=forward runs the threads in ascending order instead: a
// kernel free of shared-memory races computes the same bits either way,
// which is how the judge's race check works.
//
// A failing block (a fault, a barrier not reached by all) stops its worker;
// of all failures the one of the lowest-numbered block is reported, which is
// the one a serial run in block order would have hit first: the report does
// not depend on timing.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "cudacpu/launch.h"
#include "fault_report.h"
#include "runtime.h"

// The built-in variables device code reads (cudacpu/device.h).
__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

namespace cudacpu::detail {

__thread const ThreadContext* current_thread = nullptr;

// Makes `t` the running GPU thread: its built-in variables become visible to device code.
inline void enter(const ThreadContext* t) {
  current_thread = t;
  ::threadIdx = t->thread_idx;
  ::blockIdx = t->block_idx;
  ::blockDim = t->block_dim;
  ::gridDim = t->grid_dim;
}

namespace {

// Blocks completed so far, counted in the file CUDACPU_PROGRESS_FILE names
// (the grader sets it): the judge reads it when a case passes its time
// limit, and gives a grid whose blocks keep completing more time, where a
// hang completes none (pipeline/runner_session.h). Without the variable
// (a student's own run) nothing is written.
std::atomic<std::uint64_t>* progress_counter() {
  static_assert(std::atomic<std::uint64_t>::is_always_lock_free, "shared with another process");
  static std::atomic<std::uint64_t>* const counter = []() -> std::atomic<std::uint64_t>* {
    const char* path = std::getenv("CUDACPU_PROGRESS_FILE");
    if (path == nullptr || *path == '\0') return nullptr;
    const int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return nullptr;
    void* at = MAP_FAILED;
    if (ftruncate(fd, sizeof(std::uint64_t)) == 0)
      at = mmap(nullptr, sizeof(std::uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return at == MAP_FAILED ? nullptr : new (at) std::atomic<std::uint64_t>(0);
  }();
  return counter;
}


// The grid being run on this OS thread, for the fibers and the barrier.
struct GridRun {
  FiberPool* pool = nullptr;
  void (*body)(void*) = nullptr;
  void* args = nullptr;
  int threads = 0;
  void* dynamic_shared = nullptr;  // this worker's extern __shared__ memory
  bool reverse = false;      // schedule order: linear index descending
  int running = -1;          // index of the fiber executing right now
  int exited = 0;            // threads of the current block that have returned
  // The current round (from one barrier to the next):
  int waiting = 0;           // threads that reached a barrier
  bool mixed_sites = false;  // not all at the same __syncthreads
  const char* site_file = nullptr;
  int site_line = 0;
  int predicates = 0;        // sum of __syncthreads_count predicates
  int barrier_count = 0;     // result of the last completed barrier
};
__thread GridRun* current_grid = nullptr;

// The fiber at position `pos` of the schedule, and back (the map is its own inverse).
int fiber_at(const GridRun& grid, int pos) { return grid.reverse ? grid.threads - 1 - pos : pos; }

// Continues with the next live thread after `from` in schedule order, or
// returns to the scheduler when every thread has had its turn this round.
// Passing control directly halves the switches of going through the scheduler.
void pass_on(GridRun& grid, int from) {
  for (int pos = fiber_at(grid, from) + 1; pos < grid.threads; ++pos) {
    const int j = fiber_at(grid, pos);
    Fiber& f = grid.pool->fiber(j);
    if (f.exited) continue;
    grid.running = j;
    enter(&f.thread);
    grid.pool->pass(from, j);
    return;  // someone passed control back to this thread: the barrier is over
  }
  grid.running = -1;
  current_thread = nullptr;
  grid.pool->suspend(from);
}

[[noreturn]] void fiber_entry() {
  GridRun* grid = current_grid;
  grid->body(grid->args);
  const int self = grid->running;
  grid->pool->fiber(self).exited = true;
  ++grid->exited;
  pass_on(*grid, self);
  __builtin_unreachable();  // an exited fiber is never resumed, only restarted
}

std::string dims(const char* what, dim3 d) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s (%u, %u, %u)", what, d.x, d.y, d.z);
  return buf;
}

// Empty when the launch shape is valid; else why not, with the error CUDA gives.
std::string shape_problem(const LaunchShape& s, std::size_t max_dynamic, cudaError_t& err) {
  const dim3 g = s.grid, b = s.block;
  err = cudaErrorInvalidConfiguration;
  if (b.x == 0 || b.y == 0 || b.z == 0) return dims("block", b) + " has a zero dimension";
  if (g.x == 0 || g.y == 0 || g.z == 0) return dims("grid", g) + " has a zero dimension";
  if (b.x > 1024 || b.y > 1024 || b.z > 64) return dims("block", b) + " exceeds the limits (1024, 1024, 64)";
  const std::uint64_t threads = std::uint64_t(b.x) * b.y * b.z;
  if (threads > 1024)
    return dims("block", b) + " has " + std::to_string(threads) + " threads; at most 1024 are allowed";
  if (g.x > 2147483647u || g.y > 65535 || g.z > 65535)
    return dims("grid", g) + " exceeds the limits (2147483647, 65535, 65535)";
  if (s.dynamic_shared > max_dynamic) {
    err = cudaErrorInvalidValue;
    return "the launch asks for " + std::to_string(s.dynamic_shared) + " bytes of dynamic shared memory; at most " +
           std::to_string(max_dynamic) + " are allowed";
  }
  return "";
}

std::string coords(uint3 v, bool three_d) {
  char buf[64];
  if (three_d)
    std::snprintf(buf, sizeof buf, "(%u,%u,%u)", v.x, v.y, v.z);
  else
    std::snprintf(buf, sizeof buf, "(%u,%u)", v.x, v.y);
  return buf;
}

std::string site(const Fiber& f) { return std::string(f.barrier_file) + ":" + std::to_string(f.barrier_line); }

// After a round in which not all threads wait at the same barrier: what went wrong.
std::string barrier_problem(GridRun& grid, uint3 block, bool three_d) {
  const Fiber* first_waiting = nullptr;
  const Fiber* exited = nullptr;
  const Fiber* elsewhere = nullptr;
  int at_site = 0, n_exited = 0, n_elsewhere = 0;
  for (int i = 0; i < grid.threads; ++i) {
    const Fiber& f = grid.pool->fiber(i);
    if (f.exited) {
      if (!exited) exited = &f;
      ++n_exited;
    } else if (!first_waiting || (f.barrier_line == first_waiting->barrier_line &&
                                  std::strcmp(f.barrier_file, first_waiting->barrier_file) == 0)) {
      if (!first_waiting) first_waiting = &f;
      ++at_site;
    } else {
      if (!elsewhere) elsewhere = &f;
      ++n_elsewhere;
    }
  }
  std::string msg = "__syncthreads (" + site(*first_waiting) + ") reached by only " + std::to_string(at_site) +
                    " of " + std::to_string(grid.threads) + " threads of block " + coords(block, three_d);
  if (n_exited > 0)
    msg += "; " + std::to_string(n_exited) + " had already returned, e.g. thread " +
           coords(exited->thread.thread_idx, three_d);
  if (n_elsewhere > 0)
    msg += "; " + std::to_string(n_elsewhere) + " wait at a different __syncthreads (" + site(*elsewhere) +
           "), e.g. thread " + coords(elsewhere->thread.thread_idx, three_d);
  return msg + " (every thread of a block must reach the same barriers)";
}

// Runs one block to completion; false (with the problem) when its threads
// did not all reach the same barriers.
bool run_block(GridRun& grid, uint3 block, bool three_d, std::string& problem) {
  FiberPool& pool = *grid.pool;
  grid.exited = 0;
  for (;;) {
    int pos = 0;
    while (pos < grid.threads && pool.fiber(fiber_at(grid, pos)).exited) ++pos;
    if (pos == grid.threads) return true;
    const int first = fiber_at(grid, pos);
    grid.waiting = 0;
    grid.mixed_sites = false;
    grid.predicates = 0;
    grid.running = first;
    enter(&pool.fiber(first).thread);
    pool.resume(first);  // back when every live thread waits at a barrier or has returned
    current_thread = nullptr;
    grid.running = -1;
    if (grid.waiting == 0) return true;
    if (grid.exited > 0 || grid.mixed_sites) {
      problem = barrier_problem(grid, block, three_d);
      return false;
    }
    grid.barrier_count = grid.predicates;
  }
}

}  // namespace

void used_outside_kernel(const char* what) {
  char message[200];
  std::snprintf(message, sizeof message,
                "`%s` used outside a kernel (was a __global__ function called without <<<...>>>?)", what);
  Runtime::get().die(message);
}

int barrier(const char* file, int line, int predicate) {
  GridRun* grid = current_grid;
  if (grid == nullptr || grid->running < 0) used_outside_kernel("__syncthreads");
  const int self = grid->running;
  Fiber& f = grid->pool->fiber(self);
  f.barrier_file = file;
  f.barrier_line = line;
  if (grid->waiting == 0) {
    grid->site_file = file;
    grid->site_line = line;
  } else if (line != grid->site_line || (file != grid->site_file && std::strcmp(file, grid->site_file) != 0)) {
    grid->mixed_sites = true;
  }
  ++grid->waiting;
  grid->predicates += predicate;
  pass_on(*grid, self);
  return grid->barrier_count;
}

int block_thread_count() {
  GridRun* grid = current_grid;
  if (grid == nullptr) used_outside_kernel("__syncthreads_and");
  return grid->threads;
}

void* shared_array_storage(std::size_t bytes, const char* name, const char* element_type,
                           std::size_t element_size) {
  Runtime& rt = Runtime::get();
  void* p = rt.memory().allocate(bytes, true);
  if (p == nullptr) {
    char message[160];
    std::snprintf(message, sizeof message, "no host memory for __shared__ %s (%zu bytes)", name, bytes);
    rt.die(message);
  }
  std::string label = std::string("__shared__ ") + name;
  rt.memory().name(p, label.c_str(), element_type, element_size);
  return p;
}

void release_shared_array(void* p) { Runtime::get().memory().release(p); }

void* dynamic_shared_base() {
  if (current_grid == nullptr) used_outside_kernel("extern __shared__ memory");
  return current_grid->dynamic_shared;
}

namespace {

// The failure of the lowest-numbered block so far, shared by the workers.
struct FirstFailure {
  std::mutex mu;
  std::atomic<std::uint64_t> block{UINT64_MAX};  // read without the lock to stop early
  std::string message;
  bool fault = false;  // a fault (fatal) rather than a barrier error (sticky)

  void offer(std::uint64_t b, std::string msg, bool is_fault) {
    std::lock_guard<std::mutex> lock(mu);
    if (b >= block.load()) return;
    block.store(b);
    message = std::move(msg);
    fault = is_fault;
  }
};

// The first red-zone access of all workers, in schedule order.
struct StrayAccesses {
  std::mutex mu;
  unsigned long long key = ~0ull;
  std::string first;

  void offer(const FaultTrap& trap) {
    std::lock_guard<std::mutex> lock(mu);
    if (trap.stray_key >= key) return;
    key = trap.stray_key;
    first = trap.stray_message;
  }
};

struct GridJob {
  LaunchShape shape;
  void (*body)(void*) = nullptr;
  void* args = nullptr;
  int threads = 0;
  std::uint64_t blocks = 0;
  int workers = 1;
  bool three_d = false;
  bool reverse = false;
  FirstFailure failure;
  StrayAccesses strays;
};

void run_worker(GridJob& job, Runtime& rt, int w) {
  AltSignalStack alt_stack;
  FiberPool& pool = rt.pool(w);
  if (!pool.reserve(job.threads)) {
    job.failure.offer(static_cast<std::uint64_t>(w), "no memory for the stacks of " + std::to_string(job.threads) +
                                                         " GPU threads", false);
    return;
  }
  const dim3 g = job.shape.grid, b = job.shape.block;
  for (int i = 0; i < job.threads; ++i) {
    ThreadContext& t = pool.fiber(i).thread;
    const unsigned u = static_cast<unsigned>(i);
    t.thread_idx = uint3{u % b.x, (u / b.x) % b.y, u / (b.x * b.y)};
    t.block_dim = b;
    t.grid_dim = g;
  }
  GridRun grid;
  grid.pool = &pool;
  grid.body = job.body;
  grid.args = job.args;
  grid.threads = job.threads;
  grid.dynamic_shared = rt.dynamic_shared(w);
  grid.reverse = job.reverse;
  current_grid = &grid;
  FaultTrap trap;
  std::string problem;  // declared before sigsetjmp: a jump back must not skip its destructor
  for (std::uint64_t next = static_cast<std::uint64_t>(w); next < job.blocks;
       next += static_cast<std::uint64_t>(job.workers)) {
    if (next > job.failure.block.load()) break;  // a serial run would have stopped before this block
    const volatile std::uint64_t index = next;   // read again after a fault's jump back here
    const uint3 block{static_cast<unsigned>(next % g.x), static_cast<unsigned>((next / g.x) % g.y),
                      static_cast<unsigned>(next / (std::uint64_t(g.x) * g.y))};
    if (sigsetjmp(trap.jump, 1) != 0) {
      current_thread = nullptr;
      job.failure.offer(index, trap.message, true);
      break;
    }
    // Shared memory starts each block as garbage on a GPU; NaN bytes here.
    std::memset(grid.dynamic_shared, 0xFF, job.shape.dynamic_shared);
    for (int i = 0; i < job.threads; ++i) {
      pool.restart(i, fiber_entry);
      pool.fiber(i).thread.block_idx = block;
    }
    current_fault_trap = &trap;
    const bool ok = run_block(grid, block, job.three_d, problem);
    current_fault_trap = nullptr;
    if (!ok) {
      job.failure.offer(index, problem, false);
      break;
    }
    if (std::atomic<std::uint64_t>* done = progress_counter()) done->fetch_add(1, std::memory_order_relaxed);
  }
  current_fault_trap = nullptr;
  current_grid = nullptr;
  job.strays.offer(trap);
}

// Worker threads for a launch: CUDACPU_THREADS when set, else one per core
// (at most 8), never more than there are blocks.
int worker_count(std::uint64_t blocks) {
  long n = static_cast<long>(std::thread::hardware_concurrency());
  if (const char* env = std::getenv("CUDACPU_THREADS")) n = std::strtol(env, nullptr, 10);
  n = std::clamp(n, 1L, 8L);
  return static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(n), blocks));
}

bool reverse_schedule() {
  const char* env = std::getenv("CUDACPU_SCHEDULE");
  return env == nullptr || std::strcmp(env, "forward") != 0;
}

}  // namespace

void run_grid(const LaunchShape& shape, void (*body)(void*), void* args) {
  Runtime& rt = Runtime::get();
  if (rt.sticky() != cudaSuccess) return;  // a failed context runs nothing more
  if (current_grid != nullptr) {
    rt.fail_sticky(cudaErrorNotSupported,
                   "a kernel launch inside a kernel (dynamic parallelism) is not supported on the CPU backend");
    return;
  }
  cudaError_t err = cudaSuccess;
  const std::string problem = shape_problem(shape, rt.max_dynamic_shared(shape.kernel), err);
  if (!problem.empty()) {
    rt.fail(err, problem);
    return;
  }
  GridJob job;
  job.shape = shape;
  job.body = body;
  job.args = args;
  const dim3 g = shape.grid, b = shape.block;
  job.threads = static_cast<int>(b.x * b.y * b.z);
  job.blocks = std::uint64_t(g.x) * g.y * g.z;
  job.workers = worker_count(job.blocks);
  job.three_d = b.z > 1 || g.z > 1;
  job.reverse = reverse_schedule();
  if (!rt.prepare_workers(job.workers, shape.dynamic_shared)) {
    rt.fail(cudaErrorMemoryAllocation, "no memory for " + std::to_string(shape.dynamic_shared) +
                                           " bytes of dynamic shared memory per worker");
    return;
  }
  std::vector<std::thread> threads;
  DataWindow open(rt.memory());  // device memory is reachable from kernels only
  try {
    for (int w = 0; w < job.workers; ++w) threads.emplace_back(run_worker, std::ref(job), std::ref(rt), w);
  } catch (const std::system_error& e) {
    // Cannot start them all: run with those that did start (blocks are dealt by the count).
    for (std::thread& t : threads) t.join();
    rt.fail(cudaErrorLaunchOutOfResources, std::string("could not start worker threads: ") + e.what());
    return;
  }
  for (std::thread& t : threads) t.join();
  rt.memory().close_zones();
  if (!job.strays.first.empty()) rt.note_stray_access(job.strays.first);
  if (job.failure.block.load() == UINT64_MAX) return;
  if (job.failure.fault) rt.die(job.failure.message.c_str());
  rt.fail_sticky(cudaErrorLaunchFailure, job.failure.message);
}

}  // namespace cudacpu::detail
