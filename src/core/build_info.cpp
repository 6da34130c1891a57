#include "core/build_info.h"

// Generated at build time by cmake/build_info_gen.cmake (rewritten only when the commit changes),
// and included by this file alone so a new commit recompiles one translation unit and relinks.
#include "goblin_build_info.h"

namespace goblin {

const BuildInfo& build_info() {
  static const BuildInfo info{GOBLIN_BUILD_VERSION, GOBLIN_BUILD_COMMIT};
  return info;
}

Json build_info_json() { return Json{{"version", build_info().version}, {"commit", build_info().commit}}; }

}  // namespace goblin
