// The kernel knowledge context (kernel/knowledge.h): data/kernel/ parsed once per process and
// data directory.
#include "kernel/knowledge.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <atomic>

#include "core/data.h"

namespace goblin::kernel {

namespace {

std::atomic<int64_t> g_loads{0};

// data/<rel> read through `read` (YAML node -> T); a YAML syntax error or a missing or mistyped
// field is Malformed, naming the file and line.
template <class T, class Read>
Result<T> from_yaml(const char* rel, Read&& read) {
  ASSIGN_OR_RETURN(auto text, load_data_file(rel));
  try {
    return read(YAML::Load(text));
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, fmt::format("YAML: {}", e.what()), data_file_origin(rel), -1,
                      e.mark.line + 1);
  }
}

std::optional<std::vector<std::string>> words(const YAML::Node& n) {
  if (!n) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& x : n) out.push_back(x.as<std::string>());
  return out;
}

Problems read_problems(const YAML::Node& root) {
  Problems p;
  for (const auto& kv : root["ops"]) {
    const YAML::Node& n = kv.second;
    ProblemOp op;
    op.name = kv.first.as<std::string>();
    op.shape = words(n["shape"]).value_or(std::vector<std::string>{});
    for (const auto& d : n["defaults"]) op.defaults[d.first.as<std::string>()] = d.second.as<double>();
    op.flops = n["flops"].as<std::string>();
    op.bytes = n["bytes"].as<std::string>();
    op.source = n["source"].as<std::string>("");
    p.ops.push_back(std::move(op));
  }
  for (const auto& kv : root["dtype_bytes"]) p.dtype_bytes[kv.first.as<std::string>()] = kv.second.as<double>();
  return p;
}

std::vector<Candidate> read_candidates(const YAML::Node& root) {
  std::vector<Candidate> out;
  for (const auto& n : root["candidates"]) {
    Candidate c;
    c.id = n["id"].as<std::string>();
    c.title = n["title"].as<std::string>();
    c.source = n["source"].as<std::string>();
    c.vendors = words(n["vendors"]);
    c.archs = words(n["archs"]);
    c.bound = words(n["bound"]);
    c.keywords = words(n["keywords"]).value_or(std::vector<std::string>{});
    out.push_back(std::move(c));
  }
  return out;
}

IntegrityLimits read_integrity(const YAML::Node& root) {
  IntegrityLimits l;
  const YAML::Node p = root["physical_limits"], w = root["work_done"];
  l.tolerance = p["tolerance"].as<double>();
  l.timer_resolution_ms = p["timer_resolution_ms"].as<double>();
  for (const auto& c : p["likely_causes"]) l.likely_causes.push_back(c.as<std::string>());
  l.skipped_below = w["skipped_below"].as<double>();
  l.excess_above = w["excess_above"].as<double>();
  l.fp32_flops_below = w["fp32_flops_below"].as<double>();
  return l;
}

}  // namespace

const ProblemOp* Problems::op(const std::string& name) const {
  for (const auto& o : ops)
    if (o.name == name) return &o;
  return nullptr;
}

Result<Knowledge> Knowledge::load(std::shared_ptr<const hw::HwKnowledge> hw) {
  ++g_loads;
  Knowledge k;
  k.hw_ptr = std::move(hw);
  ASSIGN_OR_RETURN(k.problems, from_yaml<Problems>("kernel/problems.yaml", read_problems));
  ASSIGN_OR_RETURN(k.candidates, from_yaml<std::vector<Candidate>>("kernel/optimizations.yaml", read_candidates));
  ASSIGN_OR_RETURN(k.integrity, from_yaml<IntegrityLimits>("kernel/integrity.yaml", read_integrity));
  ASSIGN_OR_RETURN(auto schema, load_data_file("kernel/iteration.schema.json"));
  ASSIGN_OR_RETURN(k.iteration_schema, parse_json_text(schema, data_file_origin("kernel/iteration.schema.json")));
  ASSIGN_OR_RETURN(k.readme_template, load_data_file("kernel/readme_template.md"));
  ASSIGN_OR_RETURN(k.plan_template, load_data_file("kernel/plan_template.md"));
  return k;
}

Result<std::shared_ptr<const Knowledge>> knowledge() {
  static DataDirCache<Knowledge> cache;
  return cache.get([] { return Knowledge::load(hw::hw_knowledge()); });
}

int64_t knowledge_loads() { return g_loads.load(); }

}  // namespace goblin::kernel
