#include "cost_study.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <unordered_set>
#include <utility>

namespace goblin::tracer {
namespace {

std::mutex g_sub_mu;  // guards g_sub, g_driver_exit
CUpti_SubscriberHandle g_sub = nullptr;
void (*g_driver_exit)() = nullptr;

// Per-thread callback records: the launching thread appends under its own lock (uncontended
// but for take_callback_records), so no thread waits on another's launches.
struct CbThread {
  std::mutex mu;
  std::vector<ApiRec> recs;
  uint32_t tid = 0;
};
std::mutex g_threads_mu;
std::vector<CbThread*> g_threads;  // never freed: a thread that ended may still hold records
thread_local CbThread* t_cb = nullptr;
// Runtime calls open on this thread: the callback API reports the driver calls a runtime call
// makes (cudaLaunchKernel → cuLaunchKernel, cudaMemsetAsync → cuMemsetD8Async), which the API
// activity records leave out; a driver call inside a runtime call is not recorded again.
thread_local int t_runtime_depth = 0;
uint32_t g_pid = 0;

CbThread* cb_thread() {
  if (t_cb) return t_cb;
  auto* t = new CbThread;
  t->tid = static_cast<uint32_t>(syscall(SYS_gettid));
  std::lock_guard<std::mutex> lk(g_threads_mu);
  g_threads.push_back(t);
  t_cb = t;
  return t;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent) {
    if (cb->callbackSite == CUPTI_API_EXIT && g_driver_exit) g_driver_exit();
    return;
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (!runtime && t_runtime_depth > 0) return;
  uint64_t ts = 0;
  cuptiGetTimestamp(&ts);
  if (cb->callbackSite == CUPTI_API_ENTER) {
    *cb->correlationData = ts;  // CUPTI keeps it for this call's exit
    if (runtime) ++t_runtime_depth;
    return;
  }
  if (runtime && t_runtime_depth > 0) --t_runtime_depth;
  CbThread* t = cb_thread();
  std::lock_guard<std::mutex> lk(t->mu);
  t->recs.push_back(
      ApiRec{*cb->correlationData, ts, cbid, cb->correlationId, g_pid, t->tid, domain == CUPTI_CB_DOMAIN_DRIVER_API});
}

}  // namespace

CUptiResult subscriber(CUpti_SubscriberHandle* out, void (*driver_exit)()) {
  std::lock_guard<std::mutex> lk(g_sub_mu);
  if (driver_exit) g_driver_exit = driver_exit;
  if (!g_sub) {
    g_pid = static_cast<uint32_t>(getpid());
    if (CUptiResult r = cuptiSubscribe(&g_sub, reinterpret_cast<CUpti_CallbackFunc>(on_callback), nullptr);
        r != CUPTI_SUCCESS) {
      g_sub = nullptr;
      return r;
    }
  }
  *out = g_sub;
  return CUPTI_SUCCESS;
}

void forget_subscriber() {
  std::lock_guard<std::mutex> lk(g_sub_mu);
  g_sub = nullptr;
}

int enable_launch_callbacks(const Recorded& rec, bool on) {
  CUpti_SubscriberHandle sub = nullptr;
  if (!on) {
    std::lock_guard<std::mutex> lk(g_sub_mu);
    if (g_sub) {
      cuptiEnableDomain(0, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API);
      cuptiEnableDomain(0, g_sub, CUPTI_CB_DOMAIN_DRIVER_API);
    }
    return 0;
  }
  if (subscriber(&sub, nullptr) != CUPTI_SUCCESS) return -1;
  // Both domains: cuBLASLt and Triton launch through the driver (cuLaunchKernelEx: ~650 of the
  // HF Trainer's ~3,800 launches per step, bench/results/tracer); the runtime's own launches do
  // not pass through a driver callback, so nothing is recorded twice.
  int n = 0;
  const std::pair<CUpti_CallbackDomain, uint32_t> domains[] = {
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE}};
  for (const auto& [dom, size] : domains)
    for (uint32_t cbid = 1; cbid < size; ++cbid) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(dom, cbid, &name) != CUPTI_SUCCESS || !name) continue;
      if (rec.api_mode != "all" && !wanted_api(name)) continue;
      if (dom == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent) continue;
      if (cuptiEnableCallback(1, sub, dom, cbid) == CUPTI_SUCCESS) ++n;
    }
  return n;
}

size_t take_callback_records(std::vector<ApiRec>& out) {
  size_t n = 0;
  std::lock_guard<std::mutex> lk(g_threads_mu);
  for (CbThread* t : g_threads) {
    std::lock_guard<std::mutex> tl(t->mu);
    n += t->recs.size();
    out.insert(out.end(), t->recs.begin(), t->recs.end());
    t->recs.clear();
  }
  return n;
}

std::string attach_summary_json(const Trace& t, const AttachMark& m, const BufferCounters& now, int64_t window_ns) {
  std::map<std::string, uint64_t> by_name;
  std::unordered_set<uint32_t> launched;
  for (size_t i = m.apis; i < t.apis.size(); ++i) {
    const ApiRec& a = t.apis[i];
    launched.insert(a.correlation);
    const char* name = nullptr;
    const auto dom = a.driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
    std::string key = cuptiGetCallbackName(dom, a.cbid, &name) == CUPTI_SUCCESS && name ? name : "?";
    by_name[(a.driver ? "drv:" : "rt:") + key] += 1;
  }
  uint64_t linked = 0;
  for (size_t i = m.kernels; i < t.kernels.size(); ++i) linked += launched.count(t.kernels[i].correlation);
  auto num = [](uint64_t v) { return std::to_string(v); };
  std::string j = "{\"config\":\"" + m.config + "\",\"window_ms\":" + std::to_string(double(window_ns) / 1e6) +
                  ",\"kernels\":" + num(t.kernels.size() - m.kernels) +
                  ",\"kernels_with_launch_record\":" + num(linked) + ",\"copies\":" + num(t.copies.size() - m.copies) +
                  ",\"api_records\":" + num(t.apis.size() - m.apis) + ",\"syncs\":" + num(t.syncs.size() - m.syncs) +
                  ",\"markers\":" + num(t.markers.size() - m.markers) +
                  ",\"buffers_completed\":" + num(now.buffers - m.buffers) +
                  ",\"buffer_requests\":" + num(now.requests - m.requests) +
                  ",\"buffer_request_ns\":" + num(now.request_ns - m.request_ns) +
                  ",\"completed_on_main_thread\":" + num(now.completed_on_main - m.completed_on_main) +
                  ",\"buffer_callback_ns\":" + num(now.callback_ns - m.callback_ns) + ",\"api_by_name\":{";
  bool first = true;
  for (const auto& [k, v] : by_name) {
    j += (first ? "\"" : ",\"") + k + "\":" + num(v);
    first = false;
  }
  return j + "}}";
}

}  // namespace goblin::tracer
