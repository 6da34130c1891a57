#include "cupti_selection.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace goblin::tracer {

const char* cupti_error(CUptiResult r) {
  const char* why = nullptr;
  cuptiGetResultString(r, &why);
  return why ? why : "?";
}

// What step, launch and sync analyses read. Every other call (cudaGetDevice, cudaGetLastError, ...) is
// frequent and carries nothing goblin analyses, so it is not recorded unless GOBLIN_CUPTI_API=all.
bool wanted_api(const char* name) {
  static const char* const keys[] = {
      "Launch",      "Memcpy",           "Memset",      "Synchronize",  "EventRecord", "EventQuery", "StreamWaitEvent",
      "StreamQuery", "GraphInstantiate", "GraphUpload", "BeginCapture", "EndCapture",  "Malloc",     "Free",
      "MemAlloc",    "MemFree",          "HostAlloc",   "ModuleLoad",   "LibraryLoad"};
  for (const char* k : keys)
    if (std::strstr(name, k)) return true;
  return false;
}

namespace {
// The non-empty words of a comma-separated environment value ("kernel,,memcpy" → kernel, memcpy):
// GOBLIN_CUPTI_KINDS and GOBLIN_CUPTI_TUNE are both written this way.
std::vector<std::string> comma_words(const std::string& spec) {
  std::vector<std::string> words;
  size_t at = 0;
  while (at <= spec.size()) {
    size_t comma = spec.find(',', at);
    if (comma == std::string::npos) comma = spec.size();
    if (comma > at) words.push_back(spec.substr(at, comma - at));
    at = comma + 1;
  }
  return words;
}

// Records the wanted calls of one API domain (on), or stops recording them (off): the whole
// domain is switched, then the unwanted call ids are turned off one by one (every id when
// GOBLIN_CUPTI_API=all is kept). Switching the wanted ids on one by one instead works only when
// done during cuInit: after a pause, or first done later, no API record came at all
// (tracer_checks/pause_resume.py on the H100, CUPTI 13.0, bench/results/tracer/README.md).
int set_apis(const Recorded& rec, CUpti_CallbackDomain domain, uint32_t size, CUpti_ActivityKind kind, bool on) {
  if (!on) return cuptiActivityDisable(kind) == CUPTI_SUCCESS ? 0 : -1;
  if (cuptiActivityEnable(kind) != CUPTI_SUCCESS) return -1;
  if (rec.api_mode == "all") return 0;
  int off = 0;
  for (uint32_t cbid = 1; cbid < size; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !name || wanted_api(name)) continue;
    CUptiResult r = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? cuptiActivityEnableRuntimeApi(cbid, 0)
                                                          : cuptiActivityEnableDriverApi(cbid, 0);
    if (r == CUPTI_SUCCESS) ++off;
  }
  return off;
}

// The activity kinds recorded besides the runtime/driver API calls (set_apis), by the names
// GOBLIN_CUPTI_KINDS uses. All of them by default; a subset exists to measure what each kind
// costs (bench/results/tracer: the per-kernel instrumentation of concurrent-kernel records is what
// a kernel-dense, GPU-bound step pays).
struct KindName {
  const char* name;
  CUpti_ActivityKind kind;
};
const KindName kKindNames[] = {{"kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL},
                               {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY},
                               {"memset", CUPTI_ACTIVITY_KIND_MEMSET},
                               {"sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
                               {"marker", CUPTI_ACTIVITY_KIND_MARKER},
                               {"overhead", CUPTI_ACTIVITY_KIND_OVERHEAD},
                               {"kernel_serial", CUPTI_ACTIVITY_KIND_KERNEL}};
}  // namespace

void choose_kinds(const char* spec, Recorded& out) {
  out.kinds.clear();
  out.callback_api = false;
  if (!spec || !*spec || std::strcmp(spec, "all") == 0) {
    // every kind but kernel_serial (CONCURRENT_KERNEL records the same kernels without serialising)
    for (const auto& k : kKindNames)
      if (k.kind != CUPTI_ACTIVITY_KIND_KERNEL) out.kinds.push_back(k.kind);
    out.kinds_text = "all";
    out.runtime_api = out.driver_api = true;
    return;
  }
  out.kinds_text = spec;
  out.runtime_api = out.driver_api = false;
  for (const std::string& w : comma_words(spec)) {
    bool known = false;
    for (const auto& k : kKindNames)
      if (w == k.name) out.kinds.push_back(k.kind), known = true;
    if (w == "runtime" || w == "api") out.runtime_api = known = true;
    if (w == "driver" || w == "api") out.driver_api = known = true;
    if (w == "cb") out.callback_api = known = true;
    if (w == "none") known = true;
    if (!known) std::fprintf(stderr, "goblin-cupti: GOBLIN_CUPTI_KINDS: unknown kind '%s' ignored\n", w.c_str());
  }
}

void enable_recorded(const Recorded& rec, bool on, bool report) {
  for (auto k : rec.kinds) {
    CUptiResult r = on ? cuptiActivityEnable(k) : cuptiActivityDisable(k);
    if (r != CUPTI_SUCCESS && report)
      std::fprintf(stderr, "goblin-cupti: cuptiActivityEnable failed (%s)\n", cupti_error(r));
  }
  if (rec.runtime_api &&
      set_apis(rec, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, CUPTI_ACTIVITY_KIND_RUNTIME, on) < 0 &&
      report)
    std::fprintf(stderr, "goblin-cupti: runtime API records could not be enabled\n");
  if (rec.driver_api &&
      set_apis(rec, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE, CUPTI_ACTIVITY_KIND_DRIVER, on) < 0 &&
      report)
    std::fprintf(stderr, "goblin-cupti: driver API records could not be enabled\n");
}

std::string apply_tune(const char* spec) {
  if (!spec || !*spec) return {};
  std::string out;
  for (const std::string& w : comma_words(spec)) {
    CUptiResult r = CUPTI_ERROR_INVALID_PARAMETER;
    if (w == "shared") {
      uint8_t v = 0;
      size_t n = sizeof v;
      r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &n, &v);
    } else if (w.rfind("devbuf=", 0) == 0) {
      size_t v = static_cast<size_t>(std::atoll(w.c_str() + 7)) << 20, n = sizeof v;
      r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &n, &v);
    } else if (w.rfind("semaphores=", 0) == 0) {
      size_t v = static_cast<size_t>(std::atoll(w.c_str() + 11)), n = sizeof v;
      r = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_SIZE, &n, &v);
    } else if (w == "hwtrace") {
      r = cuptiActivityEnableHWTrace(1);
    }
    out += (out.empty() ? "" : ",") + w + "=" + (r == CUPTI_SUCCESS ? std::string("ok") : cupti_error(r));
  }
  return out;
}

}  // namespace goblin::tracer
