// read_kineto_header (trace/kineto_header.h): the parts of a Kineto trace the Timeline does not model
// but a viewer needs, kept verbatim for `goblin export` (query/slice.h).
#include "trace/kineto_header.h"

#include "core/io.h"
#include "core/json.h"
#include "trace/kineto/trace_splitter.h"

namespace goblin::trace {

namespace {

class HeaderSink : public kineto::TraceSplitter::Handler {
 public:
  explicit HeaderSink(KinetoHeader& h) : h_(h) {}
  void on_event(std::string_view json, uint64_t) override {
    // Cheap test first: metadata events are a few dozen in millions of events.
    if (json.find("\"M\"") == std::string_view::npos) return;
    const Json e = Json::parse(json, nullptr, false);
    if (e.is_object() && e.value("ph", "") == "M") h_.metadata_events.emplace_back(json);
  }
  void on_top_level(std::string_view key, std::string_view value, uint64_t) override {
    h_.top_level.emplace_back(std::string(key), std::string(value));
  }
  void on_note(std::string, uint64_t) override {}

 private:
  KinetoHeader& h_;
};

}  // namespace

Result<KinetoHeader> read_kineto_header(const std::string& path) {
  KinetoHeader h;
  ASSIGN_OR_RETURN(auto src, open_source(path));
  HeaderSink sink(h);
  kineto::TraceSplitter sp(sink, path);
  constexpr size_t kChunk = 1u << 20;
  for (;;) {
    char* dst = sp.prepare(kChunk);
    ASSIGN_OR_RETURN(size_t n, src->read(dst, kChunk));
    if (n == 0) break;
    RETURN_IF_ERROR(sp.commit(n));
  }
  RETURN_IF_ERROR(sp.finish());
  return h;
}

}  // namespace goblin::trace
