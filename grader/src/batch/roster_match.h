// Which student of a Canvas roster each person of a graded class is, by the
// columns Canvas matches an import on, so that canvas.csv carries the ids
// Canvas knows them by.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "batch/canvas_roster.h"
#include "batch/lms_export.h"

namespace sg::batch {

// How a person was found in the roster, strongest first.
enum class MatchedBy {
  SisId,       // their SID, e-mail or id equals the student's SIS User ID or SIS Login ID
  CanvasId,    // their id or SID equals the student's Canvas ID
  LoginName    // only the part before '@' of an e-mail or login agrees: worth a TA's look
};

struct RosterMatch {
  // Per roster student (in roster order): the index into `people`, or none.
  std::vector<std::optional<std::size_t>> person;
  std::vector<MatchedBy> by;           // per roster student, where `person` is set
  std::vector<std::size_t> unmatched;  // people no roster student matched, in people's order
  std::vector<std::string> notes;      // ambiguities and weak matches, one sentence each
};

// Ids are compared without regard to case or surrounding blanks; an empty id
// matches nothing. At each strength in turn, a person and a roster student
// match when each is the only candidate of the other (among those not yet
// matched); a person with several candidates is matched to none, and said so.
RosterMatch match_roster(const CanvasRoster& roster, const std::vector<Person>& people);

}  // namespace sg::batch
