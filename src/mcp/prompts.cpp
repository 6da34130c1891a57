// prompts/list and prompts/get: the audit instructions (docs/mcp.md) for both vendors and the kernel
// optimization loop, kept as data (data/mcp/gpu_goblin_audit.md, data/mcp/gpu_kernel_optimize.md)
// with the session's budget filled in.
#include <fmt/format.h>

#include <memory>

#include "core/data.h"
#include "mcp/server.h"

namespace goblin::mcp {

namespace {
void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// The two prompt files, read once per process and data directory (like the knowledge contexts:
// DEVELOPING.md § One knowledge context), each without its own header comment, which is not for
// the model. A failed read is not cached.
struct PromptTexts {
  std::string audit, kernel;
};

Result<std::string> prompt_text(const char* rel) {
  ASSIGN_OR_RETURN(auto t, load_data_file(rel));
  if (t.rfind("<!--", 0) == 0) {
    size_t end = t.find("-->");
    if (end != std::string::npos) t = t.substr(t.find_first_not_of("\n", end + 3));
  }
  return t;
}

Result<std::shared_ptr<const PromptTexts>> prompt_texts() {
  static DataDirCache<PromptTexts> cache;
  return cache.get([]() -> Result<PromptTexts> {
    PromptTexts p;
    ASSIGN_OR_RETURN(p.audit, prompt_text("mcp/gpu_goblin_audit.md"));
    ASSIGN_OR_RETURN(p.kernel, prompt_text("mcp/gpu_kernel_optimize.md"));
    return p;
  });
}
}  // namespace

Json prompts_list() {
  return Json{
      {"prompts",
       Json::array({Json{{"name", "gpu_goblin_audit"},
                         {"title", "GPU Goblin audit"},
                         {"description",
                          "The audit instructions (AMD and NVIDIA): the trajectory parse_config -> profile_run "
                          "-> query_kb -> propose_patch -> benchmark x2 -> compare_runs, tool input shapes, the call "
                          "budget and the guardrails (ROCPROFSYS_* are profiler settings, bitsandbytes on ROCm, the "
                          "validity disclaimer, confidence honesty)."},
                         {"arguments",
                          Json::array({Json{{"name", "config_path"},
                                            {"description", "the workload config to audit (inside the server's roots)"},
                                            {"required", false}},
                                       Json{{"name", "vendor"},
                                            {"description", "amd | nvidia: the GPU vendor, when known"},
                                            {"required", false}}})}},
                    Json{{"name", "gpu_kernel_optimize"},
                         {"title", "GPU kernel optimization loop"},
                         {"description",
                          "The profile-driven kernel optimization loop over the kernel_* tools: Step 0 first "
                          "(kernel_init), one change per iteration, record only correct versions, each iteration "
                          "from the best recorded one, stop when kernel_status says stop."},
                         {"arguments",
                          Json::array({Json{{"name", "kernel_file"},
                                            {"description", "the kernel file to optimize (inside the server's roots)"},
                                            {"required", false}},
                                       Json{{"name", "platform"},
                                            {"description", "the GPU id of goblin's spec database (H100, MI300X, ...)"},
                                            {"required", false}}})}}})}};
}

std::optional<Json> prompt_get(const Json& params, const Session& s, RpcError& err) {
  if (!params.contains("name") || !params["name"].is_string()) {
    err = RpcError{kInvalidParams, "prompts/get needs params.name (a string)", nullptr};
    return std::nullopt;
  }
  if (params["name"] != "gpu_goblin_audit" && params["name"] != "gpu_kernel_optimize") {
    err = RpcError{kInvalidParams, "unknown prompt '" + params["name"].get<std::string>() + "' (see prompts/list)",
                   nullptr};
    return std::nullopt;
  }
  Json args = params.contains("arguments") ? params["arguments"] : Json::object();
  if (!args.is_object()) {
    err = RpcError{kInvalidParams, "params.arguments must be an object of strings", nullptr};
    return std::nullopt;
  }
  for (const auto& [k, v] : args.items())
    if (!v.is_string()) {
      err = RpcError{kInvalidParams, "prompt argument '" + k + "' must be a string", nullptr};
      return std::nullopt;
    }
  const bool kernel = params["name"] == "gpu_kernel_optimize";
  auto texts = prompt_texts();
  if (!texts.ok()) {
    err = RpcError{kInternalError, texts.error().describe(), nullptr};
    return std::nullopt;
  }
  std::string t = kernel ? (*texts)->kernel : (*texts)->audit;
  if (kernel) {
    const std::string file = args.value("kernel_file", std::string()), plat = args.value("platform", std::string());
    std::string start = "Begin with kernel_init";
    if (!file.empty()) start += " on " + file;
    if (!plat.empty()) start += " for the " + plat;
    start += ".";
    replace_all(t, "{{budget}}", fmt::format("{}", s.options().budget));
    replace_all(t, "{{start}}", start);
    return Json{{"description", "GPU kernel optimization loop"},
                {"messages", Json::array({Json{{"role", "user"}, {"content", {{"type", "text"}, {"text", t}}}}})}};
  }
  std::string vendor = args.value("vendor", std::string());
  std::string focus = vendor == "amd"      ? "This audit is on an AMD Instinct GPU (ROCm): prefer ROCm-specific rules."
                      : vendor == "nvidia" ? "This audit is on an NVIDIA GPU (CUDA): prefer CUDA-specific rules."
                                           : "Take the vendor from the profile (gpu_name) before choosing rules.";
  std::string cfg = args.value("config_path", std::string());
  std::string start = cfg.empty() ? "Begin your audit by calling parse_config on the user's config file."
                                  : "Begin your audit by calling parse_config on " + cfg + ".";
  replace_all(t, "{{budget}}", fmt::format("{}", s.options().budget));
  replace_all(t, "{{vendor_focus}}", focus);
  replace_all(t, "{{start}}", start);
  return Json{{"description", "GPU Goblin audit instructions (AMD and NVIDIA)"},

              {"messages", Json::array({Json{{"role", "user"}, {"content", {{"type", "text"}, {"text", t}}}}})}};
}

}  // namespace goblin::mcp
