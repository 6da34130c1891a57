#include "kernel/workspace.h"

#include <fmt/format.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>

#include "core/clock.h"
#include "core/escape.h"
#include "core/io.h"
#include "core/locate.h"
#include "core/script_text.h"
#include "core/text.h"
#include "hw/knowledge.h"
#include "kernel/expr.h"
#include "kernel/proc.h"

namespace goblin::kernel {

namespace fs = std::filesystem;

namespace {

std::string num(double v) { return format_sig(v, 6); }

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

std::string arch_family(const hw::GpuSpec& g) {
  std::string a;
  for (char c : g.architecture)
    if (c != ' ') a += c;
  return a;
}

Result<Json> parse_shape(const std::string& s) {
  Json j = Json::object();
  size_t start = 0;
  while (start < s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    std::string pair = s.substr(start, end - start);
    auto eq = pair.find('=');
    char* stop = nullptr;
    double v = eq == std::string::npos ? 0 : std::strtod(pair.c_str() + eq + 1, &stop);
    if (eq == std::string::npos || eq == 0 || stop == pair.c_str() + eq + 1 || *stop != '\0')
      return make_error(ErrorKind::Usage,
                        "--shape wants NAME=NUMBER pairs separated by commas (M=8192,N=8192); got \"" + pair + "\"");
    std::string key = pair.substr(0, eq);
    if (v == static_cast<double>(static_cast<long long>(v)))
      j[key] = static_cast<long long>(v);
    else
      j[key] = v;
    start = end + 1;
  }
  return j;
}

std::vector<std::string> spec_lines(const hw::HwKnowledge& hwk, const hw::GpuSpec& g,
                                    std::vector<std::string>& unknown) {
  std::vector<std::string> out;
  auto line = [&](const std::string& metric, const hw::SpecValue& v, const std::string& value) {
    if (!v.known() || v.source_url.empty()) {
      out.push_back(metric + ": UNKNOWN (not in the spec database)");
      unknown.push_back(metric);
      return;
    }
    std::string unit = v.unit.empty() ? "" : " " + v.unit;
    out.push_back(metric + ": " + value + unit + " <- " + v.citation());
  };
  for (const auto& [k, v] : g.specs) line(k, v, v.value ? num(*v.value) : v.text);
  for (const auto& [k, v] : g.peaks) {
    hw::PeakValue p = v;
    if (p.unit.empty()) p.unit = "TFLOPS";
    line("peak_" + k + "_dense", p, p.value ? num(*p.value) : "");
  }
  std::string file;
  Json m = measured_ceilings(hwk, g, &file);
  if (!m.is_null()) {
    std::string how =
        m.value("command", std::string("tools/measure_ceilings.py")) + ", " + m.value("date", std::string("?"));
    if (m.contains("copy_bandwidth_gbs"))
      out.push_back("measured_copy_bandwidth: " + num(m["copy_bandwidth_gbs"].get<double>()) + " GB/s <- data/" + file +
                    " (" + how + ")");
    if (m.contains("gemm"))
      for (const auto& x : m["gemm"])
        out.push_back("measured_gemm_" + x.value("dtype", std::string("?")) + ": " + num(x["tflops"].get<double>()) +
                      " TFLOPS <- data/" + file + " (torch.matmul " + x["shape"].dump() + "; " + how + ")");
  }
  return out;
}

Json measured_ceilings(const hw::HwKnowledge& hwk, const hw::GpuSpec& g, std::string* file) {
  hw::MeasuredCeilings mc = hwk.measured(g);
  if (mc.json.is_null()) return nullptr;
  if (file) *file = hw::measured_ceilings_file(g.id);
  return mc.json;
}

Json shape_with_defaults(const Json& given, const Json& defaults) {
  Json s = defaults.is_object() ? defaults : Json::object();
  for (const auto& [k, v] : given.items()) s[k] = v;
  return s;
}

Result<OpCost> op_cost(const Knowledge& kn, const std::string& op, const Json& shape, const std::string& dtype,
                       const Json& dims) {
  std::string known;
  for (const auto& o : kn.problems.ops) known += (known.empty() ? "" : ", ") + o.name;
  const ProblemOp* n = kn.problems.op(op);
  if (!n) return make_error(ErrorKind::NotFound, "unknown op \"" + op + "\" in PROBLEM (known: " + known + ")");
  auto eb = kn.problems.dtype_bytes.find(dtype);
  if (eb == kn.problems.dtype_bytes.end())
    return make_error(ErrorKind::NotFound, "unknown dtype \"" + dtype + "\" (data/kernel/problems.yaml dtype_bytes)");
  std::map<std::string, double> vars{{"E", eb->second}};
  for (const auto& [name, v] : n->defaults) vars[name] = v;
  for (const auto& [k, v] : shape.items())
    if (v.is_number()) vars[k] = v.get<double>();
  if (dims.is_object())
    for (const auto& [formula_name, shape_name] : dims.items())
      if (shape_name.is_string() && shape.contains(shape_name.get<std::string>()) &&
          shape[shape_name.get<std::string>()].is_number())
        vars[formula_name] = shape[shape_name.get<std::string>()].get<double>();
  for (const auto& dim : n->shape)
    if (!vars.count(dim))
      return make_error(ErrorKind::NotFound,
                        fmt::format("the shape does not give dimension {0} of {1}: pass --shape {0}=N, or give "
                                    "make_inputs a default for it (PROBLEM = {{\"op\": \"{1}\", \"dims\": "
                                    "{{\"{0}\": \"your_name\"}}}} maps it to make_inputs' own name)",
                                    dim, op));
  OpCost c;
  c.source = n->source;
  c.formula = "FLOPs = " + n->flops + ", bytes = " + n->bytes;
  auto f = eval_expr(n->flops, vars);
  if (!f.ok()) return make_error(f.error().kind, op + ": " + f.error().message);
  auto b = eval_expr(n->bytes, vars);
  if (!b.ok()) return make_error(b.error().kind, op + ": " + b.error().message);
  c.flops = *f;
  c.bytes = *b;
  return c;
}

Result<Roofline> step0(const hw::HwKnowledge& hwk, double flops, double bytes, const std::string& dtype,
                       const hw::GpuSpec& g) {
  Roofline r;
  r.flops = flops;
  r.bytes = bytes;
  if (bytes <= 0) return make_error(ErrorKind::Usage, "bytes moved must be > 0 for the roofline");
  r.ai = flops / bytes;
  // A matrix-engine dtype (bf16/fp16/fp8) is compared with its tensor peak; fp32 with SIMT.
  r.peak_key = hw::peak_key_for(dtype, dtype != "fp32");
  auto peak = g.peak_tflops(r.peak_key);
  auto bw = g.bandwidth_bytes_per_s();
  if (!peak || !bw)
    return make_error(ErrorKind::NotFound, g.id + " lacks " +
                                               (peak ? "memory_bandwidth" : "a " + r.peak_key + " peak") +
                                               " in data/gpus.yaml: no roofline without it (UNKNOWN, never estimated)");
  r.peak_tflops = *peak;
  r.bw_gbs = *bw / 1e9;
  r.ridge = r.peak_tflops * 1e12 / *bw;
  r.bound = r.ai >= r.ridge ? "compute_bound" : "memory_bound";
  std::string file;
  Json m = measured_ceilings(hwk, g, &file);
  const hw::PeakValue* pv = g.peak(r.peak_key);
  const hw::SpecValue* bv = g.spec("memory_bandwidth");
  if (r.bound == "memory_bound") {
    r.target_metric = "GB/s";
    r.ceiling = r.bw_gbs;
    r.ceiling_source = bv ? bv->citation() : "data/gpus.yaml";
    if (!m.is_null() && m.contains("copy_bandwidth_gbs")) {
      r.ceiling = m["copy_bandwidth_gbs"].get<double>();
      r.ceiling_measured = true;
      r.ceiling_source = "data/" + file + " measured_copy_bandwidth (" + m.value("date", std::string("?")) + ")";
    }
  } else {
    r.target_metric = "TFLOP/s";
    r.ceiling = r.peak_tflops;
    r.ceiling_source = pv ? pv->citation() : "data/gpus.yaml";
    if (!m.is_null() && m.contains("gemm"))
      for (const auto& x : m["gemm"])
        if (x.value("dtype", std::string()) == r.peak_key) {
          r.ceiling = x["tflops"].get<double>();
          r.ceiling_measured = true;
          r.ceiling_source =
              "data/" + file + " measured_gemm_" + r.peak_key + " (" + m.value("date", std::string("?")) + ")";
        }
  }
  r.target = 0.9 * r.ceiling;
  std::string t;
  t += "FLOPs              = " + num(flops) + "\n";
  t += "bytes (ideal DRAM) = " + num(bytes) + "\n";
  t += "arithmetic intensity = FLOPs / bytes = " + num(flops) + " / " + num(bytes) + " = " + format_fixed(r.ai, 3) +
       " FLOP/byte\n";
  t += "ridge point (" + r.peak_key + ") = peak / bandwidth = " + num(r.peak_tflops) + " TFLOPS / " + num(r.bw_gbs) +
       " GB/s = " + format_fixed(r.ridge, 1) + " FLOP/byte\n";
  t += "=> " + std::string(r.bound == "memory_bound" ? "memory-bound" : "compute-bound") + " (AI " +
       format_fixed(r.ai, 3) + (r.bound == "memory_bound" ? " < " : " >= ") + "ridge " + format_fixed(r.ridge, 1) +
       ")\n";
  double attain = std::min(r.peak_tflops * 1e12, r.ai * *bw);
  t += "attainable (datasheet roofline) = min(peak, AI x bandwidth) = " + num(attain / 1e12) + " TFLOP/s\n";
  t += "best possible time = " + format_sig(std::max(flops / (r.peak_tflops * 1e12), bytes / *bw) * 1e3, 4) +
       " ms at datasheet peaks; " +
       format_sig((r.target_metric == "GB/s" ? bytes / (r.target * 1e9) : flops / (r.target * 1e12)) * 1e3, 4) +
       " ms at the target\n";
  r.text = t;
  return r;
}

// Absolute: the harness runs with a workspace as its directory, so a path relative to the caller's
// would not resolve there.
std::string find_harness(const std::string& given) {
  const std::string h = find_tool_script("kernel_harness.py", given);
  return h.empty() ? h : fs::absolute(h).lexically_normal().string();
}

Json config_to_json(const Config& c) {
  const Roofline& r = c.roof;
  return {{"name", c.name},
          {"platform", md_text(c.platform)},
          {"gpu_name", md_text(c.gpu_name)},
          {"vendor", c.vendor},
          {"arch", c.arch},
          {"arch_id", c.arch_id},
          {"framework", c.framework},
          {"dtype", md_text(c.dtype)},
          {"shape", c.shape},
          {"rtol", c.rtol},
          {"notes", c.notes},
          {"problem_op", c.problem_op},
          {"problem_source", c.problem_source},
          {"roofline",
           {{"flops", r.flops},
            {"bytes", r.bytes},
            {"ai", round_to(r.ai, 4)},
            {"peak_key", r.peak_key},
            {"peak_tflops", r.peak_tflops},
            {"bw_gbs", r.bw_gbs},
            {"ridge", round_to(r.ridge, 3)},
            {"bound", r.bound}}},
          {"target",
           {{"metric", r.target_metric},
            {"ceiling", r.ceiling},
            {"value", round_to(r.target, 3)},
            {"ceiling_source", r.ceiling_source},
            {"ceiling_measured", r.ceiling_measured}}},
          {"pitfalls", c.pitfalls},
          {"budget", {{"max_iterations", c.max_iterations}, {"max_hours", c.max_hours}}},
          {"created_at", c.created_at}};
}

Result<Config> load_config(const std::string& ws) {
  std::string path = (fs::path(ws) / "workspace.json").string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return make_error(ErrorKind::Io, "not a kernel workspace: no workspace.json (create one with `goblin kernel init`)",
                      ws);
  ASSIGN_OR_RETURN(auto t, read_all(path));
  ASSIGN_OR_RETURN(auto j, parse_json_text(t, path, "workspace.json is not valid JSON"));
  Config c;
  try {
    c.dir = ws;
    c.name = j.at("name");
    c.platform = j.at("platform");
    c.gpu_name = j.value("gpu_name", "");
    c.vendor = j.value("vendor", "");
    c.arch = j.value("arch", "");
    c.arch_id = j.value("arch_id", "");
    c.framework = j.value("framework", "triton");
    c.dtype = j.value("dtype", "bf16");
    c.shape = j.value("shape", Json::object());
    c.rtol = j.value("rtol", 1e-2);
    c.notes = j.value("notes", "");
    c.problem_op = j.value("problem_op", "");
    c.problem_source = j.value("problem_source", "");
    const Json& r = j.at("roofline");
    c.roof.flops = r.at("flops");
    c.roof.bytes = r.at("bytes");
    c.roof.ai = r.at("ai");
    c.roof.peak_key = r.at("peak_key");
    c.roof.peak_tflops = r.at("peak_tflops");
    c.roof.bw_gbs = r.at("bw_gbs");
    c.roof.ridge = r.at("ridge");
    c.roof.bound = r.at("bound");
    const Json& t2 = j.at("target");
    c.roof.target_metric = t2.at("metric");
    c.roof.ceiling = t2.at("ceiling");
    c.roof.target = t2.at("value");
    c.roof.ceiling_source = t2.at("ceiling_source");
    c.roof.ceiling_measured = t2.value("ceiling_measured", false);
    c.pitfalls = j.value("pitfalls", std::vector<std::string>{});
    if (j.contains("budget") && j["budget"].is_object()) {
      c.max_iterations = j["budget"].value("max_iterations", 0);
      c.max_hours = j["budget"].value("max_hours", 0.0);
    }
    c.created_at = j.value("created_at", "");
  } catch (const Json::exception& e) {
    return make_error(ErrorKind::Malformed, std::string("workspace.json lacks a field: ") + e.what(), path);
  }
  return c;
}

Result<Config> init_workspace(const InitOptions& o) {
  ASSIGN_OR_RETURN(auto k, knowledge());
  return init_workspace(*k, o);
}

Result<Config> describe_kernel(const Knowledge& k, const InitOptions& o) {
  const hw::HwKnowledge& hwk = k.hw();
  if (o.name.empty() || o.name.find('/') != std::string::npos)
    return make_error(ErrorKind::Usage, "NAME must be a plain name (it makes /tmp/kernel_opt_NAME)");
  // The name becomes a folder, a README heading and the shell lines the README shows: one line.
  RETURN_IF_ERROR(script_line("workspace NAME", o.name));
  static const std::vector<std::string> frameworks = {"triton", "cuda", "cutedsl", "torch"};
  if (std::find(frameworks.begin(), frameworks.end(), o.framework) == frameworks.end())
    return make_error(ErrorKind::Usage, "--framework must be triton, cuda, cutedsl or torch");
  auto gpu = hwk.gpu(o.platform);
  if (!gpu.ok()) {
    std::string known;
    for (auto& id : hw::known_gpu_ids(hwk)) known += (known.empty() ? "" : ", ") + id;
    return make_error(ErrorKind::NotFound, "unknown platform \"" + o.platform + "\" (known: " + known + ")");
  }
  std::error_code ec;
  if (!fs::is_regular_file(o.kernel_file, ec)) return make_error(ErrorKind::Io, "kernel file not found", o.kernel_file);
  ASSIGN_OR_RETURN(auto shape, parse_shape(o.shape));
  Config c;
  c.name = o.name;
  c.dir = o.workspace.empty() ? "/tmp/kernel_opt_" + o.name : o.workspace;
  c.platform = gpu->id;
  c.gpu_name = gpu->name;
  c.vendor = gpu->vendor;
  c.arch = arch_family(*gpu);
  c.arch_id = gpu->arch_id;
  c.framework = o.framework;
  c.dtype = o.dtype;
  c.shape = shape;
  c.rtol = o.rtol;
  c.notes = o.notes.empty() ? "-" : o.notes;
  // The contract check and flops()/bytes_moved() evaluation need no torch: the harness parses
  // the file with Python's ast (tools/kernel_harness.py inspect).
  std::string harness = find_harness(o.harness);
  if (harness.empty())
    return make_error(ErrorKind::Environment, "tools/kernel_harness.py not found (set GOBLIN_TOOLS_DIR or --harness)");
  ASSIGN_OR_RETURN(
      auto ins,
      run_capture({o.python, harness, "inspect", "--kernel", o.kernel_file, "--shape", shape.dump()}, "", 60));
  // The harness prints one JSON object (exit 3 when the contract check failed).
  auto info = parse_json_text(ins.out, o.kernel_file, "kernel_harness.py inspect printed no JSON");
  if (!info.ok()) return make_error(ErrorKind::Environment, info.error().message + ": " + ins.err.substr(0, 1000));
  if (!info->value("ok", false))
    return make_error(ErrorKind::Usage, info->value("error", std::string("kernel file check failed")), o.kernel_file);
  // --shape is optional: make_inputs' defaults give the dimensions it leaves out.
  if (info->contains("make_inputs_defaults")) c.shape = shape_with_defaults(c.shape, (*info)["make_inputs_defaults"]);
  // The static checks (tools/kernel_static.py) need no GPU: what they find is said at init, and
  // bench refuses the file for it.
  if (info->contains("static") && (*info)["static"].is_array())
    for (const auto& f : (*info)["static"])
      c.pitfalls.push_back(fmt::format("static check [{}]: {} (bench refuses this file)",
                                       f.value("check", std::string("?")), f.value("message", std::string())));
  double flops = 0, bytes = 0;
  if (info->contains("flops") && info->contains("bytes_moved")) {
    flops = (*info)["flops"];
    bytes = (*info)["bytes_moved"];
    c.problem_source = "kernel.py flops(*shape) / bytes_moved(*shape)";
  } else {
    c.problem_op = (*info)["problem"]["op"];
    auto cost = op_cost(k, c.problem_op, c.shape, c.dtype, (*info)["problem"].value("dims", Json::object()));
    if (!cost.ok()) return make_error(cost.error().kind, cost.error().message, o.kernel_file);
    flops = cost->flops;
    bytes = cost->bytes;
    c.problem_source = cost->formula + " <- data/kernel/problems.yaml (" + cost->source + ")";
  }
  ASSIGN_OR_RETURN(auto roof, step0(hwk, flops, bytes, c.dtype, *gpu));
  c.roof = roof;
  std::vector<std::string> unknown;
  spec_lines(hwk, *gpu, unknown);  // the README's lines are init's; here only what is UNKNOWN
  for (auto& u : unknown)
    c.pitfalls.push_back("Hardware Spec: " + u + " is UNKNOWN (not in the spec database); not estimated");
  c.max_iterations = o.max_iterations;
  c.max_hours = o.max_hours;
  return c;
}

Result<Config> init_workspace(const Knowledge& k, const InitOptions& o) {
  const hw::HwKnowledge& hwk = k.hw();
  ASSIGN_OR_RETURN(auto c, describe_kernel(k, o));
  c.created_at = now_iso8601();
  auto gpu = hwk.gpu(o.platform);
  std::vector<std::string> unknown;
  auto lines = spec_lines(hwk, *gpu, unknown);
  std::error_code ec;
  if (fs::exists(c.dir, ec) && !fs::is_empty(c.dir, ec))
    return make_error(ErrorKind::Usage, "workspace directory exists and is not empty (pick another --workspace)",
                      c.dir);
  for (const char* d : {"memory", "plans", "profiles"}) fs::create_directories(fs::path(c.dir) / d, ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create the workspace: " + ec.message(), c.dir);
  fs::copy_file(o.kernel_file, fs::path(c.dir) / "kernel.py", ec);
  if (ec) return make_error(ErrorKind::Io, "cannot copy the kernel file: " + ec.message(), o.kernel_file);
  for (const char* d : {"memory", "plans", "profiles"})
    RETURN_IF_ERROR(write_file((fs::path(c.dir) / d / ".keep").string(), ""));

  std::string spec_text;
  for (auto& l : lines) spec_text += (spec_text.empty() ? "" : "\n") + l;
  std::string stop = std::string(c.roof.bound == "memory_bound" ? "memory-bound" : "compute-bound") + " target >= " +
                     (c.roof.target_metric == "GB/s" ? format_fixed(c.roof.target / 1000, 2) + " TB/s"
                                                     : format_fixed(c.roof.target, 1) + " TFLOP/s") +
                     " (90 % of " + num(c.roof.ceiling) + " " + c.roof.target_metric + ", " +
                     (c.roof.ceiling_measured ? "measured maximum" : "datasheet peak") + " <- " +
                     c.roof.ceiling_source + ")";
  std::string readme = k.readme_template;
  // Everything a caller chose (name, shape, dtype, notes, the problem's text) lands in Markdown
  // that people open in renderers: escaped (core/escape.h), so `<img onerror=...>` or a
  // `javascript:` link in the notes is text. The workspace path is a shell word in the README's
  // command block.
  const std::vector<std::pair<std::string, std::string>> vars = {
      {"name", md_text(c.name)},
      {"date", now_iso8601()},
      {"platform", md_text(c.platform)},
      {"gpu_name", md_text(c.gpu_name)},
      {"arch", c.arch},
      {"arch_id", c.arch_id},
      {"vendor", c.vendor},
      {"framework", c.framework},
      {"dtype", md_text(c.dtype)},
      {"shape", md_text(c.shape.dump())},
      {"rtol", format_sig(c.rtol, 4)},
      {"problem", md_text(c.problem_op.empty() ? c.problem_source : c.problem_op + ": " + c.problem_source)},
      {"notes", md_text(c.notes)},
      {"spec_lines", spec_text},
      {"roofline", c.roof.text},
      {"stop_condition", stop},
      {"ws", sh_word(c.dir)}};
  for (auto& [k, v] : vars) readme = replace_all(readme, "{{" + k + "}}", v);
  RETURN_IF_ERROR(write_file((fs::path(c.dir) / "README.md").string(), readme));
  if (auto s = write_file((fs::path(c.dir) / "workspace.json").string(), config_to_json(c).dump(2) + "\n"); !s.ok())
    return s.error();
  if (auto s = write_file((fs::path(c.dir) / ".gitignore").string(),
                          "__pycache__/\n*.pyc\n*.ncu-rep\n*.tmp\nprofiles/*/*.log\n");
      !s.ok())
    return s.error();
  ASSIGN_OR_RETURN(auto gi, git(c.dir, {"init", "-q"}));
  if (gi.code != 0) return make_error(ErrorKind::Io, "git init failed: " + gi.err, c.dir);
  RETURN_IF_ERROR(git_commit_all(c.dir, "init: " + c.name + " on " + c.platform + " (" + c.framework + ", " + c.dtype +
                                            ", " + c.shape.dump() + ")"));
  return c;
}

}  // namespace goblin::kernel
