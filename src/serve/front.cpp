// The server's front door (front.h): request heads read in one poll() loop, bounded in bytes,
// lines and time; then a worker's stream with one deadline and one byte budget per request.
#include "serve/front.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace goblin::serve {
namespace {

using Clock = std::chrono::steady_clock;

void set_blocking(int fd, bool blocking) {
  const int fl = fcntl(fd, F_GETFL, 0);
  if (fl < 0) return;
  (void)fcntl(fd, F_SETFL, blocking ? (fl & ~O_NONBLOCK) : (fl | O_NONBLOCK));
}

// Waits for `events` on fd until `deadline`; false when it passed or the socket failed.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (r < 0 && errno != EINTR) return false;
  }
}

size_t count_lines(const std::string& s, size_t n) {
  return static_cast<size_t>(std::count(s.begin(), s.begin() + static_cast<long>(std::min(n, s.size())), '\n'));
}

void ip_and_port(const sockaddr_storage& a, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    port = ntohs(v4->sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    port = ntohs(v6->sin6_port);
  }
  ip = text;
}

void drain(int fd, std::chrono::milliseconds for_at_most, size_t bytes) {
  const auto deadline = Clock::now() + for_at_most;
  char sink[4096];
  while (bytes > 0) {
    if (for_at_most.count() > 0 && !wait_for(fd, POLLIN, deadline)) break;
    const ssize_t n = ::recv(fd, sink, std::min(sizeof sink, bytes), MSG_DONTWAIT);
    if (n <= 0) break;
    bytes -= static_cast<size_t>(n);
  }
}

}  // namespace

void refuse_and_close(int fd, int status, const char* reason, const std::string& message) {
  const std::string body = fmt::format(R"({{"error":"{}"}})", message);
  const std::string out = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}", status,
      reason, body.size(), body);
  (void)::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
  drain(fd, std::chrono::milliseconds(0), 65536);  // what already arrived, so close does not reset
  ::close(fd);
}

void finish_connection(int fd) {
  ::shutdown(fd, SHUT_WR);
  drain(fd, std::chrono::milliseconds(300), 256 * 1024);
  ::close(fd);
}

struct Front::Impl {
  struct Waiting {
    int fd;
    std::string bytes;
    Clock::time_point deadline;
  };
  FrontLimits limits;
  std::function<void(Headed)> ready;
  std::mutex mu;
  std::vector<int> incoming;
  int wake[2] = {-1, -1};
  std::atomic<bool> stopping{false};
  std::thread thread;
  std::vector<Waiting> waiting;  // the loop's own, in arrival order

  void loop();
  // Reads what fd has; true when the connection is done with (handed on, refused or closed).
  bool on_readable(Waiting& w);
};

Front::Front(FrontLimits limits, std::function<void(Headed)> ready) : impl_(std::make_unique<Impl>()) {
  impl_->limits = limits;
  impl_->ready = std::move(ready);
  if (::pipe2(impl_->wake, O_NONBLOCK | O_CLOEXEC) != 0) impl_->wake[0] = impl_->wake[1] = -1;
  impl_->thread = std::thread([this] { impl_->loop(); });
}

Front::~Front() {
  stop();
  for (int fd : impl_->wake)
    if (fd >= 0) ::close(fd);
}

void Front::admit(int fd) {
  {
    std::lock_guard<std::mutex> lk(impl_->mu);
    impl_->incoming.push_back(fd);
  }
  const char c = 1;
  (void)!::write(impl_->wake[1], &c, 1);
}

void Front::stop() {
  if (impl_->stopping.exchange(true)) return;
  const char c = 1;
  (void)!::write(impl_->wake[1], &c, 1);
  if (impl_->thread.joinable()) impl_->thread.join();
  for (auto& w : impl_->waiting) ::close(w.fd);
  impl_->waiting.clear();
  std::lock_guard<std::mutex> lk(impl_->mu);
  for (int fd : impl_->incoming) ::close(fd);
  impl_->incoming.clear();
}

bool Front::Impl::on_readable(Waiting& w) {
  char chunk[4096];
  for (;;) {
    // At most one byte past the limit is kept: enough to know the limit was passed.
    const size_t room = limits.max_head_bytes + 1 - std::min(w.bytes.size(), limits.max_head_bytes + 1);
    if (room == 0) break;
    const ssize_t n = ::recv(w.fd, chunk, std::min(sizeof chunk, room), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
      ::close(w.fd);  // the client went away before its head was complete
      return true;
    }
    if (n < 0) break;
    const size_t from = w.bytes.size() < 3 ? 0 : w.bytes.size() - 3;
    w.bytes.append(chunk, static_cast<size_t>(n));
    if (const size_t end = w.bytes.find("\r\n\r\n", from); end != std::string::npos) {
      // Lines of the head: the request line, the headers, the empty line.
      if (end + 4 > limits.max_head_bytes || count_lines(w.bytes, end + 4) > limits.max_header_lines + 2) {
        refuse_and_close(w.fd, 431, "Request Header Fields Too Large",
                         fmt::format("request head: at most {} bytes and {} header lines", limits.max_head_bytes,
                                     limits.max_header_lines));
        return true;
      }
      set_blocking(w.fd, true);
      ready(Headed{w.fd, std::move(w.bytes)});
      return true;
    }
  }
  if (w.bytes.size() > limits.max_head_bytes || count_lines(w.bytes, w.bytes.size()) > limits.max_header_lines + 1) {
    refuse_and_close(w.fd, 431, "Request Header Fields Too Large",
                     fmt::format("request head: at most {} bytes and {} header lines", limits.max_head_bytes,
                                 limits.max_header_lines));
    return true;
  }
  return false;
}

void Front::Impl::loop() {
  std::vector<pollfd> fds;
  while (!stopping) {
    {
      std::lock_guard<std::mutex> lk(mu);
      for (int fd : incoming) {
        set_blocking(fd, false);
        waiting.push_back({fd, {}, Clock::now() + limits.head_timeout});
      }
      incoming.clear();
    }
    // Too many heads at once: the ones waiting longest go first (a real client sends its head in
    // one packet; only a drip-feeder is still waiting).
    while (waiting.size() > limits.max_waiting_heads) {
      refuse_and_close(waiting.front().fd, 503, "Service Unavailable", "busy: too many connections, try again");
      waiting.erase(waiting.begin());
    }
    fds.assign(1, pollfd{wake[0], POLLIN, 0});
    auto next = Clock::now() + std::chrono::seconds(1);
    for (const auto& w : waiting) {
      fds.push_back({w.fd, POLLIN, 0});
      next = std::min(next, w.deadline);
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
    const int r = ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(0, ms) + 1));
    if (r < 0 && errno != EINTR) continue;
    if (fds[0].revents & POLLIN) {
      char sink[256];
      while (::read(wake[0], sink, sizeof sink) > 0) {
      }
    }
    const auto now = Clock::now();
    std::vector<Waiting> still;
    still.reserve(waiting.size());
    for (size_t i = 0; i < waiting.size(); ++i) {
      Waiting& w = waiting[i];
      const bool has_events = i + 1 < fds.size() && fds[i + 1].revents != 0;
      if (has_events && on_readable(w)) continue;
      if (now >= w.deadline) {
        refuse_and_close(w.fd, 408, "Request Timeout",
                         fmt::format("the request head took longer than {} s", limits.head_timeout.count()));
        continue;
      }
      still.push_back(std::move(w));
    }
    waiting.swap(still);
  }
}

HeadedStream::HeadedStream(Headed h, Clock::time_point read_deadline, size_t max_bytes,
                           std::chrono::seconds write_timeout)
    : fd_(h.fd),
      buf_(std::move(h.bytes)),
      taken_(buf_.size()),
      max_bytes_(max_bytes),
      read_deadline_(read_deadline),
      write_timeout_(write_timeout) {}

bool HeadedStream::is_readable() const { return at_ < buf_.size() || wait_for(fd_, POLLIN, read_deadline_); }

bool HeadedStream::is_writable() const {
  return wait_for(fd_, POLLOUT,
                  write_deadline_ == Clock::time_point{} ? Clock::now() + write_timeout_ : write_deadline_);
}

ssize_t HeadedStream::read(char* ptr, size_t size) {
  if (at_ >= buf_.size()) {
    if (taken_ >= max_bytes_) {
      over_budget_ = true;
      return -1;
    }
    for (;;) {
      if (!wait_for(fd_, POLLIN, read_deadline_)) return -1;
      buf_.resize(std::min<size_t>(4096, max_bytes_ - taken_));
      const ssize_t n = ::recv(fd_, buf_.data(), buf_.size(), MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
      if (n <= 0) {
        buf_.clear();
        at_ = 0;
        return n;
      }
      buf_.resize(static_cast<size_t>(n));
      at_ = 0;
      taken_ += static_cast<size_t>(n);
      break;
    }
  }
  const size_t n = std::min(size, buf_.size() - at_);
  std::memcpy(ptr, buf_.data() + at_, n);
  at_ += n;
  return static_cast<ssize_t>(n);
}

ssize_t HeadedStream::write(const char* ptr, size_t size) {
  if (write_deadline_ == Clock::time_point{}) write_deadline_ = Clock::now() + write_timeout_;
  for (;;) {
    if (!wait_for(fd_, POLLOUT, write_deadline_)) return -1;
    const ssize_t n = ::send(fd_, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    return n;
  }
}

void HeadedStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) ip_and_port(a, ip, port);
}

void HeadedStream::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) ip_and_port(a, ip, port);
}

}  // namespace goblin::serve
