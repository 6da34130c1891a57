#include "app/registry.h"

#include "config/workload_config.h"

namespace goblin::app {

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> all = [] {
    std::vector<Verb> v;
    add_trace_verbs(v);
    add_trace_tool_verbs(v);
    add_query_verbs(v);
    add_audit_verbs(v);
    add_audit_run_verbs(v);
    add_run_verbs(v);
    add_hw_verbs(v);
    add_memory_verbs(v);
    add_kernel_verbs(v);
    add_server_verbs(v);
    add_store_verbs(v);
    add_store_web_verbs(v);
    add_scale_verbs(v);
    add_meta_verbs(v);
    for (Verb& x : v) {
      if (!x.records) continue;
      for (Field& f : record_fields()) {
        // A verb whose own field already takes the name or flag (compare's --workload) keeps it.
        bool taken = false;
        for (const Field& g : x.request)
          taken = taken || g.name == f.name || g.cli.find(cli_flag(f)) != std::string::npos;
        if (!taken) x.request.push_back(std::move(f));
      }
    }
    return v;
  }();
  return all;
}

VerbResult run_verb(const Verb& v, const Request& rq, Context& ctx) {
  VerbResult r = v.run(rq, ctx);
  config::redact_json(r.result);
  r.human = config::redact_credentials(r.human);
  if (r.error) r.error->message = config::redact_credentials(r.error->message);
  if (!r.error && v.records) record_result(v, rq, r);
  return r;
}

const Verb* find_verb(std::string_view name) {
  for (const Verb& v : verbs()) {
    if (v.cli_name() == name || (!v.tool.empty() && v.tool == name)) return &v;
    for (const auto& a : v.tool_aliases)
      if (a == name) return &v;
  }
  return nullptr;
}

}  // namespace goblin::app
