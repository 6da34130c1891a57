// The dashboard's JSON API (docs/dashboard.md) as one plain function from a request to a response,
// so the C++ tests drive it without a socket and the HTTP server (server.cpp) only translates.
// Every route calls a registry verb (store ls|show|experiments|trend|calibration|compare|artifact|
// tag|add) through app::run_verb, like every other door. Every id and filter is validated here by
// its type before anything is read; every value reaches SQL as a bound parameter (store/engine.h); no request value
// ever names a file (artifacts are served by content hash from the store).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/status.h"

namespace goblin::store {
class StorePool;
}

namespace goblin::serve {

struct ApiRequest {
  std::string method = "GET", path;          // path without the query string
  std::map<std::string, std::string> query;  // decoded query parameters (first of each name)
  std::string body, authorization;           // Authorization header as sent
};

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::string disposition;  // Content-Disposition, for artifact downloads
  // Access-Control-Allow-Origin: set on the artifact route only, to Perfetto UI's origin, so the
  // dashboard's "open in Perfetto UI" link (ui.perfetto.dev/#!/?url=...) can fetch the trace
  // from this server; no other route is readable by another site's scripts.
  std::string allow_origin;
  // Content-Security-Policy in place of the pages' own: a stored HTML or SVG artifact is served
  // sandboxed (no script, no same-origin access), framable by the dashboard only.
  std::string csp;
};

// The one origin allowed to read artifacts across sites (docs/dashboard.md § Perfetto UI).
inline constexpr const char* kPerfettoOrigin = "https://ui.perfetto.dev";

struct ApiOptions {
  std::string store_url;
  std::string token;     // empty: read-only (every write is 403)
  size_t pool_size = 8;  // store connections kept open (store/pool.h): one per server worker
  // Directories whose files /api/v1 callers may name (goblin serve --root); empty: none.
  std::vector<std::string> roots;
  // The most seconds query's `timeout` may be over HTTP (600 s by default elsewhere): a caller
  // asking for more, or for none, gets this.
  double max_verb_timeout_s = 10;
};

// The HTTP status of an error's kind (400 for usage and malformed input, 404 not found, ...).
int http_status_of(const Error& e);

// Thread-safe: the server's workers call handle() at once; each request borrows one store
// connection from the pool for its duration.
class Api {
 public:
  explicit Api(ApiOptions o);
  ~Api();
  ApiResponse handle(const ApiRequest& rq) const;
  const store::StorePool& pool() const { return *pool_; }

 private:
  ApiOptions o_;
  std::unique_ptr<store::StorePool> pool_;
};

// Constant-time comparison (a token check must not leak the matching prefix's length by timing).
bool equal_secret(const std::string& a, const std::string& b);

}  // namespace goblin::serve
