// The trace verbs' typed entry points, for a verb that needs another's result (profile-server
// triages the trace it collected): it calls the function with a request struct, never the verb's
// JSON door.
#pragma once
#include <string>
#include <vector>

#include "app/verb.h"
#include "store/import.h"

namespace goblin::app {

struct TriageRequest {
  std::vector<std::string> path;
  std::string out, stage, target_arch, capture;
  int64_t top = 15;
  bool by_module = false;
};

// goblin triage: artifacts in rq.out (one folder per rank for several traces); `link` is the
// run's --experiment / --trial, written into profile_metadata.json.
VerbResult triage(const TriageRequest& rq, const store::Linkage& link, Context& ctx);

}  // namespace goblin::app
