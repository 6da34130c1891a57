// The stdio transport: one JSON-RPC message per line on stdin/stdout, logs on stderr only.
// Lines longer than the limit are discarded (their bytes never held in memory) and answered with
// -32600. The reader thread only reads: ping is answered at once, notifications/cancelled stops
// the running request or drops a queued one (ids it does not hold are ignored, never stored), and
// requests queue (at most 256) for one worker thread. The worker runs each tool call under a
// deadline (--tool-timeout, or less when the request asks) in a child process (isolate.h), so a
// call that is cancelled, past its deadline or still running at shutdown is killed and the server
// goes on. EOF on stdin is MCP's stdio shutdown: what was sent is answered for --eof-grace
// seconds, then the running call is stopped and the server returns.
#pragma once
#include <string>

#include "mcp/server.h"

namespace goblin::mcp {

// Reads one line from `fd` into `line` (without the newline). Returns false at EOF with nothing
// read. `oversized` is set (and `line` cleared) when the line exceeded `max_bytes`.
class LineReader {
 public:
  LineReader(int fd, size_t max_bytes) : fd_(fd), max_(max_bytes) {}
  bool next(std::string& line, bool& oversized);

 private:
  int fd_;
  size_t max_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
};

// Serves until stdin closes. Returns the process exit code (0).
int serve_stdio(Server& server, int in_fd = 0, int out_fd = 1);

}  // namespace goblin::mcp
