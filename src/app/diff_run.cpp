#include "app/diff_run.h"

#include "analysis/diff.h"
#include "analysis/knowledge.h"

namespace goblin::app {

VerbResult run_diff(const analysis::AnalysisKnowledge& k, const std::string& before, const std::string& after,
                    int top) {
  VerbResult vr;
  auto d = analysis::diff_paths(before, after, k);
  if (!d) {
    vr.error = d.error();
    return vr;
  }
  vr.result = analysis::diff_to_json(*d);
  vr.human = analysis::diff_human(*d, top);
  if (d->damage) vr.error = d->damage;  // partial input: the diff covers what was read
  return vr;
}

}  // namespace goblin::app
