// corpus: repo:src/mcp/testdata/corpus
// libFuzzer target: one input = one JSON-RPC line through the message parser and the dispatcher
// (initialize first, so every method is reachable). Tools run for real, confined to a temporary
// root with no replay and no live runs; nothing may crash, hang or answer with invalid JSON. The
// root holds traps a line may name: links out of it, a FIFO nobody writes, a link to /dev/zero, a
// directory link loop (each must be refused, never read: a read of any of them would hang the
// fuzzer, which libFuzzer reports as a timeout).
#include <fmt/format.h>
#include <sys/stat.h>
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
    std::error_code ec;
    namespace fs = std::filesystem;
    fs::create_symlink("/etc/passwd", dir / "out.json", ec);
    fs::create_directory_symlink("/etc", dir / "etc", ec);
    ::mkfifo((dir / "fifo.json").c_str(), 0600);
    fs::create_symlink("/dev/zero", dir / "zero.json", ec);
    fs::create_symlink("loop_b", dir / "loop_a", ec);
    fs::create_symlink("loop_a", dir / "loop_b", ec);
    fs::create_directories(dir / "d", ec);
    fs::create_directory_symlink("..", dir / "d" / "up", ec);
    ::mkfifo((dir / "d" / "trace.json").c_str(), 0600);
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
