#include "mcp/transport.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>

#include "core/process.h"

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

// What the worker runs now, for cancellation.
struct InFlight {
  std::mutex mu;
  Json id;                              // null when idle
  std::atomic<bool> cancelled{false};   // kill the call's workload (client cancel or EOF)
  bool client_cancelled = false;        // notifications/cancelled: the call gets no response
  bool eof = false;                     // the client closed stdin
  std::set<std::string> cancelled_ids;  // dumped ids cancelled before they started
};

}  // namespace

int serve_stdio(Server& server, int in_fd, int out_fd) {
  signal(SIGPIPE, SIG_IGN);  // a vanished client must not kill us mid-write
  Writer out(out_fd);
  InFlight fl;
  std::mutex qmu;
  std::condition_variable qcv;
  std::deque<Message> queue;
  bool stopping = false;

  std::thread worker([&] {
    for (;;) {
      Message m;
      {
        std::unique_lock<std::mutex> l(qmu);
        qcv.wait(l, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;
        m = std::move(queue.front());
        queue.pop_front();
      }
      {
        std::lock_guard<std::mutex> l(fl.mu);
        if (m.kind == Message::Request && fl.cancelled_ids.erase(m.id.dump())) continue;  // cancelled before start
        fl.id = m.kind == Message::Request ? m.id : Json();
        // After EOF the queue is still answered, but nothing new may run live: a live call
        // starts cancelled (its workload is killed at once).
        bool live = m.method == "tools/call" && m.params.is_object() && server.session().options().allow_live &&
                    (m.params.value("name", std::string()) == "profile_run" ||
                     m.params.value("name", std::string()) == "benchmark");
        fl.cancelled = fl.eof && live;
        fl.client_cancelled = false;
      }
      CallContext ctx;
      ctx.cancelled = &fl.cancelled;
      // Progress: when the request carries _meta.progressToken, a heartbeat every second while
      // the call runs, plus whatever the tool reports. Values only increase, as MCP requires.
      Json token;
      if (m.params.is_object() && m.params.contains("_meta") && m.params["_meta"].is_object() &&
          m.params["_meta"].contains("progressToken"))
        token = m.params["_meta"]["progressToken"];
      std::mutex pmu;
      std::condition_variable pcv;
      bool done = false;
      double value = 0;
      auto t0 = std::chrono::steady_clock::now();
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
            double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
      bool was_cancelled = false;
      {
        std::lock_guard<std::mutex> l(fl.mu);
        was_cancelled = fl.client_cancelled;
        fl.id = nullptr;
        fl.cancelled = false;
      }
      // A cancelled request gets no response (MCP: the receiver should not answer it).
      if (resp && !was_cancelled) out.send(*resp);
    }
  });

  // While a cancelled call is in flight, keep killing the process groups goblin started: a bench
  // starts one run after another, and each must die until the call returns.
  std::atomic<bool> quit{false};
  std::thread reaper([&] {
    while (!quit) {
      if (fl.cancelled) kill_all_children();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });

  LineReader reader(in_fd, server.session().options().max_message_bytes);
  std::string line;
  bool oversized = false;
  while (reader.next(line, oversized)) {
    if (oversized) {
      out.send(make_error_response(nullptr, RpcError{kInvalidRequest,
                                                     fmt::format("message larger than the server's limit of {} bytes "
                                                                 "(--max-message); discarded",
                                                                 server.session().options().max_message_bytes),
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
      if (m.params.is_object() && m.params.contains("requestId")) {
        std::lock_guard<std::mutex> l(fl.mu);
        if (!fl.id.is_null() && fl.id == m.params["requestId"]) {
          fl.cancelled = true;
          fl.client_cancelled = true;
          std::cerr << fmt::format("goblin mcp: request {} cancelled by the client\n", fl.id.dump());

        } else {
          fl.cancelled_ids.insert(m.params["requestId"].dump());
        }
      }
      continue;
    }
    {
      std::lock_guard<std::mutex> l(qmu);
      queue.push_back(std::move(m));
    }
    qcv.notify_one();
  }
  // EOF: the client is gone (or done). A running live call is cancelled (its workload killed);
  // what is queued is still answered, then the worker stops.
  {
    std::lock_guard<std::mutex> l(fl.mu);
    fl.eof = true;
    if (!fl.id.is_null()) fl.cancelled = true;
  }
  {
    std::lock_guard<std::mutex> l(qmu);
    stopping = true;
  }
  qcv.notify_one();
  worker.join();
  quit = true;
  reaper.join();
  return 0;
}

}  // namespace goblin::mcp
