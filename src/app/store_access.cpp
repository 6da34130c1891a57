#include "app/store_access.h"

#include <fmt/format.h>

#include <algorithm>

namespace goblin::app {

Field store_field() {
  Field f{"store", FieldKind::String,
          "The run store: sqlite:///abs/path.db, sqlite://relative.db or postgresql://... (default $GOBLIN_STORE)"};
  f.doors = kCli | kPython;
  return f;
}

Result<int64_t> parse_run_id(const std::string& s) {
  const bool digits = !s.empty() && s.size() <= 18 &&
                      std::all_of(s.begin(), s.end(), [](unsigned char c) { return c >= '0' && c <= '9'; });
  const int64_t v = digits ? std::stoll(s) : 0;
  if (v <= 0) return make_error(ErrorKind::Usage, fmt::format("a run id is a positive integer (digits only): {}", s));
  return v;
}

std::string store_url_of(const Request& rq, const Context& ctx) {
  if (!ctx.store_url.empty()) return ctx.store_url;
  return rq.has("store") ? rq.str("store") : store::default_store_url();
}

Result<StoreRef> open_store(const Request& rq, const Context& ctx, bool create, bool migrate) {
  if (ctx.door == kMcp) {
    // MCP offers only reads (store_ls, store_show, gate) of the server's store: nothing is created
    // or migrated for a caller, and without a store the caller is told there is none to read.
    if (create) return make_error(ErrorKind::Usage, "the MCP server does not change its run store");
    if (store_url_of(rq, ctx).empty())
      return make_error(ErrorKind::Usage,
                        "this MCP server has no run store (its operator names one in GOBLIN_STORE when starting it): "
                        "nothing to read; the trace analyses (metrics, triage) work without one");
    migrate = false;
  }
  if (ctx.store_pool && !create) {
    ASSIGN_OR_RETURN(auto lease, ctx.store_pool->acquire());
    return StoreRef(std::move(lease));
  }
  ASSIGN_OR_RETURN(auto s, store::Store::open(store_url_of(rq, ctx), create, migrate));
  return StoreRef(std::move(s));
}

Json trace_link(const Json& run) {
  for (const auto& a : run.value("artifacts", Json::array())) {
    const std::string n = a.value("name", "");
    if (n.ends_with(".json") && (n.find("trace") != std::string::npos || n.find("perfetto") != std::string::npos))
      return {{"artifact", n}, {"sha256", a["sha256"]}};
  }
  return nullptr;
}

Json trust_not_checked(const Json& a, const Json& b) {
  Json out = Json::array();
  auto unknown = [](const Json& v) { return v.is_null() || v == "unknown" || v == "" || v == "null"; };
  auto check = [&](const std::string& name, const Json& x, const Json& y) {
    if (unknown(x) || unknown(y)) out.push_back({{"field", name}, {"a", x}, {"b", y}});
  };
  for (const char* f : {"base_image", "resource_class", "gpu_device_ids", "server_flags", "benchmark_config_hash"})
    check(f, a["linkage"].value(f, Json("unknown")), b["linkage"].value(f, Json("unknown")));
  for (const char* f : {"gpu", "driver", "cuda", "rocm", "pytorch"})
    check(f, a["environment"].value(f, Json("unknown")), b["environment"].value(f, Json("unknown")));
  return out;
}

Json trust_differences(const Json& a, const Json& b) {
  Json out = Json::array();
  auto cmp = [&](const std::string& name, const Json& x, const Json& y) {
    if (x != y) out.push_back({{"field", name}, {"a", x}, {"b", y}});
  };
  for (const char* f : {"base_image", "resource_class", "gpu_device_ids", "server_flags", "benchmark_config_hash"})
    cmp(f, a["linkage"].value(f, Json("unknown")), b["linkage"].value(f, Json("unknown")));
  for (const char* f : {"gpu", "driver", "cuda", "rocm", "pytorch"})
    cmp(f, a["environment"].value(f, Json("unknown")), b["environment"].value(f, Json("unknown")));
  return out;
}

}  // namespace goblin::app
