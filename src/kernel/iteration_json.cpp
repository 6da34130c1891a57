// memory/v<N>.json's JSON form, declared once as a field list (core/fields.h).
#include "core/fields.h"
#include "kernel/memory.h"

namespace goblin::fields {
using namespace goblin::kernel;

template <>
struct List<IterationCorrectness> {
  static inline const auto fields = std::tuple{field("passed", &IterationCorrectness::passed),
                                               field("max_rel_err", &IterationCorrectness::max_rel_err),
                                               field("threshold", &IterationCorrectness::threshold)};
};
template <>
struct List<IterationRecord> {
  using R = IterationRecord;
  static inline const auto fields = std::tuple{field("version", &R::version, Required),
                                               field("parent", &R::parent),
                                               field("masked", &R::masked),
                                               field("change_summary", &R::change_summary),
                                               field("hypothesis", &R::hypothesis),
                                               field("tags", &R::tags, Omit),
                                               field("bottlenecks", &R::bottlenecks),
                                               field("classification", &R::classification),
                                               field("correctness", &R::correctness),
                                               field("performance", &R::performance),
                                               field("profile", &R::profile),
                                               field("commit", &R::commit),
                                               field("pitfalls_and_fixes", &R::pitfalls_and_fixes),
                                               field("recorded_at", &R::recorded_at, Omit)};
};
}  // namespace goblin::fields

namespace goblin::kernel {
Json iteration_to_json(const IterationRecord& r) { return fields::to_json(r); }
Result<IterationRecord> iteration_from_json(const Json& j, const std::string& file) {
  auto r = fields::from_json<IterationRecord>(j, "memory file");
  if (!r.ok()) {
    Error e = r.error();
    e.file = file;
    return e;
  }
  return r;
}
}  // namespace goblin::kernel
