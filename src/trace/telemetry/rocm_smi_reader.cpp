// PLACEHOLDER: replaced by the real reader (see issue #2).
#include "trace/readers.h"
namespace goblin {
Status read_rocm_smi(const std::string& path, Timeline&, const ReadOptions&) { return make_error(ErrorKind::Internal, "reader not built yet", path); }
}  // namespace goblin
