// corpus: repo:src/mcp/testdata/corpus
// libFuzzer target: one input = one JSON-RPC line through the message parser and the dispatcher
// (initialize first, so every method is reachable). Tools run for real, confined to a temporary
// root with no replay and no live runs; nothing may crash, hang or answer with invalid JSON.
#include <fmt/format.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "mcp/server.h"

using namespace goblin::mcp;

namespace {
struct Harness {
  std::unique_ptr<Session> session;
  std::unique_ptr<Server> server;
  Harness() {
    auto dir = std::filesystem::temp_directory_path() / fmt::format("goblin_fuzz_mcp_{}", ::getpid());

    std::filesystem::create_directories(dir);
    ServerOptions o;
    o.roots = {dir.string()};
    o.out_dir = (dir / "out").string();
    o.budget = 1000000;
    session = std::make_unique<Session>(o, *Roots::make(o.roots));
    server = std::make_unique<Server>(*session, make_registry());
    server->handle_line(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})");
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness h;
  std::string line(reinterpret_cast<const char*>(data), size);
  auto r = h.server->handle_line(line);
  if (r) {
    std::string out = r->dump(-1, ' ', false, goblin::Json::error_handler_t::replace);
    if (out.find('\n') != std::string::npos) __builtin_trap();  // one message per line
  }
  return 0;
}
