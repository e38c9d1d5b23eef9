// Every diagnosis the grader can give, in one table: its stable id (class
// summaries count by it, sample expectations name it) and, where the sentence
// holds none of the case's numbers, that sentence. A Diagnosis is only ever
// made here, from a DiagnosisId, so an id nobody catalogued does not compile.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "model/result.h"

namespace sg {

enum class DiagnosisId {
  // Hypotheses whose prediction reproduced the output (compare/hypotheses.h).
  LdBAndCUseK, LdCUsesK, LdCUsesM, LdBUsesK, LdAUsesM, LdAUsesN, LdBUsesM,
  IndexBTransposed, IndexATransposed, IndexATileTransposed, IndexBTileTransposed, IndexTilesTransposed,
  PhasesFromN, PhasesFromM, PhasesFloor, PhasesShort, GuardKVsM, GuardKVsN, PaddingNonzero,
  GridSwappedXy, GridFloor, BlockOneRow, BlockOneColumn, GuardRowVsN, GuardColVsM,
  StoreRowMisplaced, StoreColMisplaced, LoadUnguarded, MemoryReadsOutside,
  // Readings of one case's error pattern (compare/diagnosis.cpp, where_wrong.cpp).
  WrongWhere, RaceOutputChanges, UnwrittenAll, UnwrittenMost, UnwrittenSome, NonfiniteComputed, NonfiniteSome,
  ZerosExact, PrecisionReduced, BoundaryEdgeUnwritten, BoundaryEdgeWrong, BarrierDivergent, StoreWrapsPastN,
  TilesWholeUnwritten, TilesWholeWrong,
  // Failures across the sizes of every case (diagnose_across).
  AcrossKTail, AcrossLeadingDimB, AcrossLeadingDimA, AcrossGridSwapped, AcrossRaggedMn, AcrossAmbiguous,
  // What the runner or a tool reported (words/case_report.cpp, the sanitizer).
  MemoryOutOfBounds, MemoryIllegalAddress, RaceSharedMemory, RaceBetweenBlocks, HangTimeout, GridSlowOnCpu,
  // The structure check (pipeline/checks.cpp).
  StructureNotTiled, StructureLowReuse,
  Last = StructureLowReuse  // keep equal to the last id: the catalogue lists ids up to it
};
inline constexpr std::size_t kDiagnosisCount = static_cast<std::size_t>(DiagnosisId::Last) + 1;

// How a diagnosis was reached: the pipeline reads this, never the id.
enum class DiagnosisBasis {
  Reproduced,   // a bug's prediction reproduced the output element by element
  Pattern,      // read from where the wrong elements are, or what they hold
  AcrossSizes,  // which sizes fail
  Reported      // what the runner, a tool or a check measured
};

struct DiagnosisEntry {
  DiagnosisId id;
  const char* key;  // the stable id ("ld.b_uses_k")
  DiagnosisBasis basis;
  // One of several accounts of a wrong leading dimension: the one from the
  // values is the more precise where two are found.
  bool leading_dimension;
  const char* text;  // the whole sentence; nullptr where the case's numbers fill it in
};

// The catalogue, in DiagnosisId order.
const DiagnosisEntry& diagnosis_entry(DiagnosisId id);
const DiagnosisEntry* diagnosis_catalogue_begin();
const DiagnosisEntry* diagnosis_catalogue_end();
// The entry whose key is `key`; nullptr for an id the grader does not give.
const DiagnosisEntry* find_diagnosis(std::string_view key);

// A diagnosis with the catalogue's own sentence (the entry must have one).
Diagnosis make_diagnosis(DiagnosisId id);
// A diagnosis whose sentence holds this case's numbers.
Diagnosis make_diagnosis(DiagnosisId id, std::string text);

}  // namespace sg
