// libgoblin_cupti.so: goblin's CUPTI activity tracer, loaded into an unmodified program by the
// CUDA driver through CUDA_INJECTION64_PATH (the driver calls InitializeInjection from cuInit)
// and, for NVTX ranges, through NVTX_INJECTION64_PATH (forwarded to CUPTI's NVTX handler).
//
// While the program runs: CUPTI fills 8 MiB activity buffers asynchronously; the completion
// callback copies each record into a compact struct (trace_format.h) and recycles the buffer.
// At exit (atexit), or when a terminating signal with default disposition arrives, the
// buffers are flushed and the Kineto-compatible trace is written to
//   $GOBLIN_CUPTI_DIR/goblin_cupti_<pid>.json.gz   (default dir ".")
// through a temporary file and rename, so a reader never sees half a trace. SIGKILL cannot be
// caught: then nothing is written (docs/tracer.md).
//
// Environment: GOBLIN_CUPTI_DIR (output folder), GOBLIN_CUPTI_API=all (every runtime/driver
// API call instead of the work-creating and blocking ones), GOBLIN_CUPTI_KINDS (a subset of the
// recorded kinds, for overhead measurements), GOBLIN_CUPTI_START_PAUSED=1 (record nothing, CUPTI
// not attached, until goblin_cupti_set_recording(1)), GOBLIN_CUPTI_PAUSE=disable|detach (how a
// pause is made, below), GOBLIN_CUPTI_VERBOSE=1 (one line on stderr at exit). For the cost study
// of issue 30 (cost_study.h): goblin_cupti_configure changes what the next attach records, the
// kind word "cb" takes launch records from callbacks, and each attach's summary is written as
// the trace's goblin_tracer_attaches.
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "activity_copy.h"
#include "cost_study.h"
#include "cupti_clocks.h"
#include "cupti_selection.h"
#include "goblin_ops_abi.h"
#include "op_attribution.h"
#include "process_info.h"
#include "signal_writer.h"
#include "trace_format.h"

#define GOBLIN_EXPORT extern "C" __attribute__((visibility("default")))

namespace goblin::tracer {
namespace {

constexpr size_t kBufferBytes = 8u << 20;
constexpr size_t kAlign = 8;

// ---- state shared by the CUPTI worker thread, the program's threads and the signal path ----
std::mutex g_mu;  // guards g_trace (and g_copier), g_stats (held per buffer, never per record)
Trace g_trace;
// The free buffers have a lock of their own: buffer_requested runs on the launching thread when
// its buffer is full, and must not wait while buffer_completed (CUPTI's worker) holds g_mu
// copying a whole 8 MiB buffer's records.
std::mutex g_free_mu;
std::vector<uint8_t*> g_free;
// What the buffer callbacks cost the program's threads (issue 30's cost study): requests (on the
// launching thread) and their time, completions that ran on the main thread.
std::atomic<uint64_t> g_requests{0}, g_request_ns{0}, g_completed_on_main{0};
// CUPTI numbers correlation ids from 1 again after cuptiFinalize, so a trace with several attaches
// (a paused and resumed goblin trace, the hook's repeated windows) would link a kernel to the
// launch of an earlier attach with the same id: each attach's ids are offset past the last one's.
uint32_t g_corr_base = 0, g_corr_max = 0;
uint32_t corr(uint32_t id) {
  const uint32_t c = id + g_corr_base;
  if (c > g_corr_max) g_corr_max = c;
  return c;
}
struct Stats {
  uint64_t buffers = 0, records = 0, dropped = 0, callback_ns = 0, unknown_records = 0;
  uint64_t pauses = 0, paused_ns = 0;  // goblin_cupti_set_recording(0) calls and their total time
  // Time spent inside goblin_cupti_set_recording itself: resuming (attaching CUPTI, enabling the
  // kinds) and pausing (disabling; with detach also synchronising, flushing and detaching). The
  // program waits this long at each edge of a window (the hook keeps it out of its step timing).
  uint64_t resume_call_ns = 0, pause_call_ns = 0, first_resume_call_ns = 0;
  bool started_paused = false;  // GOBLIN_CUPTI_START_PAUSED=1: nothing recorded until resumed
} g_stats;

// 0 not started, 1 tracing, 2 writing, 3 written, 4 write failed.
std::atomic<int> g_state{0};
pid_t g_owner = 0;
std::string g_dir = ".";
bool g_verbose = false;
Recorded g_recorded;  // the activity kinds and API calls this process records
std::vector<ClockSample> g_clock_start;

// ---- the buffer path (CUPTI worker thread) ---------------------------------------------------

// Names and records are copied by one ActivityCopier over g_trace (activity_copy.h); g_mu held.
ActivityCopier g_copier(g_trace);
uint32_t intern_locked(const std::string& s) { return g_copier.intern(s); }

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  const int64_t t0 = mono_ns();
  uint8_t* b = nullptr;
  {
    std::lock_guard<std::mutex> lk(g_free_mu);
    if (!g_free.empty()) {
      b = g_free.back();
      g_free.pop_back();
    }
  }
  if (!b) b = static_cast<uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes));
  *buffer = b;
  *size = b ? kBufferBytes : 0;
  *max_records = 0;
  g_requests.fetch_add(1, std::memory_order_relaxed);
  g_request_ns.fetch_add(static_cast<uint64_t>(mono_ns() - t0), std::memory_order_relaxed);
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
  const int64_t t0 = mono_ns();
  if (static_cast<pid_t>(syscall(SYS_gettid)) == g_owner) g_completed_on_main.fetch_add(1, std::memory_order_relaxed);
  size_t dropped = 0;
  cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped);
  std::lock_guard<std::mutex> lk(g_mu);
  CUpti_Activity* r = nullptr;
  while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
    if (!g_copier.copy(r, corr)) ++g_stats.unknown_records;
    ++g_stats.records;
  }
  ++g_stats.buffers;
  g_stats.dropped += dropped;
  if (buffer) {
    std::lock_guard<std::mutex> fl(g_free_mu);
    g_free.push_back(buffer);
  }
  g_stats.callback_ns += static_cast<uint64_t>(mono_ns() - t0);
}

// ---- pausing: recording only a window ---------------------------------------------------------
// goblin_cupti_set_recording(0) stops every activity kind; (1) starts them again. Two jobs use it:
//  - recording only the profiled window. CUPTI intercepts every launch while any activity kind is
//    enabled (3.5-8 us of host time per launch on the H100 machines, whatever kinds are recorded;
//    about 1 us with all of them disabled but CUPTI still attached: bench/results/tracer/README.md),
//    so a launch-bound job pays that on every step it runs under the tracer. With
//    GOBLIN_CUPTI_START_PAUSED=1 the tracer records nothing until goblin's hook resumes it at the
//    profiled window's first step, and the hook pauses it after the window's last;
//  - measuring the tracer's cost inside one process (the hook's A/B mode alternates blocks of
//    steps recorded / not recorded, so process-to-process noise cancels).
// Started paused, the tracer does not touch CUPTI at cuInit: the first resume attaches it
// (registers the buffer callbacks) and enables the kinds, so the steps before the window run with
// no tracer cost at all (host time per launch as untraced: bench/results/tracer, 2026-11-24).
// How a pause is made (GOBLIN_CUPTI_PAUSE), measured on the H100 (bench/results/tracer/README.md
// § "Session of 2026-11-24"):
//  - detach (default): every kind disabled, the context synchronised, every buffer flushed and
//    CUPTI detached with cuptiFinalize, from the exit callsite of a driver call as CUPTI's
//    documentation asks; a later resume attaches it again. The steps after a window pay no tracer
//    cost (tuned_compile's quiet variant, 10 of 200 steps recorded: job +1.1 %), for one
//    synchronisation at the window's end.
//  - disable: every kind disabled, CUPTI stays attached, no synchronisation. Cheaper at the
//    window's edge, but CUPTI attached late and left attached slowed the steps after the window
//    on the launch-bound config (job +2.5 to +15 %, 4 runs).
// goblin_cupti_detach(0) detaches without synchronising, for a caller that knows the recorded
// work has finished (goblin's hook with GOBLIN_CUPTI_DETACH=1 and GOBLIN_CUPTI_PAUSE=disable,
// after a CUDA event past the window completed; not yet measured on a GPU).
// The trace's metadata says how often and how long recording was paused, and how often CUPTI was
// attached and detached, so a paused trace is never mistaken for a whole one.
std::mutex g_pause_mu;  // guards g_recording, g_paused_at, g_attached, g_detach_*
bool g_recording = true;
int64_t g_paused_at = 0;
bool g_detach_on_pause = true;  // GOBLIN_CUPTI_PAUSE=detach (default), or disable
bool g_attached = false;        // CUPTI's activity callbacks registered in this process
ClockAlignment g_mono_align;    // CLOCK_MONOTONIC → CUPTI, from the last attach or hand-over
uint64_t g_attaches = 0, g_detaches = 0;
std::string g_detach_error;  // why the last detach did not happen (then: paused, attached)
std::atomic<bool> g_detach_pending{false};
std::atomic<bool> g_detached_in_callback{false};

// GOBLIN_CUPTI_TUNE's options and CUPTI's answers (cupti_selection.h: apply_tune).
std::string g_tune;

// One summary per attach (cost_study.h), written as the trace's goblin_tracer_attaches: what each
// window recorded under which configuration (goblin_cupti_configure may change it between
// windows). Guarded by g_mu.
AttachMark g_mark;
bool g_mark_open = false;
int64_t g_mark_t = 0;
std::vector<std::string> g_attach_log;

BufferCounters buffer_counters_locked() {
  return BufferCounters{g_stats.buffers, g_requests.load(), g_request_ns.load(), g_completed_on_main.load(),
                        g_stats.callback_ns};
}

// The callback launch records taken so far, into the trace (caller holds g_mu).
void merge_callbacks_locked() {
  std::vector<ApiRec> v;
  take_callback_records(v);
  for (ApiRec& a : v) {
    a.correlation = corr(a.correlation);
    g_trace.apis.push_back(a);
  }
}

// Ends the open attach's summary (caller holds g_mu; every record of it flushed and merged).
void close_attach_locked() {
  if (!g_mark_open) return;
  g_attach_log.push_back(attach_summary_json(g_trace, g_mark, buffer_counters_locked(), mono_ns() - g_mark_t));
  g_mark_open = false;
}

// Every recorded kind and API domain on or off, the callback launch records too.
void switch_recorded(bool on, bool report) {
  enable_recorded(g_recorded, on, report);
  if (g_recorded.callback_api && enable_launch_callbacks(g_recorded, on) < 0 && report)
    std::fprintf(stderr, "goblin-cupti: callback launch records could not be enabled\n");
}

// Registers the buffer callbacks: CUPTI attaches to the process here. Returns CUPTI_SUCCESS or
// the error.
CUptiResult attach() {
  cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  if (g_attaches == 0) g_tune = apply_tune(std::getenv("GOBLIN_CUPTI_TUNE"));
  CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (r == CUPTI_SUCCESS) {
    if (g_clock_start.empty()) g_clock_start = sample_clocks(8);
    g_mono_align = align_clocks(sample_mono_clocks(8));
    {
      std::lock_guard<std::mutex> lk(g_mu);
      if (g_attaches > 0) g_corr_base = g_corr_max;  // every record of the last attach was flushed at its detach
      const BufferCounters c = buffer_counters_locked();
      g_mark = AttachMark{g_recorded.kinds_text + "|" + g_recorded.api_mode,
                          g_trace.kernels.size(),
                          g_trace.copies.size(),
                          g_trace.apis.size(),
                          g_trace.syncs.size(),
                          g_trace.markers.size(),
                          c.buffers,
                          c.requests,
                          c.request_ns,
                          c.completed_on_main,
                          c.callback_ns};
      g_mark_open = true;
      g_mark_t = mono_ns();
    }
    g_attached = true;
    ++g_attaches;
  }
  return r;
}

// The driver calls used around a detach, looked up in the libcuda that loaded this library (it
// is not linked: the library must load wherever the driver does).
template <typename F>
F driver_fn(const char* name) {
  static void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  return h ? reinterpret_cast<F>(dlsym(h, name)) : nullptr;
}

// Runs at the exit of an enabled driver call (the subscriber's, cost_study.h).
void detach_hook() {
  if (g_detach_pending.exchange(false)) {
    cuptiFinalize();
    g_detached_in_callback.store(true);
  }
}

// Detaches CUPTI (caller holds g_pause_mu; the kinds are already disabled). Returns true when
// CUPTI is detached; otherwise g_detach_error says why and CUPTI stays attached, paused.
bool detach_locked(bool synchronize_first) {
  using CtxGetCurrent = CUresult (*)(CUcontext*);
  using CtxSynchronize = CUresult (*)();
  auto get_current = driver_fn<CtxGetCurrent>("cuCtxGetCurrent");
  auto synchronize = driver_fn<CtxSynchronize>("cuCtxSynchronize");
  if (!get_current || !synchronize) {
    g_detach_error = "cuCtxGetCurrent/cuCtxSynchronize not found in libcuda.so.1";
    return false;
  }
  // Records of work still running would be lost with CUPTI: wait for it, then flush (unless the
  // caller knows the recorded work has finished: goblin_cupti_detach(0)).
  CUcontext ctx = nullptr;
  if (get_current(&ctx) == CUDA_SUCCESS && ctx && synchronize_first) synchronize();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  {
    std::lock_guard<std::mutex> lk(g_mu);
    merge_callbacks_locked();
    close_attach_locked();
  }
  // cuptiFinalize from the exit callsite of a driver call (CUPTI's documented safe point): a
  // callback on cuCtxGetCurrent only, triggered by the call below on this thread. The process's
  // one subscriber (also the callback launch records') takes it.
  CUpti_SubscriberHandle sub = nullptr;
  if (CUptiResult r = subscriber(&sub, detach_hook); r != CUPTI_SUCCESS) {
    g_detach_error = std::string("cuptiSubscribe failed: ") + cupti_error(r);
    return false;
  }
  cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent);
  g_detached_in_callback.store(false);
  g_detach_pending.store(true);
  get_current(&ctx);
  if (!g_detached_in_callback.load()) {
    g_detach_pending.store(false);
    cuptiEnableCallback(0, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent);
    g_detach_error = "the detach callback did not run";
    return false;
  }
  forget_subscriber();  // gone with CUPTI
  g_attached = false;
  ++g_detaches;
  return true;
}

// ---- writing ------------------------------------------------------------------------------------

bool write_trace(const char* reason) {
  int expected = 1;
  if (!g_state.compare_exchange_strong(expected, 2)) {
    // Another path (signal watcher or atexit) is writing: wait for it so exit() does not cut
    // the file short; never longer than 60 s.
    for (int i = 0; i < 6000 && g_state.load() == 2; ++i) usleep(10'000);
    return g_state.load() == 3;
  }
  const int64_t t0 = mono_ns();
  std::unique_lock<std::mutex> pk(g_pause_mu);
  // A detached (or never attached) CUPTI holds nothing: flushing would only attach it again.
  const bool attached = g_attached;
  if (attached) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  const int64_t t_flushed = mono_ns();
  Trace t;
  Stats st;
  bool paused_at_exit = false;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    merge_callbacks_locked();
    close_attach_locked();
    std::string attaches = "[";
    for (size_t i = 0; i < g_attach_log.size(); ++i) attaches += (i ? "," : "") + g_attach_log[i];
    if (!g_attach_log.empty()) g_trace.metadata_json["goblin_tracer_attaches"] = attaches + "]";
    t = std::move(g_trace);
    st = g_stats;
    if (!g_recording) {  // the pause still open at exit counts too
      paused_at_exit = true;
      st.paused_ns += static_cast<uint64_t>(t0 - g_paused_at);
    }
  }
  const uint64_t attaches = g_attaches, detaches = g_detaches;
  const std::string detach_error = g_detach_error;
  pk.unlock();
  t.pid = static_cast<uint32_t>(getpid());
  std::string comm = read_small("/proc/self/comm");
  while (!comm.empty() && (comm.back() == '\n' || comm.back() == '\0')) comm.pop_back();
  t.process_name = comm;
  std::string cmdline = read_small("/proc/self/cmdline");
  for (auto& c : cmdline)
    if (c == '\0') c = ' ';
  while (!cmdline.empty() && cmdline.back() == ' ') cmdline.pop_back();
  if (cmdline.size() > 1000) cmdline.resize(1000);

  std::vector<ClockSample> samples = g_clock_start;
  t.clock = align_clocks(samples);
  ClockAlignment at_exit = attached ? align_clocks(sample_clocks(5)) : ClockAlignment{};
  for (const auto& a : t.apis) {
    uint64_t key = api_key(a.driver, a.cbid);
    if (t.api_names.count(key)) continue;
    const char* name = nullptr;
    CUpti_CallbackDomain dom = a.driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
    if (cuptiGetCallbackName(dom, a.cbid, &name) == CUPTI_SUCCESS && name) t.api_names[key] = strip_version(name);
  }
  query_devices(t);
  uint32_t cupti_v = 0;
  if (cuptiGetVersion(&cupti_v) == CUPTI_SUCCESS) t.versions["cupti"] = std::to_string(cupti_v);
  t.versions["cuda_built_with"] = std::to_string(CUDA_VERSION);
  t.versions["goblin_tracer"] = kTracerVersion;
  std::string drv = nvml_driver_version();
  if (!drv.empty()) t.versions["nvidia_driver"] = drv;

  TracerRun run;
  run.written_at = reason;
  run.api_mode = g_recorded.api_mode;
  run.kinds = g_recorded.kinds_text;
  run.tune = g_tune;
  run.command = cmdline;
  run.buffers = st.buffers;
  run.records = st.records;
  run.dropped_records = st.dropped;
  run.unknown_records = st.unknown_records;
  run.buffer_callback_ns = st.callback_ns;
  run.recording_pauses = st.pauses;
  run.recording_paused_ns = st.paused_ns;
  run.started_paused = st.started_paused;
  run.paused_at_exit = paused_at_exit;
  run.detach_on_pause = g_detach_on_pause;
  run.resume_call_ns = st.resume_call_ns;
  run.first_resume_call_ns = st.first_resume_call_ns;
  run.pause_call_ns = st.pause_call_ns;
  run.cupti_attaches = attaches;
  run.cupti_detaches = detaches;
  run.detach_error = detach_error;
  run.exit_flush_ns = t_flushed - t0;
  // Overhead CUPTI reported about itself, summed per kind.
  for (const auto& o : t.overheads)
    if (o.end >= o.start) run.cupti_overhead_ns[overhead_kind_name(o.kind)] += o.end - o.start;
  run.clock = t.clock;
  run.drift_at_exit_ns = at_exit.valid && t.clock.valid ? at_exit.offset_ns - t.clock.offset_ns : 0;
  t.metadata_json["goblin_tracer"] = tracer_run_json(run);
  splice_workload_metadata(t, g_dir);

  mkdir(g_dir.c_str(), 0777);
  std::string final_path = g_dir + "/goblin_cupti_" + std::to_string(t.pid) + ".json.gz";
  std::string tmp = g_dir + "/.goblin_cupti_" + std::to_string(t.pid) + ".json.gz.tmp";
  gzFile gz = gzopen(tmp.c_str(), "wb1");
  bool ok = gz != nullptr;
  WriteStats ws;
  if (ok) {
    ws = write_kineto(t, [&](std::string_view s) {
      if (ok && !s.empty() && gzwrite(gz, s.data(), static_cast<unsigned>(s.size())) <= 0) ok = false;
    });
    if (gzclose(gz) != Z_OK) ok = false;
  }
  if (ok) ok = std::rename(tmp.c_str(), final_path.c_str()) == 0;
  if (!ok) std::remove(tmp.c_str());
  if (g_verbose || !ok)
    std::fprintf(
        stderr,
        "goblin-cupti: %s %s (%llu kernels, %llu copies, %llu API calls, %llu ranges, %llu dropped, %.1f ms at %s)\n",
        ok ? "wrote" : "FAILED to write", final_path.c_str(), (unsigned long long)ws.kernels,
        (unsigned long long)ws.copies, (unsigned long long)ws.apis, (unsigned long long)ws.ranges,
        (unsigned long long)st.dropped, double(mono_ns() - t0) / 1e6, reason);
  g_state.store(ok ? 3 : 4);
  return ok;
}

void at_exit() {
  if (getpid() != g_owner) return;  // a forked child (DataLoader worker): not ours to write
  write_trace("exit");
}

void on_fork_child() {
  // The child has no CUPTI worker thread and no watcher: it must never try to flush.
  g_state.store(5);
}

}  // namespace
}  // namespace goblin::tracer

using namespace goblin::tracer;

// Called by the CUDA driver during cuInit when CUDA_INJECTION64_PATH names this library.
GOBLIN_EXPORT int InitializeInjection(void) {
  static std::atomic<bool> once{false};
  if (once.exchange(true)) return 1;
  g_owner = getpid();
  if (const char* d = std::getenv("GOBLIN_CUPTI_DIR"); d && *d) g_dir = d;
  if (const char* v = std::getenv("GOBLIN_CUPTI_VERBOSE"); v && *v == '1') g_verbose = true;
  if (const char* a = std::getenv("GOBLIN_CUPTI_API"); a && std::strcmp(a, "all") == 0) g_recorded.api_mode = "all";
  auto fail = [](const char* what, CUptiResult r) {
    std::fprintf(stderr, "goblin-cupti: %s failed (%s); tracing is off for this process\n", what, cupti_error(r));
    return 1;  // the program runs on untraced
  };
  if (const char* m = std::getenv("GOBLIN_CUPTI_PAUSE"); m && *m) {
    if (std::strcmp(m, "disable") == 0)
      g_detach_on_pause = false;
    else if (std::strcmp(m, "detach") != 0)
      std::fprintf(stderr, "goblin-cupti: GOBLIN_CUPTI_PAUSE=%s unknown (detach or disable); using detach\n", m);
  }
  choose_kinds(std::getenv("GOBLIN_CUPTI_KINDS"), g_recorded);
  const char* p = std::getenv("GOBLIN_CUPTI_START_PAUSED");
  const bool start_paused = p && *p == '1';
  if (start_paused) {
    // Nothing recorded and CUPTI not even attached until goblin_cupti_set_recording(1) (the
    // hook, at its window's start). The clocks are sampled when CUPTI attaches
    // (cuptiGetTimestamp would attach it now).
  } else {
    if (CUptiResult r = attach(); r != CUPTI_SUCCESS) return fail("cuptiActivityRegisterCallbacks", r);
    switch_recorded(true, /*report=*/true);
  }
  if (start_paused) {
    g_recording = false;
    g_paused_at = mono_ns();
    g_stats.started_paused = true;
  }
  g_state.store(1);
  pthread_atfork(nullptr, nullptr, on_fork_child);
  std::atexit(at_exit);
  install_signals(SignalHooks{&g_state, &g_owner, write_trace});
  return 1;
}

// NVTX_INJECTION64_PATH may name this library too (one path for both variables): NVTX calls
// this, and CUPTI's own NVTX handler turns ranges into CUPTI_ACTIVITY_KIND_MARKER records.
GOBLIN_EXPORT int InitializeInjectionNvtx2(void* get_export_table) {
  void* h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (!h) h = dlopen("libcupti.so", RTLD_NOW | RTLD_NOLOAD);
  if (!h) return 0;
  auto fn = reinterpret_cast<int (*)(void*)>(dlsym(h, "InitializeInjectionNvtx2"));
  return fn ? fn(get_export_table) : 0;
}

// Pauses (on == 0) or resumes (on != 0) recording; returns the previous state (1 recording, 0
// paused) or -1 when the tracer is not active in this process. Called by goblin's hook through
// ctypes; safe from any thread.
GOBLIN_EXPORT int goblin_cupti_set_recording(int on) {
  if (g_state.load() != 1 || getpid() != g_owner) return -1;
  std::lock_guard<std::mutex> lk(g_pause_mu);
  const bool was = g_recording;
  if (static_cast<bool>(on) == was) return was ? 1 : 0;
  const int64_t t0 = mono_ns();
  if (!on) {
    switch_recorded(false, false);
    if (g_detach_on_pause && g_attached) detach_locked(/*synchronize_first=*/true);
    g_paused_at = mono_ns();
    std::lock_guard<std::mutex> g(g_mu);
    g_stats.pauses += 1;
    g_stats.pause_call_ns += static_cast<uint64_t>(g_paused_at - t0);
  } else {
    if (!g_attached) {
      if (CUptiResult r = attach(); r != CUPTI_SUCCESS) {
        std::fprintf(stderr, "goblin-cupti: cannot attach CUPTI to resume recording (%s)\n", cupti_error(r));
        return -1;
      }
    }
    switch_recorded(true, /*report=*/g_attaches == 1 && g_stats.pauses == 0);
    const int64_t t1 = mono_ns();
    std::lock_guard<std::mutex> g(g_mu);
    g_stats.paused_ns += static_cast<uint64_t>(t1 - g_paused_at);
    if (g_stats.resume_call_ns == 0) g_stats.first_resume_call_ns = static_cast<uint64_t>(t1 - t0);
    g_stats.resume_call_ns += static_cast<uint64_t>(t1 - t0);
  }
  g_recording = static_cast<bool>(on);
  return was ? 1 : 0;
}

// Detaches CUPTI while recording is paused (a no-op returning 0 when it is not attached):
// everything recorded is flushed and kept, and the launches that follow pay no tracer cost.
// synchronize != 0 waits for the context's work first; goblin's hook passes 0 once a CUDA event
// after the window's last step has completed, so the job never drains its queue for this.
// Returns 1 when detached, 0 when there was nothing to detach, -1 when the tracer is not active
// in this process, is recording, or the detach failed (then CUPTI stays attached, paused).
GOBLIN_EXPORT int goblin_cupti_detach(int synchronize) {
  if (g_state.load() != 1 || getpid() != g_owner) return -1;
  std::lock_guard<std::mutex> lk(g_pause_mu);
  if (g_recording) return -1;
  if (!g_attached) return 0;
  const int64_t t0 = mono_ns();
  const bool ok = detach_locked(synchronize != 0);
  std::lock_guard<std::mutex> g(g_mu);
  g_stats.pause_call_ns += static_cast<uint64_t>(mono_ns() - t0);
  return ok ? 1 : -1;
}

// Takes a batch of goblin's operator observer (workloads/goblin_hook/goblin_ops_abi.h: ops and
// nn.Module ranges of the recorded window, CLOCK_MONOTONIC times) into the trace, times converted
// to CUPTI's clock by a fresh bracket (or the last attach's, when CUPTI is detached). Called once
// per window by goblin's hook, after the window. Returns the records kept, -1 when the tracer is
// not active in this process or the batch is of another ABI version.
GOBLIN_EXPORT int64_t goblin_cupti_add_ops(const void* batch) {
  if (g_state.load() != 1 || getpid() != g_owner || !batch) return -1;
  if (static_cast<const goblin_ops_batch*>(batch)->clock_id != CLOCK_MONOTONIC) return -1;
  ClockAlignment a;
  {
    std::lock_guard<std::mutex> lk(g_pause_mu);
    if (g_attached) g_mono_align = align_clocks(sample_mono_clocks(8));
    a = g_mono_align;
  }
  if (!a.valid) return -1;
  std::lock_guard<std::mutex> lk(g_mu);
  return append_observer_batch(
      g_trace, batch, [](const std::string& s) { return intern_locked(s); },
      [&](uint64_t mono) { return static_cast<uint64_t>(static_cast<int64_t>(mono) - a.offset_ns); });
}

// Writes the trace now (flushing CUPTI's buffers first); later exits write nothing more. For a
// process about to end without running atexit handlers: goblin's hook ends a --script run with
// os._exit() once its window is measured. Returns 1 when written, 0 when writing failed, -1 when
// the tracer is not active in this process.
GOBLIN_EXPORT int goblin_cupti_write_now(void) {
  if (g_state.load() < 1 || getpid() != g_owner) return -1;
  return write_trace("hook exit") ? 1 : 0;
}

// Chooses what the next attach records (issue 30's cost study: one process, windows of several
// configurations): `kinds` as GOBLIN_CUPTI_KINDS, `api` "launch" or "all" as GOBLIN_CUPTI_API
// (null: unchanged). Only while paused and detached (the hook calls it between windows, after the
// detach). Returns 0, or -1 when the tracer is not active in this process, is recording or
// attached.
GOBLIN_EXPORT int goblin_cupti_configure(const char* kinds, const char* api) {
  if (g_state.load() != 1 || getpid() != g_owner) return -1;
  std::lock_guard<std::mutex> lk(g_pause_mu);
  if (g_recording || g_attached) return -1;
  if (kinds) choose_kinds(kinds, g_recorded);
  if (api) g_recorded.api_mode = std::strcmp(api, "all") == 0 ? "all" : "launch";
  return 0;
}
