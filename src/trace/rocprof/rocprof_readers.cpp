// PLACEHOLDER: replaced by the real reader (see issue #2).
#include "trace/readers.h"
namespace goblin {
Status read_rocprofv3_csv(const std::string& path, Timeline&, const ReadOptions&) { return make_error(ErrorKind::Internal, "reader not built yet", path); }
Status read_rocprofv3_json(const std::string& path, Timeline&, const ReadOptions&) { return make_error(ErrorKind::Internal, "reader not built yet", path); }
Status read_rocprof_v1(const std::string& path, Timeline&, const ReadOptions&) { return make_error(ErrorKind::Internal, "reader not built yet", path); }
}  // namespace goblin
