// goblin serve: the dashboard's HTTP server (cpp-httplib) around the JSON API (api.h) and the
// pages of web/ (docs/dashboard.md). Binds to 127.0.0.1 unless told; read-only unless a token is
// given; bodies, connections, threads and time per request are bounded, so a hostile client gets a
// 4xx or a closed connection and the server goes on.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin::serve {

struct ServeOptions {
  std::string store_url;  // default $GOBLIN_STORE
  std::string bind = "127.0.0.1";
  int port = 8080;  // 0: any free port (printed)
  std::string token;
  std::vector<std::string> roots;        // --root: directories /api/v1 callers may name files in
  std::vector<std::string> allow_hosts;  // --allow-host: Host names answered besides the bound ones
  size_t max_body_bytes = 8u << 20;      // a recorded result JSON fits; larger bodies are 413
  int threads = 8;                       // worker threads (requests served at once)
  int timeout_s = 10;                    // read / write timeout per request
  int max_queued = 64;                   // connections waiting for a worker; past it a connection is answered 503
  int shed_threads = 4;                  // workers that answer those 503s (reading the request first, then closing)
  int backlog = 4096;                    // listen backlog (the kernel caps it at net.core.somaxconn)
};

// Serves until stop() is called from another thread (or the process is signalled). `on_listening`
// gets the bound port once the socket listens. Returns the error that kept it from listening.
class Server {
 public:
  explicit Server(ServeOptions o);
  ~Server();
  Status run(const std::function<void(int port)>& on_listening = {});
  void stop();

 private:
  struct Impl;
  Impl* impl_;
};

// The web files the pages need, by URL path, from the first runtime root (core/locate.h) that
// has them: web/ in the source tree, share/goblin/web when installed. Empty when absent.
std::string web_file(const std::string& url_path);

}  // namespace goblin::serve
