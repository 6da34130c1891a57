// The hardware verbs in the registry: specs (the cited GPU database, detection, measured
// ceilings), roofline, diagnose (Nsight Compute kernel diagnosis and the judge prompts).
#include <fmt/format.h>

#include <cstdio>
#include <ctime>
#include <filesystem>

#include "app/analysis_context.h"
#include "app/diagnose_run.h"
#include "app/registry.h"
#include "app/roofline_run.h"
#include "core/data.h"
#include "core/io.h"
#include "core/locate.h"
#include "hw/gpu_specs.h"
#include "hw/knowledge.h"
#include "hw/spec_check.h"
#include "model/warning_json.h"

namespace goblin::app {

namespace {

struct SpecsArgs {
  std::string gpu;
  bool detect = false, cite = false, json = false, list = false, measure = false;
  std::string out;
  std::string python = "python3";
  std::string script;
};

std::string find_measure_script(const std::string& given) { return find_tool_script("measure_ceilings.py", given); }

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

VerbResult do_measure(const SpecsArgs& a, const hw::HwKnowledge& k) {
  VerbResult r;
  auto det = hw::detect_local_gpus();
  if (!det.ok()) {
    r.error = det.error();
    return r;
  }
  std::string gpu_id;
  if (!a.gpu.empty()) {
    auto g = k.gpu(a.gpu);
    if (!g.ok()) {
      r.error = g.error();
      return r;
    }
    gpu_id = g->id;
  } else {
    auto g = hw::gpu_for_device(k, det->devices.front());
    if (g.ok()) gpu_id = g->id;
  }
  std::string script = find_measure_script(a.script);
  if (script.empty()) {
    r.error = make_error(ErrorKind::Environment,
                         "tools/measure_ceilings.py not found (set GOBLIN_TOOLS_DIR or pass --script PATH)");
    return r;
  }
  std::string cmd = a.python + " '" + script + "' --json 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    r.error = make_error(ErrorKind::Environment, "cannot run " + a.python);
    return r;
  }
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  // The script prints one JSON object on its last line.
  auto pos = out.rfind("\n{");
  std::string js = pos == std::string::npos ? out : out.substr(pos + 1);
  Json m;
  try {
    m = Json::parse(js);
  } catch (...) {
    r.error = make_error(rc == 7 ? ErrorKind::Environment : ErrorKind::Internal,
                         "the microbenchmark failed (exit " + fmt::to_string(rc) + "): " + out.substr(0, 2000));
    return r;
  }
  if (m.contains("error")) {
    r.error = make_error(ErrorKind::Environment, "the microbenchmark could not run: " + m["error"].get<std::string>());
    r.result = m;
    return r;
  }
  m["gpu_id"] = gpu_id.empty() ? Json(nullptr) : Json(gpu_id);
  m["detected_with"] = det->tool;
  m["command"] = "goblin specs --measure (" + a.python + " " + script + " --json)";
  std::string outpath =
      a.out.empty() ? "goblin-measured-" + (gpu_id.empty() ? std::string("gpu") : gpu_id) + "-" + today() + ".json"
                    : a.out;
  auto ws = write_file(outpath, m.dump(2) + "\n");
  if (!ws.ok()) {
    r.error = ws.error();
    r.result = m;
    return r;
  }
  m["written_to"] = outpath;
  r.result = m;
  std::string h = "measured on " + m.value("device_name", std::string("?")) + " (" + m.value("date", today()) + ")\n";
  if (m.contains("copy_bandwidth_gbs"))
    h += "  device-to-device copy: " + m["copy_bandwidth_gbs"].dump() + " GB/s (read+write bytes / time)\n";
  if (m.contains("gemm"))
    for (auto& g : m["gemm"])
      h += "  GEMM " + g.value("dtype", std::string("?")) + " " + g["shape"].dump() + ": " + g["tflops"].dump() +
           " TFLOP/s\n";
  h += "  written to " + outpath + "\n";
  r.human = h;
  return r;
}

VerbResult run_specs(const SpecsArgs& a, const hw::HwKnowledge& k) {
  VerbResult r;
  if (a.measure) return do_measure(a, k);
  // No GPU named and nothing to detect: the known ids (what to name), through every door.
  if (a.list || (a.gpu.empty() && !a.detect)) {
    auto db = k.gpu_db();
    if (!db.ok()) {
      r.error = db.error();
      return r;
    }
    Json arr = Json::array();
    std::string h;
    for (const auto& g : *db) {
      arr.push_back({{"id", g.id}, {"name", g.name}, {"arch_id", g.arch_id}, {"aliases", g.aliases}});
      h += g.id + std::string(12 - std::min<size_t>(11, g.id.size()), ' ') + g.name + " (" + g.arch_id +
           ")\n    aliases: ";
      for (size_t i = 0; i < g.aliases.size(); ++i) h += (i ? ", " : "") + g.aliases[i];
      h += "\n";
    }
    r.result = {{"gpus", arr}};
    r.human = h;
    return r;
  }
  std::vector<hw::GpuSpec> gpus;
  Json detected = nullptr;
  std::string vendor;
  int first_index = 0;
  if (a.detect || a.gpu.empty()) {
    auto det = hw::detect_local_gpus();
    if (!det.ok()) {
      r.error = det.error();
      return r;
    }
    detected = Json::array();
    vendor = det->vendor;
    if (!det->devices.empty()) first_index = std::max(0, det->devices.front().id);
    for (const auto& d : det->devices) {
      auto g = hw::gpu_for_device(k, d);
      detected.push_back(
          {{"index", d.id}, {"name", d.name}, {"arch", d.arch}, {"gpu_id", g.ok() ? Json(g->id) : Json(nullptr)}});
      if (!g.ok()) {
        r.error = g.error();
        r.result = {{"detected", detected}, {"tool", det->tool}};
        return r;
      }
      bool seen = false;
      for (auto& x : gpus) seen |= x.id == g->id;
      if (!seen) gpus.push_back(*g);
    }
  } else {
    auto g = k.gpu(a.gpu);
    if (!g.ok()) {
      r.error = g.error();
      return r;
    }
    gpus.push_back(*g);
  }
  // Measured ceilings shipped beside the datasheet peaks (data/measured/<id>.json).
  auto measured = [&k](const hw::GpuSpec& g) -> Json {
    hw::MeasuredCeilings mc = k.measured(g);
    if (mc.json.is_null()) return nullptr;
    mc.json["file"] = mc.origin;
    return mc.json;
  };
  if (gpus.size() == 1) {
    r.result = hw::gpu_spec_to_json(gpus[0]);
    r.result["citations"] = hw::gpu_spec_cite(gpus[0]);
    if (Json m = measured(gpus[0]); !m.is_null()) r.result["measured"] = m;
  } else {
    Json arr = Json::array();
    for (auto& g : gpus) arr.push_back(hw::gpu_spec_to_json(g));
    r.result = {{"gpus", arr}};
  }
  if (!detected.is_null()) r.result["detected"] = detected;
  // --detect: the database's values checked against what the device itself reports.
  Json check = nullptr;
  if (!detected.is_null() && gpus.size() == 1) {
    check = hw::check_specs_against_device(
        gpus[0], hw::read_device_values(vendor, first_index, a.python, find_tool_script("device_props.py", "")));
    r.result.update(Json{{"device_check", check}});
  }
  for (auto& g : gpus) {
    r.human += a.cite ? hw::gpu_spec_cite(g) : hw::gpu_spec_human(g);
    Json m = measured(g);
    if (m.is_null() || a.cite) continue;
    r.human += "  measured (" + m.value("date", std::string("?")) + ", " + m.value("device_name", std::string("?")) +
               "): copy " + (m.contains("copy_bandwidth_gbs") ? m["copy_bandwidth_gbs"].dump() : "?") + " GB/s";
    if (m.contains("gemm"))
      for (auto& x : m["gemm"])
        r.human += ", " + x.value("dtype", std::string("?")) + " GEMM " + x["tflops"].dump() + " TFLOP/s";
    r.human += "\n";
  }
  if (!check.is_null()) r.human += hw::spec_check_human(check);
  return r;
}

// The roofline and diagnose requests are the app layer's (app/roofline_run.h, diagnose_run.h)
// plus the CLI's second spelling of their input.
struct RooflineVerbRequest : RooflineRequest {
  std::string ncu;
};

struct DiagnoseVerbRequest : DiagnoseRequest {
  std::string ncu_option;
};

VerbResult roofline_verb(const RooflineVerbRequest& rq, Context& ctx) {
  RooflineRequest a = rq;
  const std::string& ncu = rq.ncu;
  if (!ncu.empty() && !a.path.empty() && ncu != a.path)
    return make_error(ErrorKind::Usage, "two inputs given (input and --ncu): pass one");
  if (!ncu.empty()) a.path = ncu;
  if (a.path.empty())
    return make_error(ErrorKind::Usage, "pass the input: a trace, a run directory or an Nsight Compute CSV");
  ASSIGN_OR_RETURN(auto kn, analysis_knowledge_of(ctx));
  return run_roofline(a, *kn);
}

VerbResult diagnose_verb(const DiagnoseVerbRequest& rq, Context& ctx) {
  DiagnoseRequest a = rq;
  const std::string& opt = rq.ncu_option;
  if (!opt.empty() && !a.ncu.empty() && opt != a.ncu)
    return make_error(ErrorKind::Usage, "two Nsight Compute CSVs given (input and --ncu): pass one");
  if (!opt.empty()) a.ncu = opt;
  if (a.ncu.empty() && a.parse_response.empty())
    return make_error(ErrorKind::Usage, "pass an Nsight Compute CSV (ncu --csv --page raw), or --parse-response FILE");
  return run_diagnose(a, *hw_knowledge_of(ctx));
}

Field opt(const char* name, FieldKind k, const char* help, const char* cli = "", unsigned doors = kAllDoors) {
  Field f{name, k, help};
  f.cli = cli;
  f.doors = doors;
  return f;
}

}  // namespace

void add_hw_verbs(std::vector<Verb>& out) {
  {
    Verb v;
    v.cli_path = {"specs"};
    v.records = false;  // a lookup, not a result to remember
    v.tool = "specs";
    v.quotes_user_text = false;  // the cited spec database, not the user's files
    v.title = "GPU spec sheet with sources";
    v.summary = "GPU spec database: cited peak TFLOPS per dtype, bandwidth, caches";
    v.description =
        "One GPU's spec sheet from goblin's cited database (peak FLOP/s per dtype, bandwidth, memory, SM/CU counts, "
        "each with its source, and measured ceilings where recorded), or the known GPU ids when gpu is omitted.";
    v.examples =
        "  goblin specs H100-SXM --cite                      every value with its source\n"
        "  goblin specs \"NVIDIA H100 80GB HBM3\" --json     names as nvidia-smi / amd-smi / Kineto print them\n"
        "  goblin specs --list                               known ids and aliases\n";
    Field gpu = opt("gpu", FieldKind::String, "GPU id or name (H100-SXM, \"NVIDIA H100 80GB HBM3\", MI300X, ...)");
    gpu.positional = true;
    using S = SpecsArgs;
    typed_request<S>(
        v, [](const S& a, Context& ctx) { return run_specs(a, *hw_knowledge_of(ctx)); }, param(&S::gpu, gpu),
        param(&S::detect, opt("detect", FieldKind::Boolean,
                              "identify the GPUs of this machine (nvidia-smi, amd-smi, rocminfo)", "", kCli | kPython)),
        param(&S::cite, opt("cite", FieldKind::Boolean, "one line per value: <metric>: <value> <unit> <- <source>")),
        param(&S::list, opt("list", FieldKind::Boolean, "list known GPU ids and their aliases")),
        param(&S::measure,
              opt("measure", FieldKind::Boolean,
                  "run copy-bandwidth and GEMM microbenchmarks on the local GPU (python3 + torch) and record them", "",
                  kCli | kPython)),
        param(&S::out, opt("out", FieldKind::OutputFile,
                           "where --measure writes its JSON (default goblin-measured-<id>-<date>.json)", "-o,--out",
                           kCli | kPython)),
        param(&S::python, opt("python", FieldKind::String, "python interpreter for --measure (default python3)", "",
                              kCli | kPython)),
        param(&S::script, opt("script", FieldKind::InputPath,
                              "path of measure_ceilings.py (default: found beside goblin)", "", kCli | kPython)));
    v.result_schema = Json{{"type", "object"},
                           {"description",
                            "a spec sheet (id, name, peaks, sources, citations, measured), or "
                            "{gpus: [...]} (list, several detected)"}};
    out.push_back(std::move(v));
  }
  {
    Verb v;
    v.cli_path = {"roofline"};
    v.tool = "roofline";
    v.title = "Roofline of a trace";
    v.summary = "Roofline: achieved TFLOPS/bandwidth per op and kernel vs the GPU's peaks";
    v.description =
        "Achieved TFLOP/s and bandwidth per op and kernel against the GPU's peaks (Kineto trace, Nsight Compute raw "
        "CSV or rocprof counters). On a trace every op class is priced by data/op_models.yaml (GEMM, attention, "
        "elementwise, norms, softmax, reductions, embedding, copies, optimizer steps, collectives, memcpy/memset); "
        "unmodelled_share is the share of GPU-op time without a model. Kernels without a launching op (graph replays, "
        "tracer-only traces) are priced like an identical launch (name, grid, block) priced by its op's shapes in the "
        "trace or in the capture trace.";
    v.examples =
        "  goblin roofline trace.json.gz                     achieved TFLOPS / bandwidth per op vs the GPU's peaks\n"
        "  goblin roofline ncu_raw.csv --gpu H100-SXM --svg roofline.svg\n"
        "  goblin roofline graphs.json.gz --capture eager.json.gz   graph replays priced by the eager run's ops\n";
    Field path = opt("path", FieldKind::InputPath, "Kineto trace, Nsight Compute raw CSV, or rocprof counters");
    path.positional = true;
    Field top = opt("top", FieldKind::Integer, "rows in the table (default 25)");
    top.default_value = 25;
    top.min = 1;
    top.max = 1000;
    using R = RooflineVerbRequest;
    typed_request<R>(
        v, roofline_verb, param(&R::path, path),
        param(&R::ncu, opt("ncu", FieldKind::InputPath,
                           "an Nsight Compute raw CSV, as an option (as diagnose spells it)", "", kCli)),
        param(&R::gpu, opt("gpu", FieldKind::String, "GPU id (default: from the trace's device properties)")),
        param(&R::svg, opt("svg", FieldKind::OutputFile, "write a log-log roofline plot (SVG) to this file", "",
                           kCli | kPython)),
        param(&R::top, top),
        param(&R::capture,
              opt("capture", FieldKind::InputPath,
                  "another trace of the same workload naming what launched the kernels: one recorded during "
                  "CUDA-graph capture (replayed kernels get the op recorded at capture) or a graph-off / "
                  "torch.profiler run (kernels without an op are priced like their identical launches there)")));
    v.result_schema = Json{
        {"type", "object"},
        {"description", "the GPU's peaks and one row per op or kernel"},
        {"properties",
         {{"input_warnings", warnings_json_schema("what the reader noticed")},
          {"unmodelled_share",
           {{"type", "number"}, {"description", "share (0-1) of GPU-op time with no FLOP/byte model (trace mode)"}}}}}};
    v.writes = false;
    out.push_back(std::move(v));
  }
  {
    Verb v;
    v.cli_path = {"diagnose"};
    v.tool = "diagnose";
    v.title = "Kernel bottleneck diagnosis";
    v.summary = "Kernel bottleneck diagnosis from Nsight Compute metrics; LLM judge prompts";
    v.description =
        "The two strongest bottlenecks of distinct categories per kernel, with evidence metrics and fixes; with "
        "judge_prompt=true, an LLM judge's system and user prompts for the longest (or the given) kernel instead.";
    v.examples =
        "  goblin diagnose ncu_raw.csv                       the two strongest bottlenecks of each kernel\n"
        "  goblin diagnose ncu_raw.csv --id 3 --prompt       prompts for an LLM judge of kernel 3\n"
        "  goblin diagnose --parse-response answer.txt       check a judge's answer against the schema\n";
    Field csv = opt("ncu_csv", FieldKind::InputPath, "Nsight Compute raw CSV (ncu --csv --page raw)");
    csv.positional = true;
    using D = DiagnoseVerbRequest;
    typed_request<D>(
        v, diagnose_verb, param(&D::ncu, csv),
        param(&D::ncu_option,
              opt("ncu", FieldKind::InputPath, "the same CSV, as an option (older spelling)", "", kCli)),
        param(&D::id, opt("kernel_id", FieldKind::Integer,
                          "only the kernel with this NCU ID (default: all; --prompt: the longest)", "--id")),
        param(&D::kernel_src,
              opt("kernel_source_file", FieldKind::InputPath, "kernel source file, shown to the judge", "--kernel")),
        param(&D::problem, opt("problem", FieldKind::String, "problem description, shown to the judge")),
        param(&D::gpu, opt("gpu", FieldKind::String, "GPU id (default: from the CSV's device attributes)")),
        param(&D::prompt, opt("judge_prompt", FieldKind::Boolean,
                              "emit the system and user prompts for an LLM judge of this kernel", "--prompt")),
        param(&D::parse_response,
              opt("parse_response", FieldKind::InputPath, "extract and validate a judge's JSON answer from FILE")));
    v.result_schema = Json{{"type", "object"}, {"description", "per kernel its bottlenecks, or the judge prompts"}};
    out.push_back(std::move(v));
  }
}

}  // namespace goblin::app
