#include "compare/diagnosis_catalogue.h"

#include <array>
#include <cstdlib>

namespace sg {
namespace {

using B = DiagnosisBasis;
using Id = DiagnosisId;

// In DiagnosisId order (checked below). Keys never change: class summaries
// and sample expectations count and name diagnoses by them.
constexpr std::array<DiagnosisEntry, kDiagnosisCount> kCatalogue{{
    {Id::LdBAndCUseK, "ld.b_and_c_use_k", B::Reproduced, true, nullptr},
    {Id::LdCUsesK, "ld.c_uses_k", B::Reproduced, true, nullptr},
    {Id::LdCUsesM, "ld.c_uses_m", B::Reproduced, true, nullptr},
    {Id::LdBUsesK, "ld.b_uses_k", B::Reproduced, true, nullptr},
    {Id::LdAUsesM, "ld.a_uses_m", B::Reproduced, true, nullptr},
    {Id::LdAUsesN, "ld.a_uses_n", B::Reproduced, true, nullptr},
    {Id::LdBUsesM, "ld.b_uses_m", B::Reproduced, true, nullptr},
    {Id::IndexBTransposed, "index.b_transposed", B::Reproduced, false, nullptr},
    {Id::IndexATransposed, "index.a_transposed", B::Reproduced, false, nullptr},
    {Id::IndexATileTransposed, "index.a_tile_transposed", B::Reproduced, false, nullptr},
    {Id::IndexBTileTransposed, "index.b_tile_transposed", B::Reproduced, false, nullptr},
    {Id::IndexTilesTransposed, "index.tiles_transposed", B::Reproduced, false, nullptr},
    {Id::PhasesFromN, "phases.from_n", B::Reproduced, false, nullptr},
    {Id::PhasesFromM, "phases.from_m", B::Reproduced, false, nullptr},
    {Id::PhasesFloor, "phases.floor", B::Reproduced, false, nullptr},
    {Id::PhasesShort, "phases.short", B::Reproduced, false, nullptr},
    {Id::GuardKVsM, "guard.k_vs_m", B::Reproduced, false, nullptr},
    {Id::GuardKVsN, "guard.k_vs_n", B::Reproduced, false, nullptr},
    {Id::PaddingNonzero, "padding.nonzero", B::Reproduced, false, nullptr},
    {Id::GridSwappedXy, "grid.swapped_xy", B::Reproduced, false, nullptr},
    {Id::GridFloor, "grid.floor", B::Reproduced, false, nullptr},
    {Id::BlockOneRow, "block.one_row", B::Reproduced, false, nullptr},
    {Id::BlockOneColumn, "block.one_column", B::Reproduced, false, nullptr},
    {Id::GuardRowVsN, "guard.row_vs_n", B::Reproduced, false, nullptr},
    {Id::GuardColVsM, "guard.col_vs_m", B::Reproduced, false, nullptr},
    {Id::StoreRowMisplaced, "store.row_misplaced", B::Reproduced, false, nullptr},
    {Id::StoreColMisplaced, "store.col_misplaced", B::Reproduced, false, nullptr},
    {Id::LoadUnguarded, "load.unguarded", B::Reproduced, false, nullptr},
    {Id::MemoryReadsOutside, "memory.reads_outside", B::Reproduced, false, nullptr},

    {Id::WrongWhere, "wrong.where", B::Pattern, false, nullptr},
    {Id::RaceOutputChanges, "race.output_changes", B::Pattern, false,
     "the result changes between runs on the same inputs: a race — call __syncthreads() after loading the tiles "
     "into shared memory and again before the next iteration overwrites them, where every thread of the block "
     "reaches it (not inside an if that some threads skip)"},
    {Id::UnwrittenAll, "unwritten.all", B::Pattern, false,
     "no element of C was written (all still hold the NaN poison): check that basicSgemm launches mysgemm with a "
     "non-empty grid and that the kernel stores its sum to C"},
    {Id::UnwrittenMost, "unwritten.most", B::Pattern, false,
     "most of C was never written (still the NaN poison): the grid, or the block shape, covers too little of C — "
     "gridDim.x = (n + TILE_SIZE - 1) / TILE_SIZE, gridDim.y = (m + TILE_SIZE - 1) / TILE_SIZE, blockDim TILE_SIZE "
     "x TILE_SIZE"},
    {Id::UnwrittenSome, "unwritten.some", B::Pattern, false, nullptr},
    {Id::NonfiniteComputed, "nonfinite.computed", B::Pattern, false,
     "every element of C was written, but with NaN or Inf: the sums picked up non-finite values — typically read "
     "from outside A or B (a load without a bounds check) or from shared memory that was never loaded"},
    {Id::NonfiniteSome, "nonfinite.some", B::Pattern, false, nullptr},
    {Id::ZerosExact, "zeros.exact", B::Pattern, false, nullptr},
    {Id::PrecisionReduced, "precision.reduced", B::Pattern, false,
     "small errors all over C (relative error under 1e-2, yet above what FP32 allows): the arithmetic runs in "
     "reduced precision — multiply and accumulate in float, not half/bfloat16/TF32, and build without fast-math "
     "options"},
    {Id::BoundaryEdgeUnwritten, "boundary.edge_unwritten", B::Pattern, false, nullptr},
    {Id::BoundaryEdgeWrong, "boundary.edge_wrong", B::Pattern, false, nullptr},
    {Id::BarrierDivergent, "barrier.divergent", B::Pattern, false, nullptr},
    {Id::StoreWrapsPastN, "store.wraps_past_n", B::Pattern, false, nullptr},
    {Id::TilesWholeUnwritten, "tiles.whole_unwritten", B::Pattern, false,
     "whole tiles of C were never written (NaN) while others are right: each block must compute its own tile (row "
     "from blockIdx.y, col from blockIdx.x) and the grid must cover all of C"},
    {Id::TilesWholeWrong, "tiles.whole_wrong", B::Pattern, false,
     "whole tiles are wrong while others are right: check how blockIdx and threadIdx map to the tile (row = "
     "blockIdx.y*TILE_SIZE + threadIdx.y, col = blockIdx.x*TILE_SIZE + threadIdx.x) and the tile offsets used in "
     "the K loop"},

    {Id::AcrossKTail, "across.k_tail", B::AcrossSizes, false, nullptr},
    {Id::AcrossLeadingDimB, "across.leading_dim_b", B::AcrossSizes, false, nullptr},
    {Id::AcrossLeadingDimA, "across.leading_dim_a", B::AcrossSizes, false, nullptr},
    {Id::AcrossGridSwapped, "across.grid_swapped", B::AcrossSizes, false, nullptr},
    {Id::AcrossRaggedMn, "across.ragged_mn", B::AcrossSizes, false, nullptr},
    {Id::AcrossAmbiguous, "across.ambiguous", B::AcrossSizes, false, nullptr},

    {Id::MemoryOutOfBounds, "memory.out_of_bounds", B::Reported, false,
     "an out-of-bounds access: check the boundary conditions of every load into shared memory and of the store to "
     "C"},
    {Id::MemoryIllegalAddress, "memory.illegal_address", B::Reported, false,
     "an out-of-bounds global memory access: guard every load and store with row < m, col < n and the tile's k "
     "index < k"},
    {Id::RaceSharedMemory, "race.shared_memory", B::Reported, false,
     "a shared-memory race: a missing __syncthreads (the first barrier, after the loads, keeps threads from reading "
     "tile entries not loaded yet; the second, after the partial sums, stops the next phase overwriting tiles still "
     "being read)"},
    {Id::RaceBetweenBlocks, "race.between_blocks", B::Reported, false,
     "a race between blocks: two blocks store to the same element of global memory in one launch, and nothing "
     "orders them on a GPU (a sum split over several blocks needs atomicAdd; a global array used as a tile needs "
     "__shared__)"},
    {Id::HangTimeout, "hang.timeout", B::Reported, false,
     "the kernel or basicSgemm did not finish in time: either a loop whose bound never becomes true (e.g. a phase "
     "counter that is never incremented) or a barrier not all threads reach, or far more work than the shape needs "
     "(e.g. a grid much larger than C, or every block walking more K tiles than k has)"},
    {Id::GridSlowOnCpu, "grid.slow_on_cpu", B::Reported, false,
     "no hang: blocks kept completing until the end, but the launch did far more work than the shape needs for the "
     "CPU backend, which runs blocks a few at a time (a GPU runs them side by side): launch only the blocks C needs, "
     "dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE), and walk only the (k + TILE - 1) / TILE tiles that k "
     "has"},

    {Id::StructureNotTiled, "structure.not_tiled", B::Reported, false,
     "the assignment asks for a tiled kernel: stage 16x16 tiles of A and B in __shared__ arrays and separate loading "
     "from computing with __syncthreads"},
    {Id::StructureLowReuse, "structure.low_reuse", B::Reported, false,
     "each value your kernel loads from global memory serves few multiply-adds: load a tile of A and of B into "
     "__shared__ memory once, then let every thread of the block read it from there (a shared array the loop does "
     "not read changes nothing)"},
}};

constexpr bool in_id_order() {
  for (std::size_t i = 0; i < kCatalogue.size(); ++i)
    if (static_cast<std::size_t>(kCatalogue[i].id) != i) return false;
  return true;
}
static_assert(in_id_order(), "the catalogue lists every DiagnosisId once, in the enum's order");

}  // namespace

const DiagnosisEntry& diagnosis_entry(DiagnosisId id) { return kCatalogue[static_cast<std::size_t>(id)]; }
const DiagnosisEntry* diagnosis_catalogue_begin() { return kCatalogue.data(); }
const DiagnosisEntry* diagnosis_catalogue_end() { return kCatalogue.data() + kCatalogue.size(); }

const DiagnosisEntry* find_diagnosis(std::string_view key) {
  for (const DiagnosisEntry& e : kCatalogue)
    if (key == e.key) return &e;
  return nullptr;
}

Diagnosis make_diagnosis(DiagnosisId id) {
  const DiagnosisEntry& e = diagnosis_entry(id);
  // A sentence the case fills in has no text here: calling this for it is a programming error.
  if (!e.text) std::abort();
  return {e.key, e.text};
}

Diagnosis make_diagnosis(DiagnosisId id, std::string text) { return {diagnosis_entry(id).key, std::move(text)}; }

}  // namespace sg
