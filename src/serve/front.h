// The dashboard server's front door (server.cpp): every connection's request head is read here,
// in one poll() loop, before any worker sees it. cpp-httplib 0.11 (Debian's shared library) reads
// heads itself with no total deadline (its read timeout restarts with every byte, so a header
// line every few seconds holds a worker for ever), no bound on a line that never ends (it grows
// until the process aborts) and no bound on the number of header lines; none of that can be set
// from outside the compiled library. So the head is read here, bounded in bytes, lines and time,
// at the cost of a buffer per waiting connection, not a thread; a complete head, with whatever
// body bytes came with it, is handed to a worker (HeadedStream), where cpp-httplib parses and
// routes it as usual, its reads held to one deadline and one byte budget for the whole request.
#pragma once
#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace goblin::serve {

struct FrontLimits {
  size_t max_head_bytes = 16384;  // request line and headers together
  size_t max_header_lines = 64;   // header lines after the request line
  std::chrono::seconds head_timeout{10};
  size_t max_waiting_heads = 4096;  // past it the longest-waiting connection is dropped
};

// A connection whose head is complete: its descriptor (now blocking again) and the bytes read so
// far (the head, and any of the body that came with it).
struct Headed {
  int fd = -1;
  std::string bytes;
};

class Front {
 public:
  // `ready` runs on the front's thread for each complete head; it takes over the descriptor.
  Front(FrontLimits limits, std::function<void(Headed)> ready);
  ~Front();
  void admit(int fd);  // from the accept loop: the front owns fd from here on
  void stop();         // closes every connection still waiting; joins the thread

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// cpp-httplib's Stream over a headed connection: the bytes already read come first, then the
// socket. Every read waits at most until `read_deadline` and the request may read at most
// `max_bytes` in all (head, body, chunk framing); every write waits at most `write_timeout`
// from the first write, so a client reading one byte a second cannot hold a worker either.
class HeadedStream : public httplib::Stream {
 public:
  HeadedStream(Headed h, std::chrono::steady_clock::time_point read_deadline, size_t max_bytes,
               std::chrono::seconds write_timeout);
  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }
  bool over_budget() const { return over_budget_; }

 private:
  int fd_;
  std::string buf_;
  size_t at_ = 0, taken_ = 0, max_bytes_;
  std::chrono::steady_clock::time_point read_deadline_, write_deadline_{};
  std::chrono::seconds write_timeout_;
  bool over_budget_ = false;
};

// Writes a short answer on a connection the server refuses before routing (a head too large, too
// slow, too many waiting) and closes it. Non-blocking: a client that reads nothing loses it.
void refuse_and_close(int fd, int status, const char* reason, const std::string& message);

// Ends a connection after its answer: no more writes, a short bounded drain of what the client
// still sends (so closing does not reset the connection before the answer is read), then close.
void finish_connection(int fd);

}  // namespace goblin::serve
