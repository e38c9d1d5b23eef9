// What the CPU layer watches while a grid runs, beyond the values it
// computes: the global loads of every GPU thread (the structure check's
// figure), the blocks that write each word of a global allocation (races
// between blocks), and when a thread gives way to another resident block.
//
// The student's translation unit is compiled with gcc's kernel-address
// instrumentation over a shadow of the layer's own (access_hooks.cpp): a
// load or store of global memory calls one of the hooks with its address
// first, any other costs an inline test of one shadow byte. For a global
// word a hook
//  - counts a load for the thread (a 16-byte load is one load, as one
//    instruction on a GPU);
//  - records which blocks wrote the word in this launch, and that a block
//    stored to a word another block had written with different bits: a race
//    between blocks, which nothing orders on a GPU (atomics are exempt);
//  - gives a load of a word that only other blocks wrote in this launch the
//    word's value from before the launch. A GPU may give either value to such
//    a read; this one loses the other block's update, as a GPU does when two
//    blocks add into one element at once (split-K without atomics);
//  - watches the words it loaded until the thread's next global access: gcc
//    checks one access per address and basic block, so the store of
//    `C[i] += x` is not seen, and a watched word that changed was stored by
//    this thread;
//  - counts down the thread's turn: another resident block runs next
//    (block_scheduler.cpp), so that blocks interleave at other points than
//    barriers too.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "cudacpu/types.h"

namespace cudacpu::detail {

struct Allocation;
class DeviceMemory;

// Where the compiled code finds an address's shadow byte: (address >> 3) +
// this (the student's object is built with -fasan-shadow-offset of it).
constexpr std::uintptr_t kShadowOffset = 0x7fff8000;

// Sets the shadow of [data, data + bytes): a global allocation's data is
// seen by the hooks (global), anything else not.
void mark_global(const void* data, std::size_t bytes, bool global);

// A word this thread loaded, until its next global access or switch point
// (nothing else runs meanwhile): bits other than `seen` then were stored
// by this thread. A word given its value from before the launch (`stale`)
// gets `original` back if it still holds `seen`, so that no other thread
// sees the old value.
struct WatchedWord {
  std::uint32_t* word = nullptr;
  std::uint32_t seen = 0;      // the bits the load found (or was given)
  std::uint32_t original = 0;  // stale: the bits in memory before they were swapped for old ones
  bool stale = false;
  Allocation* alloc = nullptr;
  std::size_t index = 0;       // the word's index in alloc's data
};

// A store to a word another block wrote in this launch; whether it was a
// race is known after the store: not when it stored the same bits.
struct PendingConflict {
  std::uint32_t* word = nullptr;  // null: nothing pending
  std::uint32_t bits = 0;         // the word before the store
  const Allocation* alloc = nullptr;
  std::uint32_t other = 0;  // the block that wrote it before (linear index + 1)
  std::uint32_t self = 0;
};

// The hooks' view of one GPU thread (part of its Fiber).
struct ThreadTracking {
  std::uint32_t block_tag = 0;   // linear block index + 1 (0: not tracked)
  std::uint64_t loads = 0;       // global loads in this block's run so far
  int watched = 0;
  WatchedWord watch[4];          // a 16-byte load touches four words
  PendingConflict conflict;
};

// How the launches to come run: each block's threads in ascending order of
// their linear index (the race check's second run) or descending (every
// other run); the seed picks the length of a block's turn and the order in
// which resident blocks take turns.
struct Schedule {
  bool ascending = false;
  std::uint64_t seed = 0;
};

// One launch's findings and the counts since the runner last took them.
struct LaunchTracker {
  std::uint32_t epoch = 0;  // launches so far: the running one's number
  dim3 grid;                // of the running launch, to name blocks
  // Preemption: a thread gives way after `quantum` global accesses of its block's turn.
  std::uint32_t quantum = 48;
  std::uint32_t countdown = 48;
  bool others_resident = false;  // another block is resident: giving way changes something
  // Since the last take_counts().
  double warp_loads = 0;  // global loads / threads of the loading warp (warp-level instructions)
  std::uint32_t launches = 0;
  // Races between blocks since the last take_race(): elements and the first one's words.
  std::uint64_t races = 0;
  std::string first_race;
};

// Per OS thread: what the hooks test first. `span` is 0 outside a grid's
// run, so host code pays one comparison and nothing else.
struct HookContext {
  std::uintptr_t lo = 0, span = 0;  // the arena
  ThreadTracking* thread = nullptr;  // the GPU thread running, null between threads
  LaunchTracker* launch = nullptr;
  DeviceMemory* memory = nullptr;
  // The allocations of the last global accesses (a kernel reads A and B in turn, and writes C).
  static constexpr int kRecent = 4;
  Allocation* recent[kRecent] = {};
  int next_recent = 0;
};
extern __thread HookContext hook_context;

// Settles what the running thread left pending (restores a word it was
// given an old value of; decides a pending conflict). Called at every
// switch point and before any access the hooks do not see (atomics).
void settle_pending(ThreadTracking& t);
inline void settle(ThreadTracking& t) {
  if (t.watched != 0 || t.conflict.word != nullptr) settle_pending(t);
}

// The block scheduler's side of preemption (block_scheduler.cpp): the
// running thread gives way to the next resident block.
void give_way();

// Makes the race message for a conflict that stored other bits.
void record_race(LaunchTracker& launch, const PendingConflict& c);

// Before a library copy (the memcpy/memmove/memset wrappers): the store and
// the load as the hooks would see them, settled by unseen_access() after it.
void before_copy(void* dst, const void* src, std::size_t n);

}  // namespace cudacpu::detail
