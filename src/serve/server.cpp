// goblin serve (server.h): cpp-httplib around the API (api.cpp) and the web files.
#include "serve/server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "app/path_roots.h"
#include "core/io.h"
#include "core/locate.h"
#include "serve/api.h"
#include "serve/front.h"
#include "serve/host.h"
#include "store/engine.h"
#include "store/store.h"

namespace goblin::serve {
namespace {

// The only files the server ever opens: this fixed table, URL path → file under a runtime root.
// No part of a request is ever joined to a path.
struct WebFile {
  const char* url;
  std::vector<const char*> rel;  // candidates: installed layout first, then the source tree
  const char* type;
};
const std::vector<WebFile>& web_files() {
  static const std::vector<WebFile> f = {
      {"/", {"web/static/index.html"}, "text/html; charset=utf-8"},
      {"/static/app.js", {"web/static/app.js"}, "text/javascript; charset=utf-8"},
      {"/static/views.js", {"web/static/views.js"}, "text/javascript; charset=utf-8"},
      {"/static/style.css", {"web/static/style.css"}, "text/css; charset=utf-8"},
      {"/static/chart.umd.js",
       {"web/chart.umd.js", "web/node_modules/chart.js/dist/chart.umd.js"},
       "text/javascript; charset=utf-8"},
  };
  return f;
}

// Requests wait for one of `threads` workers in a queue of at most `max_queued`; past it a
// connection is handed to the shedding workers, which answer 503 at once (t_shedding is true on
// their threads), so a flood of connections is refused cleanly instead of piling up. A shed
// connection costs one read of its request (bounded by the read and keep-alive timeouts) and one
// short write; the accept loop itself never blocks on a worker.
thread_local bool t_shedding = false;
class BoundedPool : public httplib::TaskQueue {
 public:
  BoundedPool(size_t threads, size_t max_queued, size_t shed_threads) : max_(max_queued) {
    for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { loop(jobs_, false); });
    for (size_t i = 0; i < shed_threads; ++i) workers_.emplace_back([this] { loop(shed_, true); });
  }
  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      (jobs_.size() < max_ ? jobs_ : shed_).push_back(std::move(fn));
    }
    cv_.notify_all();
  }
  ~BoundedPool() override { shutdown(); }
  void shutdown() override {
    {
      std::lock_guard<std::mutex> lk(mu_);
      down_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_)
      if (t.joinable()) t.join();
  }

 private:
  void loop(std::deque<std::function<void()>>& q, bool shed) {
    t_shedding = shed;
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return !q.empty() || down_; });
        if (q.empty()) return;
        fn = std::move(q.front());
        q.pop_front();
      }
      fn();
    }
  }
  size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_, shed_;
  std::vector<std::thread> workers_;
  bool down_ = false;
};

void security_headers(httplib::Response& res, const std::string& csp = "") {
  // The pages load nothing from elsewhere (the dashboard works offline) and are never framed; a
  // stored HTML or SVG artifact has its own sandbox policy (api.h).
  res.set_header("Content-Security-Policy",
                 csp.empty() ? "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "frame-ancestors 'none'"
                             : csp);
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
}

// cpp-httplib 0.11 listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, compiled into Debian's
// shared library): a burst of connections overflows it and the kernel drops their SYNs, which the
// clients retry after 1, 3, 7 ... s, so a flood looks like a dead server. Linux lets listen() be
// called again on a listening socket to change its backlog (net/ipv4/af_inet.c, inet_listen: an
// already listening socket only gets its sk_max_ack_backlog updated), so after the bind the backlog is raised here; the
// socket is the library's protected member.
//
// Each accepted connection goes to the front (front.h), not to a worker: cpp-httplib calls the
// virtual process_and_close_socket for it, overridden here to hand the socket over. A worker then
// runs cpp-httplib's own request parsing and routing (process_request) on the complete head, one
// request per connection, with the setup hook keeping at most one Range.
class Http : public httplib::Server {
 public:
  bool raise_backlog(int n) { return svr_sock_ != INVALID_SOCKET && ::listen(svr_sock_, n) == 0; }
  Front* front = nullptr;

  void serve_headed(Headed h, std::chrono::seconds timeout, size_t max_body) {
    const int fd = h.fd;
    {
      // The byte budget: the head, the largest body, and room for the end of a short pipeline.
      const size_t budget = h.bytes.size() + max_body + 65536;
      HeadedStream s(std::move(h), std::chrono::steady_clock::now() + timeout, budget, timeout);
      bool closed = true;
      process_request(s, /*close_connection=*/true, closed, [](httplib::Request& req) {
        // Several ranges make a multipart answer as large as the artifact times the ranges
        // (1,000 ranges of `0-` is a thousand copies); one is served, more are ignored, which
        // RFC 9110 § 14.2 allows (the whole content, 200).
        if (req.ranges.size() > 1) req.ranges.clear();
      });
    }
    finish_connection(fd);
  }

 private:
  bool process_and_close_socket(socket_t sock) override {
    if (front) {
      front->admit(sock);
    } else {
      ::close(sock);
    }
    return true;
  }
};

// cpp-httplib's accept loop hands each connection to a task queue; here the "task" only gives the
// socket to the front, so it runs at once on the accept thread.
class Inline : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

// Each connection holds a descriptor until it is answered: with the default soft limit (often
// 1,024) a flood runs the server out of them (accept's EMFILE: cpp-httplib waits and retries, but
// nothing is answered meanwhile). The soft limit is raised to the hard one, at most 65,536.
void raise_descriptor_limit() {
  rlimit l{};
  if (getrlimit(RLIMIT_NOFILE, &l) != 0) return;
  const rlim_t want = l.rlim_max == RLIM_INFINITY ? 65536 : std::min<rlim_t>(l.rlim_max, 65536);
  if (l.rlim_cur == RLIM_INFINITY || l.rlim_cur >= want) return;
  l.rlim_cur = want;
  (void)setrlimit(RLIMIT_NOFILE, &l);
}

// The forms in which the store's location could appear in an answer (an error naming its file, a
// verb echoing its URL): the URL as given, redacted, and for SQLite the file's absolute and
// resolved paths and their folders. Longest first, so a path is replaced before its folder.
std::vector<std::string> store_marks(const std::string& url) {
  std::vector<std::string> m = {url};
  if (auto u = store::parse_store_url(url)) {
    m.push_back(u->redacted);
    if (!u->path.empty()) {
      std::error_code ec;
      for (const auto& p : {std::filesystem::absolute(u->path, ec).lexically_normal(),
                            std::filesystem::weakly_canonical(u->path, ec)}) {
        if (p.empty()) continue;
        m.push_back(p.string());
        if (p.has_parent_path() && p.parent_path() != p.root_path()) m.push_back(p.parent_path().string());
      }
      m.push_back(u->path);
    }
  }
  std::sort(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  m.erase(std::unique(m.begin(), m.end()), m.end());
  // As they appear inside a JSON string; a form too short to be distinctive is left alone.
  std::vector<std::string> out;
  for (const auto& x : m)
    if (x.size() >= 4) out.push_back(Json(x).dump().substr(1, Json(x).dump().size() - 2));
  return out;
}

void hide_store(std::string& body, const std::vector<std::string>& marks) {
  for (const auto& mark : marks)
    for (size_t at = body.find(mark); at != std::string::npos; at = body.find(mark, at + 7))
      body.replace(at, mark.size(), "<store>");
}

}  // namespace

std::string web_file(const std::string& url_path) {
  for (const auto& f : web_files()) {
    if (url_path != f.url) continue;
    for (const char* rel : f.rel)
      if (std::string p = runtime_file(rel); !p.empty()) return p;
  }
  return "";
}

struct Server::Impl {
  ServeOptions o;
  Http http;
};

Server::Server(ServeOptions o) : impl_(new Impl{std::move(o), {}}) {}
Server::~Server() { delete impl_; }
void Server::stop() { impl_->http.stop(); }

Status Server::run(const std::function<void(int)>& on_listening) {
  const ServeOptions& o = impl_->o;
  Http& http = impl_->http;
  raise_descriptor_limit();
  // A client that goes away mid-response must not kill the server: a write to its closed socket
  // is an error the connection handles, not a SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  const std::string url = o.store_url.empty() ? store::default_store_url() : o.store_url;
  // A store that can never be served (a bad URL, a file that is not SQLite, another program's
  // database, a newer schema, a server that refuses the connection) is the server's error at
  // start, not a 4xx on every request; a store not made yet is fine (the pages say so, and a write
  // with the token creates it).
  if (auto s = store::Store::open(url, /*create=*/false, /*migrate=*/false);
      !s && s.error().kind != ErrorKind::NotFound)
    return s.error();
  const int threads = std::max(1, o.threads);
  // One pooled store connection per worker: a request never waits for one (store/pool.h).
  // The roots are checked once here: a --root that does not exist is the server's error at start.
  if (!o.roots.empty())
    if (auto r = app::Roots::make(o.roots); !r) return r.error();
  auto api = std::make_shared<Api>(
      ApiOptions{url, o.token, static_cast<size_t>(threads), o.roots, static_cast<double>(std::max(1, o.timeout_s))});
  const size_t queued = static_cast<size_t>(std::max(1, o.max_queued)),
               shed = static_cast<size_t>(std::max(1, o.shed_threads));
  BoundedPool pool(static_cast<size_t>(threads), queued, shed);
  const auto timeout = std::chrono::seconds(std::max(1, o.timeout_s));
  const size_t max_body = o.max_body_bytes;
  FrontLimits limits;
  limits.head_timeout = timeout;
  Front front(limits, [&pool, &http, timeout, max_body](Headed h) {
    pool.enqueue(
        [&http, timeout, max_body, h = std::move(h)]() mutable { http.serve_headed(std::move(h), timeout, max_body); });
  });
  http.front = &front;
  http.new_task_queue = [] { return new Inline; };
  http.set_payload_max_length(o.max_body_bytes);
  http.set_read_timeout(o.timeout_s, 0);
  http.set_write_timeout(o.timeout_s, 0);

  const HostCheck hosts(o.bind, o.allow_hosts);
  http.set_pre_routing_handler([&hosts](const httplib::Request& req, httplib::Response& res) {
    using R = httplib::Server::HandlerResponse;
    auto refuse = [&](int status, const char* message) {
      res.status = status;
      res.set_content(Json{{"error", message}}.dump(), "application/json");
      return R::Handled;
    };
    if (t_shedding) {
      res.set_header("Retry-After", "1");
      return refuse(503, "busy: too many connections, try again");
    }
    // Before the body is read: a name other than this server's (DNS rebinding), a body without a
    // length (chunked: cpp-httplib 0.11 reads it whole past --max-body) or a compressed one (it
    // inflates it whole before any limit).
    if (req.get_header_value_count("Host") > 1 || !hosts.allowed(req.get_header_value("Host")))
      return refuse(421, "this server does not answer for that Host name");
    if (req.has_header("Transfer-Encoding")) return refuse(411, "a body needs a Content-Length (no Transfer-Encoding)");
    for (size_t i = 0; i < req.get_header_value_count("Content-Encoding"); ++i)
      if (req.get_header_value("Content-Encoding", i) != "identity")
        return refuse(415, "request bodies are not accepted compressed (Content-Encoding)");
    return R::Unhandled;
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(R"({"error":"internal error"})", "application/json");
  });
  // Where the store lives is not a caller's business: no answer names it (errors included).
  const auto marks = std::make_shared<const std::vector<std::string>>(store_marks(url));
  auto api_handler = [api, marks](const httplib::Request& req, httplib::Response& res) {
    ApiRequest rq;
    rq.method = req.method;
    rq.path = req.path;
    for (const auto& [k, v] : req.params) rq.query.emplace(k, v);
    rq.body = req.body;
    rq.authorization = req.get_header_value("Authorization");
    ApiResponse r = api->handle(rq);
    // A Range served (one at most, Http::serve_headed) is a 206: cpp-httplib picks 206 only when
    // the handler leaves the status unset.
    res.status = r.status == 200 && !req.ranges.empty() ? 206 : r.status;
    if (!r.disposition.empty()) res.set_header("Content-Disposition", r.disposition);
    if (!r.allow_origin.empty()) {
      res.set_header("Access-Control-Allow-Origin", r.allow_origin);
      res.set_header("Vary", "Origin");
    }
    security_headers(res, r.csp);
    if (r.content_type.starts_with("application/json")) hide_store(r.body, *marks);
    res.set_content(std::move(r.body), r.content_type);
  };
  // A preflight for the artifact route only: Chrome asks one before a public site (Perfetto UI)
  // reads from a loopback or private address (Private Network Access,
  // https://developer.chrome.com/blog/private-network-access-preflight), and needs the
  // Allow-Private-Network answer; the origin is the same fixed one as on the GET.
  http.Options(R"(/api/artifacts/[0-9a-f]{64})", [](const httplib::Request& req, httplib::Response& res) {
    res.status = 204;
    res.set_header("Access-Control-Allow-Origin", kPerfettoOrigin);
    res.set_header("Access-Control-Allow-Methods", "GET");
    res.set_header("Access-Control-Max-Age", "600");
    res.set_header("Vary", "Origin");
    if (req.has_header("Access-Control-Request-Private-Network"))
      res.set_header("Access-Control-Allow-Private-Network", "true");
  });
  http.Get(R"(/api/.*)", api_handler);
  http.Post(R"(/api/.*)", api_handler);
  for (const auto& f : web_files()) {
    const std::string url = f.url, type = f.type;
    http.Get(url, [url, type](const httplib::Request&, httplib::Response& res) {
      const std::string p = web_file(url);
      security_headers(res);
      if (p.empty()) {
        res.status = 404;
        res.set_content(fmt::format("{} is not installed (scripts/bootstrap runs npm ci in web/)", url), "text/plain");
        return;
      }
      auto body = read_all(p);
      if (!body) {
        res.status = 500;
        res.set_content(body.error().describe(), "text/plain");
        return;
      }
      res.set_content(std::move(*body), type);
    });
  }
  http.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) res.set_content(fmt::format(R"({{"error":"HTTP {}"}})", res.status), "application/json");
  });

  int port = o.port;
  if (port == 0) {
    port = http.bind_to_any_port(o.bind);
    if (port < 0) return make_error(ErrorKind::Environment, fmt::format("serve: cannot bind {}", o.bind));
  } else if (!http.bind_to_port(o.bind, port)) {
    return make_error(ErrorKind::Environment, fmt::format("serve: cannot bind {}:{} (in use?)", o.bind, port));
  }
  if (!http.raise_backlog(std::max(5, o.backlog)))
    return make_error(ErrorKind::Environment,
                      fmt::format("serve: cannot set the listen backlog on {}:{}", o.bind, port));
  if (on_listening) on_listening(port);
  const bool listened = http.listen_after_bind();
  front.stop();
  http.front = nullptr;
  pool.shutdown();
  if (!listened) return make_error(ErrorKind::Environment, "serve: the server stopped with an error");
  return {};
}

}  // namespace goblin::serve
