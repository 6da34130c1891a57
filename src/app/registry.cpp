#include "app/registry.h"

#include "config/workload_config.h"

namespace goblin::app {

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> all = [] {
    std::vector<Verb> v;
    add_trace_verbs(v);
    add_query_verbs(v);
    add_audit_verbs(v);
    add_hw_verbs(v);
    add_meta_verbs(v);
    return v;
  }();
  return all;
}

VerbResult run_verb(const Verb& v, const Request& rq, Context& ctx) {
  VerbResult r = v.run(rq, ctx);
  config::redact_json(r.result);
  r.human = config::redact_credentials(r.human);
  if (r.error) r.error->message = config::redact_credentials(r.error->message);
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
