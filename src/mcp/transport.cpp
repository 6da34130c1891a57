#include "mcp/transport.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>

#include "core/process.h"
#include "mcp/isolate.h"

namespace goblin::mcp {

bool LineReader::next(std::string& line, bool& oversized) {
  line.clear();
  oversized = false;
  size_t taken = 0;  // bytes of this line seen (kept or dropped)
  for (;;) {
    size_t nl = buf_.find('\n', pos_);
    size_t end = nl == std::string::npos ? buf_.size() : nl;
    size_t n = end - pos_;
    if (!oversized) {
      if (taken + n > max_) {
        oversized = true;
        line.clear();
      } else {
        line.append(buf_, pos_, n);
      }
    }
    taken += n;
    if (nl != std::string::npos) {
      pos_ = nl + 1;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return true;
    }
    buf_.clear();
    pos_ = 0;
    if (eof_) return taken > 0;
    char chunk[65536];
    ssize_t r = ::read(fd_, chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      eof_ = true;
      if (taken == 0) return false;
      continue;
    }
    buf_.assign(chunk, static_cast<size_t>(r));
  }
}

namespace {

class Writer {
 public:
  explicit Writer(int fd) : fd_(fd) {}
  void send(const Json& j) {
    std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
    std::lock_guard<std::mutex> l(mu_);
    size_t off = 0;
    while (off < s.size() && !closed_) {
      ssize_t w = ::write(fd_, s.data() + off, s.size() - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        closed_ = true;  // the client went away: drop what is left
        break;
      }
      off += static_cast<size_t>(w);
    }
  }

 private:
  int fd_;
  std::mutex mu_;
  bool closed_ = false;
};

using Clock = std::chrono::steady_clock;

// Requests waiting for the worker past this many are answered at once with an error: a client
// that floods the server while a tool runs must not grow its memory without bound.
constexpr size_t kMaxQueued = 256;

// What the reader, the worker and the watchdog share. Everything under `mu`, except the two
// atomics the running call polls.
struct State {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Message> queue;
  bool eof = false;                    // the client closed stdin
  Clock::time_point shutdown_at;       // eof + --eof-grace: what still runs then is stopped
  Json running;                        // the id of the request the worker runs (null: idle)
  Clock::time_point deadline;          // of the running call
  std::atomic<bool> cancelled{false};  // stop the running call (its child process, its workloads)
  std::atomic<int> cause{0};           // why (StopCause), set before `cancelled`
  bool shutting_down(Clock::time_point now) const { return eof && now >= shutdown_at; }
  void stop(StopCause c) {
    if (cancelled) return;
    cause = static_cast<int>(c);
    cancelled = true;
  }
};

// A tools/call's own deadline: the server's --tool-timeout, or less when the request asks for
// less in `_meta["goblin/timeout_s"]` (MCP defines no per-request timeout; a client may only
// shorten the operator's limit, never lengthen it).
double call_deadline_s(const Message& m, double server_s) {
  if (!m.params.is_object() || !m.params.contains("_meta") || !m.params["_meta"].is_object()) return server_s;
  const Json& meta = m.params["_meta"];
  if (!meta.contains("goblin/timeout_s") || !meta["goblin/timeout_s"].is_number()) return server_s;
  const double asked = meta["goblin/timeout_s"].get<double>();
  return asked > 0 && asked < server_s ? asked : server_s;
}

// A tools/call that is not run (the shutdown grace ran out before its turn): a tool error, so the
// client still gets an answer to every request it sent.
Json not_run(const Message& m) {
  const Error e =
      make_error(ErrorKind::Workload, "not run: the client closed stdin and the server's shutdown grace ran out first");
  return make_response(m.id, Json{{"content", Json::array({Json{{"type", "text"}, {"text", e.message}}})},
                                  {"structuredContent", envelope_error(e)},
                                  {"isError", true}});
}

// One request on the worker thread, with progress heartbeats when the request asks for them.
void run_one(Server& server, Writer& out, State& st, Message& m) {
  const ServerOptions& o = server.session().options();
  CallContext ctx;
  ctx.cancelled = &st.cancelled;
  ctx.cause = &st.cause;
  ctx.isolate = true;
  ctx.deadline_s = m.method == "tools/call" ? call_deadline_s(m, o.tool_timeout_s) : o.tool_timeout_s;
  {
    std::lock_guard<std::mutex> l(st.mu);
    st.running = m.kind == Message::Request ? m.id : Json();
    st.cause = 0;
    st.cancelled = false;
    st.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(ctx.deadline_s > 0 ? ctx.deadline_s : 1e9));
    if (st.shutting_down(Clock::now())) st.stop(StopCause::Shutdown);
  }
  // Progress: when the request carries _meta.progressToken, a heartbeat every second while the
  // call runs, plus whatever the tool reports. Values only increase, as MCP requires.
  Json token;
  if (m.params.is_object() && m.params.contains("_meta") && m.params["_meta"].is_object() &&
      m.params["_meta"].contains("progressToken"))
    token = m.params["_meta"]["progressToken"];
  std::mutex pmu;
  std::condition_variable pcv;
  bool done = false;
  double value = 0;
  const auto t0 = Clock::now();
  auto notify = [&](const std::string& msg) {
    std::lock_guard<std::mutex> l(pmu);
    if (done) return;
    value += 1;
    out.send(make_notification("notifications/progress",
                               Json{{"progressToken", token}, {"progress", value}, {"message", msg}}));
  };
  std::thread beat;
  if (!token.is_null() && m.method == "tools/call") {
    std::string tool = m.params.value("name", std::string("tool"));
    ctx.progress = [&](double, const std::string& msg) { notify(msg); };
    notify(tool + " started");
    beat = std::thread([&, tool] {
      std::unique_lock<std::mutex> l(pmu);
      while (!pcv.wait_for(l, std::chrono::seconds(1), [&] { return done; })) {
        l.unlock();
        double el = std::chrono::duration<double>(Clock::now() - t0).count();
        notify(fmt::format("{} running, {} s elapsed", tool, static_cast<int>(el)));
        l.lock();
      }
    });
  }
  auto resp = server.handle(m, ctx);
  {
    std::lock_guard<std::mutex> l(pmu);
    done = true;
  }
  pcv.notify_all();
  if (beat.joinable()) beat.join();
  bool client_cancelled = false;
  {
    std::lock_guard<std::mutex> l(st.mu);
    client_cancelled = st.cancelled && st.cause == static_cast<int>(StopCause::Client);
    st.running = nullptr;
    st.cancelled = false;
    st.cause = 0;
  }
  // A cancelled request gets no response (MCP: the receiver should not answer it).
  if (resp && !client_cancelled) out.send(*resp);
}

}  // namespace

int serve_stdio(Server& server, int in_fd, int out_fd) {
  signal(SIGPIPE, SIG_IGN);  // a vanished client must not kill us mid-write
  Writer out(out_fd);
  State st;
  const ServerOptions& opt = server.session().options();

  std::thread worker([&] {
    for (;;) {
      Message m;
      {
        std::unique_lock<std::mutex> l(st.mu);
        st.cv.wait(l, [&] { return st.eof || !st.queue.empty(); });
        if (st.queue.empty()) return;
        m = std::move(st.queue.front());
        st.queue.pop_front();
        if (m.kind == Message::Request && m.method == "tools/call" && st.shutting_down(Clock::now())) {
          l.unlock();
          out.send(not_run(m));
          continue;
        }
      }
      run_one(server, out, st, m);
    }
  });

  // The watchdog: stops the running call at its deadline or at the end of the shutdown grace, and
  // while a stopped call is still in flight keeps killing the process groups goblin started for
  // it (a benchmark starts one run after another, and each must die until the call returns).
  std::atomic<bool> quit{false};
  std::thread watchdog([&] {
    while (!quit) {
      bool kill = false;
      std::string log;  // written after the lock is released: stderr may block
      {
        std::lock_guard<std::mutex> l(st.mu);
        const auto now = Clock::now();
        if (!st.running.is_null() && !st.cancelled) {
          if (now >= st.deadline) {
            st.stop(StopCause::Deadline);
            log = "goblin mcp: request " + st.running.dump() + " stopped at its deadline\n";
          } else if (st.shutting_down(now)) {
            st.stop(StopCause::Shutdown);
          }
        }
        kill = st.cancelled;
      }
      if (!log.empty()) std::cerr << log;
      if (kill) {
        std::lock_guard<std::mutex> f(fork_mutex());  // no fork while the child registry's lock is held
        kill_all_children();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });

  LineReader reader(in_fd, opt.max_message_bytes);
  std::string line;
  bool oversized = false;
  while (reader.next(line, oversized)) {
    if (oversized) {
      out.send(make_error_response(
          nullptr,
          RpcError{kInvalidRequest,
                   fmt::format("message larger than the server's limit of {} bytes; discarded", opt.max_message_bytes),
                   nullptr}));
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines are not messages
    auto p = parse_message(line);
    if (p.error) {
      out.send(make_error_response(p.error_id, *p.error));
      continue;
    }
    Message& m = *p.message;
    if (m.kind == Message::Request && m.method == "ping") {  // answered at once, even mid-call
      out.send(make_response(m.id, Json::object()));
      continue;
    }
    if (m.kind == Message::Notification && m.method == "notifications/cancelled") {
      // The running request is stopped; a queued one is dropped (it gets no response either); an
      // id the server does not hold (unknown, finished) is ignored and nothing is kept of it.
      if (!m.params.is_object() || !m.params.contains("requestId")) continue;
      const Json& id = m.params["requestId"];
      bool running = false;
      {
        std::lock_guard<std::mutex> l(st.mu);
        running = !st.running.is_null() && st.running == id;
        if (running) st.stop(StopCause::Client);
        for (auto it = st.queue.begin(); !running && it != st.queue.end(); ++it)
          if (it->kind == Message::Request && it->id == id) {
            st.queue.erase(it);
            break;
          }
      }
      if (running) std::cerr << "goblin mcp: request " << id.dump() << " cancelled by the client\n";
      continue;
    }
    // Other notifications and stray responses need no work (initialized only marks the session):
    // dropped here, so that a flood of them cannot fill the queue.
    if (m.kind != Message::Request && m.method != "notifications/initialized") continue;
    bool busy = false;
    {
      std::lock_guard<std::mutex> l(st.mu);
      busy = st.queue.size() >= kMaxQueued;
      if (!busy) st.queue.push_back(m);
    }
    if (!busy) {
      st.cv.notify_one();
    } else if (m.kind == Message::Request) {  // answered outside the lock: a write may block
      out.send(make_error_response(m.id, RpcError{kInternalError,
                                                  fmt::format("server busy: {} requests are already waiting; "
                                                              "send it again later",
                                                              kMaxQueued),
                                                  nullptr}));
    }
  }
  // EOF: the client closed stdin, which MCP's stdio transport uses to ask the server to exit. What
  // it sent before is still answered for --eof-grace seconds (a script that writes its requests
  // and closes stdin gets its answers); then the running call is stopped, queued tool calls are
  // answered "not run", and the server exits 0.
  {
    std::lock_guard<std::mutex> l(st.mu);
    st.eof = true;
    st.shutdown_at = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(std::max(0.0, opt.eof_grace_s)));
  }
  st.cv.notify_one();
  worker.join();
  quit = true;
  watchdog.join();
  return 0;
}

}  // namespace goblin::mcp
