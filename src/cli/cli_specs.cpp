// goblin specs [GPU] [--detect] [--cite] [--json] [--list] [--measure [--out FILE]]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "cli/verb.h"
#include "cli/verbs.h"
#include "core/data.h"
#include "core/io.h"
#include "core/locate.h"
#include "hw/gpu_specs.h"

namespace goblin {

namespace {

struct SpecsArgs {
  std::string gpu;
  bool detect = false, cite = false, json = false, list = false, measure = false;
  std::string out;
  std::string python = "python3";
  std::string script;
};

std::string find_measure_script(const std::string& given) {
  return find_tool_script("measure_ceilings.py", given, GOBLIN_HW_SOURCE_DIR);
}

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

VerbResult do_measure(const SpecsArgs& a) {
  VerbResult r;
  auto det = detect_local_gpus();
  if (!det.ok()) {
    r.error = det.error();
    return r;
  }
  std::string gpu_id;
  if (!a.gpu.empty()) {
    auto g = lookup_gpu(a.gpu);
    if (!g.ok()) {
      r.error = g.error();
      return r;
    }
    gpu_id = g->id;
  } else {
    auto g = gpu_for_device(det->devices.front());
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
                         "the microbenchmark failed (exit " + std::to_string(rc) + "): " + out.substr(0, 2000));
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

VerbResult run_specs(const SpecsArgs& a) {
  VerbResult r;
  if (a.measure) return do_measure(a);
  if (a.list) {
    auto db = load_gpu_db();
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
  std::vector<GpuSpec> gpus;
  Json detected = nullptr;
  if (a.detect || a.gpu.empty()) {
    if (!a.detect && a.gpu.empty()) {
      r.error = make_error(ErrorKind::Usage, "name a GPU (goblin specs H100-SXM), or pass --detect or --list");
      return r;
    }
    auto det = detect_local_gpus();
    if (!det.ok()) {
      r.error = det.error();
      return r;
    }
    detected = Json::array();
    for (const auto& d : det->devices) {
      auto g = gpu_for_device(d);
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
    auto g = lookup_gpu(a.gpu);
    if (!g.ok()) {
      r.error = g.error();
      return r;
    }
    gpus.push_back(*g);
  }
  // Measured ceilings shipped beside the datasheet peaks (data/measured/<id>.json).
  auto measured = [](const GpuSpec& g) -> Json {
    std::string f = g.id;
    for (auto& c : f) c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto t = load_data_file("measured/" + f + ".json");
    if (!t.ok()) return nullptr;
    try {
      Json j = Json::parse(*t);
      j["file"] = data_file_origin("measured/" + f + ".json");
      return j;
    } catch (...) {
      return nullptr;
    }
  };
  if (gpus.size() == 1) {
    r.result = gpu_spec_to_json(gpus[0]);
    if (Json m = measured(gpus[0]); !m.is_null()) r.result["measured"] = m;
  } else {
    Json arr = Json::array();
    for (auto& g : gpus) arr.push_back(gpu_spec_to_json(g));
    r.result = {{"gpus", arr}};
  }
  if (!detected.is_null()) r.result["detected"] = detected;
  for (auto& g : gpus) {
    r.human += a.cite ? gpu_spec_cite(g) : gpu_spec_human(g);
    Json m = measured(g);
    if (m.is_null() || a.cite) continue;
    r.human += "  measured (" + m.value("date", std::string("?")) + ", " + m.value("device_name", std::string("?")) +
               "): copy " + (m.contains("copy_bandwidth_gbs") ? m["copy_bandwidth_gbs"].dump() : "?") + " GB/s";
    if (m.contains("gemm"))
      for (auto& x : m["gemm"])
        r.human += ", " + x.value("dtype", std::string("?")) + " GEMM " + x["tflops"].dump() + " TFLOP/s";
    r.human += "\n";
  }
  return r;
}

}  // namespace

void register_specs(CLI::App& app) {
  auto a = std::make_shared<SpecsArgs>();
  auto* cmd = app.add_subcommand("specs", "GPU spec database: cited peak TFLOPS per dtype, bandwidth, caches");
  cmd->footer(help_footer_with_examples(
      "  goblin specs H100-SXM --cite                      every value with its source\n"
      "  goblin specs \"NVIDIA H100 80GB HBM3\" --json     names as nvidia-smi / amd-smi / Kineto "
      "print them\n"
      "  goblin specs --list                               known ids and aliases\n"));
  cmd->add_option("gpu", a->gpu, "GPU id or name (H100-SXM, \"NVIDIA H100 80GB HBM3\", MI300X, ...)");
  cmd->add_flag("--detect", a->detect, "identify the GPUs of this machine (nvidia-smi, amd-smi, rocminfo)");
  cmd->add_flag("--cite", a->cite, "one line per value: <metric>: <value> <unit> <- <source>");
  cmd->add_flag("--list", a->list, "list known GPU ids and their aliases");
  cmd->add_flag("--measure", a->measure,
                "run copy-bandwidth and GEMM microbenchmarks on the local GPU (python3 + torch) and record them");
  cmd->add_option("-o,--out", a->out, "where --measure writes its JSON (default goblin-measured-<id>-<date>.json)");
  cmd->add_option("--python", a->python, "python interpreter for --measure (default python3)");
  cmd->add_option("--script", a->script, "path of measure_ceilings.py (default: found beside goblin)");
  cmd->add_flag("--json", a->json, "JSON envelope output");
  cmd->callback([a] { run_verb(a->json, [a] { return run_specs(*a); }); });
}

}  // namespace goblin
