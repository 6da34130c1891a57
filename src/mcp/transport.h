// The stdio transport: one JSON-RPC message per line on stdin/stdout, logs on stderr only.
// Lines longer than the limit are discarded (their bytes never held in memory) and answered with
// -32600. Requests run one at a time on a worker thread so the reader stays free for ping and
// notifications/cancelled; a cancelled live call has the workload's process groups killed; EOF on
// stdin (the client went away) cancels what is running and returns.
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
