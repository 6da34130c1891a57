// Store URLs (docs/store.md § URLs). The redacted form is what any message shows: a password in
// user:password@ or ?password= never reaches output.
#include <string_view>

#include "config/workload_config.h"
#include "store/engine.h"

namespace goblin::store {

Result<StoreUrl> parse_store_url(const std::string& url) {
  StoreUrl u;
  u.redacted = config::redact_credentials(url);
  auto starts = [&](std::string_view p) { return url.compare(0, p.size(), p) == 0; };
  auto ends = [&](std::string_view s) {
    return url.size() >= s.size() && url.compare(url.size() - s.size(), s.size(), s) == 0;
  };
  if (url.empty()) return make_error(ErrorKind::Usage, "store: no store URL (give --store URL or set GOBLIN_STORE)");
  if (starts("sqlite://")) {
    u.kind = EngineKind::Sqlite;
    u.path = url.substr(9);  // sqlite:///abs → /abs; sqlite://rel.db → rel.db (the working directory's)
  } else if (starts("postgresql://") || starts("postgres://")) {
    u.kind = EngineKind::Postgres;
    u.conninfo = url;
  } else if (url.find("://") == std::string::npos && (ends(".db") || ends(".sqlite") || ends(".sqlite3"))) {
    u.kind = EngineKind::Sqlite;
    u.path = url;
  } else {
    return make_error(ErrorKind::Usage,
                      "store: unknown store URL (sqlite:///path/store.db, sqlite://relative.db or postgresql://...)",
                      u.redacted);
  }
  if (u.kind == EngineKind::Sqlite && (u.path.empty() || u.path.find('\0') != std::string::npos))
    return make_error(ErrorKind::Usage, "store: an SQLite store URL needs a file path", u.redacted);
  return u;
}

}  // namespace goblin::store
