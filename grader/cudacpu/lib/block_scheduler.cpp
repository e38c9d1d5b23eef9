// Runs a grid as a GPU would schedule it, on one worker thread (fresh for
// every launch, so shared memory starts zeroed). Up to kMaxResident blocks
// are resident at once, each with its own shared memory, and they take
// turns: a block runs one round (each of its threads until it reaches a
// barrier or returns), or until one of its threads gives way after a
// number of global accesses (launch_tracking.h), then the next resident
// block runs. So a global array that blocks use as a tile is overwritten by
// another block between a block's loads and its reads, as on a GPU, where
// many blocks run at once. The turn's length (how many accesses) and the
// order in which the resident blocks take turns follow the schedule's seed,
// which the judge sends with each case; a run is the same whenever the seed
// is.
//
// Within a block the threads are fibers switched at barriers, and the order
// is chosen to expose missing barriers: each thread runs alone until it
// reaches a barrier (or returns), in descending order of its linear index.
// Without the barrier after the loads, the last thread computes with tile
// entries the others have not loaded yet (with k < 16 the entries that
// matter are the first ones, loaded by low-numbered threads, which is why
// the order is descending); without the barrier after the compute, it
// overwrites its tile entries with the next phase while the others have
// still to read them. The ascending order (cudacpu::set_schedule) is the
// judge's race check: a kernel free of shared-memory races computes the same
// bits either way.
//
// A failing block (a fault, a barrier not reached by all) ends the launch.
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
#include <memory>
#include <new>
#include <string>
#include <system_error>
#include <thread>

#include "cudacpu/launch.h"
#include "device_memory.h"
#include "fault_report.h"
#include "launch_shape.h"
#include "launch_tracking.h"
#include "runtime.h"

// The built-in variables device code reads (cudacpu/device.h).
__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

namespace cudacpu::detail {

__thread const ThreadContext* current_thread = nullptr;
__thread int resident_slot = 0;

namespace {

// Blocks completed so far, counted in the file CUDACPU_PROGRESS_FILE names
// (the grader sets it): the judge reads it when a case passes its time
// limit, and gives a grid whose blocks keep completing more time, where a
// hang completes none (services/runner_session.h). Without the variable
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

// One resident block: its fibers, its shared memory and where its round stands.
struct Slot {
  int index = 0;             // its shared memory: resident_slot while it runs
  bool busy = false;
  std::uint64_t block = 0;   // linear index
  uint3 coords{};
  int base = 0;              // its threads are fibers [base, base + threads)
  int running = -1;          // thread to resume; -1: its next turn starts a round
  bool gave_way = false;     // its last turn ended with a thread giving way
  int exited = 0;            // threads that have returned
  // The current round (from one barrier to the next):
  int waiting = 0;           // threads that reached a barrier
  bool mixed_sites = false;  // not all at the same __syncthreads
  const char* site_file = nullptr;
  int site_line = 0;
  int predicates = 0;        // sum of __syncthreads_count predicates
  int barrier_count = 0;     // result of the last completed barrier
  void* dynamic_shared = nullptr;
};

// The grid being run on this OS thread, for the fibers and the barrier.
struct GridRun {
  FiberPool* pool = nullptr;
  void (*body)(void*) = nullptr;
  void* args = nullptr;
  int threads = 0;
  bool reverse = false;  // order within a block: linear index descending
  bool three_d = false;
  Slot slots[FiberPool::kMaxResident];
  int resident = 1;      // slots in use
  Slot* current = nullptr;  // the block whose thread runs
  LaunchTracker* launch = nullptr;
};
__thread GridRun* current_grid = nullptr;

// The thread at position `pos` of a block's order, and back (the map is its own inverse).
int thread_at(const GridRun& grid, int pos) { return grid.reverse ? grid.threads - 1 - pos : pos; }

Fiber& fiber_of(GridRun& grid, const Slot& s, int thread) { return grid.pool->fiber(s.base + thread); }

// Makes thread `t` of slot s the running GPU thread: its built-in variables
// become visible to device code, its tracking to the hooks.
void enter(GridRun& grid, Slot& s, int t) {
  Fiber& f = fiber_of(grid, s, t);
  current_thread = &f.thread;
  ::threadIdx = f.thread.thread_idx;
  ::blockIdx = f.thread.block_idx;
  ::blockDim = f.thread.block_dim;
  ::gridDim = f.thread.grid_dim;
  hook_context.thread = &f.tracking;
}

void leave() {
  current_thread = nullptr;
  hook_context.thread = nullptr;
}

// Continues with the next live thread after `from` in the block's order, or
// returns to the scheduler when every thread has had its turn this round.
// Passing control directly halves the switches of going through the scheduler.
void pass_on(GridRun& grid, Slot& s, int from) {
  for (int pos = thread_at(grid, from) + 1; pos < grid.threads; ++pos) {
    const int t = thread_at(grid, pos);
    if (fiber_of(grid, s, t).exited) continue;
    s.running = t;
    enter(grid, s, t);
    grid.pool->pass(s.base + from, s.base + t);
    return;  // someone passed control back to this thread: the barrier is over
  }
  s.running = -1;
  leave();
  grid.pool->suspend(s.base + from);
}

[[noreturn]] void fiber_entry() {
  GridRun* grid = current_grid;
  grid->body(grid->args);
  Slot& s = *grid->current;  // the thread may have given way meanwhile: its slot is current again
  const int self = s.running;
  Fiber& f = fiber_of(*grid, s, self);
  settle(f.tracking);
  f.exited = true;
  ++s.exited;
  pass_on(*grid, s, self);
  __builtin_unreachable();  // an exited fiber is never resumed, only restarted
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
std::string barrier_problem(GridRun& grid, const Slot& s) {
  const Fiber* first_waiting = nullptr;
  const Fiber* exited = nullptr;
  const Fiber* elsewhere = nullptr;
  int at_site = 0, n_exited = 0, n_elsewhere = 0;
  for (int i = 0; i < grid.threads; ++i) {
    const Fiber& f = fiber_of(grid, s, i);
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
                    " of " + std::to_string(grid.threads) + " threads of block " + coords(s.coords, grid.three_d);
  if (n_exited > 0)
    msg += "; " + std::to_string(n_exited) + " had already returned, e.g. thread " +
           coords(exited->thread.thread_idx, grid.three_d);
  if (n_elsewhere > 0)
    msg += "; " + std::to_string(n_elsewhere) + " wait at a different __syncthreads (" + site(*elsewhere) +
           "), e.g. thread " + coords(elsewhere->thread.thread_idx, grid.three_d);
  return msg + " (every thread of a block must reach the same barriers)";
}

enum class Turn { Again, Done, Failed };

// One turn of a resident block: the rest of its round, or until a thread gives way.
Turn take_turn(GridRun& grid, Slot& s, std::string& problem) {
  if (s.running < 0) {
    int pos = 0;
    while (pos < grid.threads && fiber_of(grid, s, thread_at(grid, pos)).exited) ++pos;
    if (pos == grid.threads) return Turn::Done;
    s.waiting = 0;
    s.mixed_sites = false;
    s.predicates = 0;
    s.running = thread_at(grid, pos);
  }
  grid.current = &s;
  resident_slot = s.index;
  s.gave_way = false;
  enter(grid, s, s.running);
  grid.pool->resume(s.base + s.running);  // back at the round's end, or when a thread gave way
  leave();
  if (s.gave_way) return Turn::Again;
  if (s.waiting == 0) return Turn::Done;  // every thread returned
  if (s.exited > 0 || s.mixed_sites) {
    problem = barrier_problem(grid, s);
    return Turn::Failed;
  }
  s.barrier_count = s.predicates;
  return Turn::Again;
}

// Threads of the warp that thread t belongs to (the last warp of a block may be partial).
int warp_threads(int threads, int t) { return std::min(32, threads - t / 32 * 32); }

// A block is done: its threads' loads, as warp-level instructions, go to the launch's count.
void retire(GridRun& grid, Slot& s) {
  double warp_loads = 0;
  for (int t = 0; t < grid.threads; ++t) {
    ThreadTracking& tr = fiber_of(grid, s, t).tracking;
    warp_loads += static_cast<double>(tr.loads) / warp_threads(grid.threads, t);
    tr.loads = 0;
  }
  grid.launch->warp_loads += warp_loads;
  if (std::atomic<std::uint64_t>* done = progress_counter()) done->fetch_add(1, std::memory_order_relaxed);
}

void admit(GridRun& grid, Slot& s, std::uint64_t block, const dim3& g, std::size_t dynamic_bytes) {
  s.busy = true;
  s.block = block;
  s.coords = uint3{static_cast<unsigned>(block % g.x), static_cast<unsigned>((block / g.x) % g.y),
                   static_cast<unsigned>(block / (std::uint64_t(g.x) * g.y))};
  s.running = -1;
  s.exited = 0;
  s.barrier_count = 0;
  // Block numbers past 2^32 - 2 are not tracked (a grid that large never completes here).
  const std::uint32_t tag = block < 0xFFFFFFFEull ? static_cast<std::uint32_t>(block + 1) : 0;
  for (int t = 0; t < grid.threads; ++t) {
    grid.pool->restart(s.base + t, fiber_entry);
    Fiber& f = fiber_of(grid, s, t);
    f.thread.block_idx = s.coords;
    f.tracking = ThreadTracking{};
    f.tracking.block_tag = tag;
  }
  // Shared memory starts each block as garbage on a GPU; NaN bytes here.
  std::memset(s.dynamic_shared, 0xFF, dynamic_bytes);
}

struct GridJob {
  LaunchShape shape;
  void (*body)(void*) = nullptr;
  void* args = nullptr;
  int threads = 0;
  std::uint64_t blocks = 0;
  int resident = 1;
  bool three_d = false;
  Schedule schedule;
  // The outcome.
  bool failed = false;
  bool fault = false;  // a fault (fatal) rather than a barrier error (sticky)
  std::string message;
  std::string stray;   // the first red-zone access
};

void run_worker(GridJob& job, Runtime& rt) {
  AltSignalStack alt_stack;
  FiberPool& pool = rt.pool();
  if (!pool.reserve(job.threads * job.resident)) {
    job.failed = true;
    job.message = "no memory for the stacks of " + std::to_string(job.threads * job.resident) + " GPU threads";
    return;
  }
  const dim3 g = job.shape.grid, b = job.shape.block;
  auto grid = std::make_unique<GridRun>();  // on the heap: read again after a fault's jump back here
  grid->pool = &pool;
  grid->body = job.body;
  grid->args = job.args;
  grid->threads = job.threads;
  grid->reverse = !job.schedule.ascending;
  grid->three_d = job.three_d;
  grid->resident = job.resident;
  grid->launch = &rt.tracker();
  for (int r = 0; r < job.resident; ++r) {
    Slot& s = grid->slots[r];
    s.index = r;
    s.base = r * job.threads;
    s.dynamic_shared = rt.dynamic_shared(r);
    for (int t = 0; t < job.threads; ++t) {
      ThreadContext& c = pool.fiber(s.base + t).thread;
      const unsigned u = static_cast<unsigned>(t);
      c.thread_idx = uint3{u % b.x, (u / b.x) % b.y, u / (b.x * b.y)};
      c.block_dim = b;
      c.grid_dim = g;
    }
  }
  current_grid = grid.get();
  DeviceMemory& memory = rt.memory();
  hook_context = HookContext{};
  hook_context.lo = memory.arena_begin();
  hook_context.span = memory.arena_bytes();
  hook_context.launch = grid->launch;
  hook_context.memory = &memory;
  FaultTrap trap;
  current_fault_trap = &trap;
  std::string problem;  // declared before sigsetjmp: a jump back must not skip its destructor
  if (sigsetjmp(trap.jump, 1) != 0) {
    leave();
    job.failed = job.fault = true;
    job.message = trap.message;
  } else {
    std::uint64_t next = 0;
    int active = 0;
    for (int r = 0; r < grid->resident && next < job.blocks; ++r, ++active)
      admit(*grid, grid->slots[r], next++, g, job.shape.dynamic_shared);
    // The resident blocks take turns, in the order the seed picks (forwards or backwards).
    const bool backwards = (job.schedule.seed >> 7) & 1;
    while (active > 0 && !job.failed) {
      for (int i = 0; i < grid->resident && !job.failed; ++i) {
        Slot& s = grid->slots[backwards ? grid->resident - 1 - i : i];
        if (!s.busy) continue;
        grid->launch->others_resident = active > 1;
        const Turn turn = take_turn(*grid, s, problem);
        if (turn == Turn::Failed) {
          job.failed = true;
          job.message = problem;
        } else if (turn == Turn::Done) {
          retire(*grid, s);
          if (next < job.blocks) {
            admit(*grid, s, next++, g, job.shape.dynamic_shared);
          } else {
            s.busy = false;
            --active;
          }
        }
      }
    }
  }
  current_fault_trap = nullptr;
  // Nothing a thread left pending may outlive the launch (a stopped grid leaves some).
  for (int f = 0; f < job.threads * job.resident; ++f) settle(pool.fiber(f).tracking);
  hook_context = HookContext{};
  current_grid = nullptr;
  job.stray = trap.stray_message;
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
  if (grid == nullptr || grid->current == nullptr || grid->current->running < 0) used_outside_kernel("__syncthreads");
  Slot& s = *grid->current;
  const int self = s.running;
  Fiber& f = fiber_of(*grid, s, self);
  settle(f.tracking);
  f.barrier_file = file;
  f.barrier_line = line;
  if (s.waiting == 0) {
    s.site_file = file;
    s.site_line = line;
  } else if (line != s.site_line || (file != s.site_file && std::strcmp(file, s.site_file) != 0)) {
    s.mixed_sites = true;
  }
  ++s.waiting;
  s.predicates += predicate;
  pass_on(*grid, s, self);
  return s.barrier_count;
}

void give_way() {
  GridRun* grid = current_grid;
  if (grid == nullptr || grid->current == nullptr || grid->current->running < 0) return;
  Slot& s = *grid->current;
  const int self = s.running;
  settle(fiber_of(*grid, s, self).tracking);
  s.gave_way = true;
  leave();
  grid->pool->suspend(s.base + self);  // resumed by a later turn of its block, entered again
}

int block_thread_count() {
  GridRun* grid = current_grid;
  if (grid == nullptr) used_outside_kernel("__syncthreads_and");
  return grid->threads;
}

void* shared_array_storage(std::size_t bytes, std::size_t align, const char* name, const char* element_type,
                           std::size_t element_size) {
  Runtime& rt = Runtime::get();
  void* p = rt.memory().allocate(bytes, true, align);
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
  if (current_grid == nullptr || current_grid->current == nullptr) used_outside_kernel("extern __shared__ memory");
  return current_grid->current->dynamic_shared;
}

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
  job.three_d = b.z > 1 || g.z > 1;
  job.schedule = rt.schedule();
  job.resident = static_cast<int>(std::min<std::uint64_t>(job.blocks, rt.resident_blocks()));
  if (!rt.prepare_slots(job.resident, shape.dynamic_shared)) {
    rt.fail(cudaErrorMemoryAllocation, "no memory for " + std::to_string(shape.dynamic_shared) +
                                           " bytes of dynamic shared memory per block");
    return;
  }
  LaunchTracker& tracker = rt.tracker();
  ++tracker.epoch;
  ++tracker.launches;
  tracker.grid = g;
  // The turn's length: 16 to 79 global accesses, from the seed.
  tracker.quantum = 16 + static_cast<std::uint32_t>(job.schedule.seed % 64);
  tracker.countdown = tracker.quantum;
  DataWindow open(rt.memory());  // device memory is reachable from kernels only
  try {
    std::thread worker(run_worker, std::ref(job), std::ref(rt));
    worker.join();
  } catch (const std::system_error& e) {
    rt.fail(cudaErrorLaunchOutOfResources, std::string("could not start the worker thread: ") + e.what());
    return;
  }
  rt.memory().close_zones();
  if (!job.stray.empty()) rt.note_stray_access(job.stray);
  if (!job.failed) return;
  if (job.fault) rt.die(job.message.c_str());
  rt.fail_sticky(cudaErrorLaunchFailure, job.message);
}

}  // namespace cudacpu::detail
