// Which goblin wrote an output: the project version and the git commit it was built from, recorded
// in report.json, run.json, bench results, the audit history and triage's profile_metadata.json,
// and printed by `goblin --version`.
#pragma once
#include <string>

#include "core/json.h"

namespace goblin {

struct BuildInfo {
  std::string version;  // the CMake project version, e.g. "0.1.0"
  std::string commit;   // short git commit, "-dirty" appended for uncommitted changes; "unknown" without git
};

const BuildInfo& build_info();
// {"version": ..., "commit": ...}: the "goblin" object of every output that records it.
Json build_info_json();

}  // namespace goblin
