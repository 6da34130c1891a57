// goblin's operator observer: a PyTorch RecordFunction callback of goblin's own, built by the hook
// against the job's own torch (torch.utils.cpp_extension, goblin_ops.py) and installed for the
// recorded window only. Each ATen op, autograd node and record_function range becomes one
// fixed-size record (goblin_ops_abi.h) in a buffer of the thread that ran it: no lock, no string
// formatting, no NVTX call, no CUPTI record per op; op names are interned once (by pointer,
// checked by a string compare, since a name's storage may be reused). After the window the hook
// hands every record to goblin's CUPTI tracer at once (drain → goblin_cupti_add_ops), which
// writes them as Kineto cpu_op events and links kernels to them as it does for NVTX ranges.
//
// Why not PyTorch's RecordFunction → NVTX observer (emit_nvtx): ~2 µs per op (sizes formatted
// into a string, two NVTX calls, two CUPTI marker records), measured in bench/results/tracer.
#include <ATen/core/Tensor.h>
#include <ATen/record_function.h>
#include <pthread.h>
#include <pybind11/pybind11.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "goblin_ops_abi.h"

namespace {

constexpr size_t kChunk = 16384;  // records per chunk (640 KiB): chunks are reused after a drain
const void* const kModuleKey = reinterpret_cast<const void*>(1);

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// Interned names: one global table (mutex, taken on a thread's first sight of a name only).
std::mutex g_names_mu;
std::deque<std::string> g_names;  // never shrinks: c_str() pointers stay valid
std::unordered_map<std::string, uint32_t> g_name_ids;

std::pair<uint32_t, const char*> intern_global(const char* s) {
  std::lock_guard<std::mutex> lk(g_names_mu);
  auto [it, inserted] = g_name_ids.emplace(s, static_cast<uint32_t>(g_names.size()));
  if (inserted) g_names.emplace_back(s);
  return {it->second, g_names[it->second].c_str()};
}

struct ThreadBuf {
  std::vector<std::unique_ptr<goblin_op_record[]>> chunks;
  uint64_t n = 0;
  std::vector<int64_t> dims;
  std::vector<std::pair<const void*, uint64_t>> stack;  // open records: (RecordFunction*, index)
  std::unordered_map<const char*, std::pair<uint32_t, const char*>> by_ptr;
  goblin_op_thread ids{};
  uint32_t index = 0;
  // Input types interned once per thread: by ScalarType for tensors, and the other kinds'
  // names ("Scalar", "ScalarList", "TensorList", "").
  std::array<uint32_t, 64> dtype_ids;
  std::array<uint32_t, 4> kind_ids{UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
  ThreadBuf() { dtype_ids.fill(UINT32_MAX); }
  std::atomic<int> busy{0};

  goblin_op_record& at(uint64_t i) { return chunks[i / kChunk][i % kChunk]; }
  goblin_op_record& append() {
    if (n == chunks.size() * kChunk) chunks.emplace_back(new goblin_op_record[kChunk]);
    return at(n++);
  }
  uint32_t name(const char* s) {
    if (!s) s = "?";
    auto it = by_ptr.find(s);
    if (it != by_ptr.end() && std::strcmp(it->second.second, s) == 0) return it->second.first;
    auto v = intern_global(s);
    by_ptr[s] = v;
    return v.first;
  }
};

std::mutex g_bufs_mu;
std::vector<ThreadBuf*> g_bufs;  // never freed: a thread that ended may still hold records
thread_local ThreadBuf* t_buf = nullptr;

ThreadBuf* tbuf() {
  if (t_buf) return t_buf;
  auto* b = new ThreadBuf;
  b->ids.pthread_self = static_cast<uint64_t>(pthread_self());
  b->ids.tid = static_cast<uint32_t>(syscall(SYS_gettid));
  std::lock_guard<std::mutex> lk(g_bufs_mu);
  b->index = static_cast<uint32_t>(g_bufs.size());
  g_bufs.push_back(b);
  t_buf = b;
  return b;
}

std::atomic<bool> g_on{false};
bool g_shapes = false;
at::CallbackHandle g_handle = 0;
std::atomic<uint64_t> g_errors{0}, g_skipped{0};
// Records kept per thread at most (40 bytes each, plus shapes): goblin trace records a whole run,
// and a run of days must not grow without bound. Ops past it are counted, not recorded.
uint64_t g_max_per_thread = 8'000'000;

struct Busy {
  ThreadBuf* b;
  explicit Busy(ThreadBuf* x) : b(x) { b->busy.store(1, std::memory_order_relaxed); }
  ~Busy() { b->busy.store(0, std::memory_order_release); }
};

// An input's type as torch.profiler's "Input type" writes it: the tensor's dtype name (caffe2's
// TypeMeta: "float", "c10::BFloat16", "long int"), "Scalar", "ScalarList" (int, float and bool
// lists), "TensorList", or "" for anything else (compared with torch.profiler's trace of the same
// workload, bench/results/tracer). Interned once per kind and thread: an input costs an array lookup.
uint32_t type_id(ThreadBuf* b, const c10::IValue& v) {
  if (v.isTensor() && v.toTensor().defined()) {
    const at::Tensor& t = v.toTensor();
    const auto k = static_cast<size_t>(t.scalar_type());
    if (k < b->dtype_ids.size() && b->dtype_ids[k] != UINT32_MAX) return b->dtype_ids[k];
    const auto nm = t.dtype().name();  // c10::string_view (std::string_view in newer torch)
    const std::string name(nm.data(), nm.size());
    const uint32_t id = intern_global(name.c_str()).first;
    if (k < b->dtype_ids.size()) b->dtype_ids[k] = id;
    return id;
  }
  static const char* const kKinds[] = {"Scalar", "ScalarList", "TensorList", ""};
  const size_t k = v.isScalar()                                            ? 0
                   : (v.isIntList() || v.isDoubleList() || v.isBoolList()) ? 1
                   : v.isTensorList()                                      ? 2
                                                                           : 3;
  if (b->kind_ids[k] == UINT32_MAX) b->kind_ids[k] = intern_global(kKinds[k]).first;
  return b->kind_ids[k];
}
uint32_t record_dims(ThreadBuf* b, const at::RecordFunction& fn) {
  const auto in = fn.inputs();
  const auto off = static_cast<uint32_t>(b->dims.size());
  b->dims.push_back(static_cast<int64_t>(in.size()));
  for (const c10::IValue& v : in) {
    const bool sized = v.isTensor() && v.toTensor().defined() && !v.toTensor().is_nested();  // nested: no sizes()
    if (!sized) {
      b->dims.push_back(-1);
      b->dims.push_back(type_id(b, v));
      continue;
    }
    const at::Tensor& t = v.toTensor();
    const auto s = t.sizes();
    b->dims.push_back(static_cast<int64_t>(s.size()));
    b->dims.push_back(type_id(b, v));
    for (int64_t d : s) b->dims.push_back(d);
  }
  return off;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (!g_on.load(std::memory_order_relaxed)) return nullptr;
  const uint64_t t = now_ns();
  try {
    ThreadBuf* b = tbuf();
    if (b->n >= g_max_per_thread) {
      g_skipped.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    Busy busy(b);
    const uint64_t i = b->n;
    goblin_op_record& r = b->append();
    r.start_ns = t;
    r.end_ns = 0;
    r.seq = fn.seqNr();
    r.name = b->name(fn.name());
    r.thread = b->index;
    r.kind = GOBLIN_OP_KIND_OP;
    r.dims_off = UINT32_MAX;
    b->stack.emplace_back(&fn, i);
    if (g_shapes && fn.needsInputs()) {
      const size_t mark = b->dims.size();
      try {
        b->at(i).dims_off = record_dims(b, fn);
      } catch (...) {  // the op is kept, without shapes
        b->dims.resize(mark);
        g_errors.fetch_add(1, std::memory_order_relaxed);
      }
    }
  } catch (...) {
    g_errors.fetch_add(1, std::memory_order_relaxed);
  }
  return nullptr;
}

// Closes the innermost open record of `key` on this thread (ranges nest per thread; an async
// range that ends on another thread is not found here and stays unclosed: the tracer drops it).
void close(ThreadBuf* b, const void* key, uint64_t t) {
  auto& s = b->stack;
  for (size_t k = s.size(), looked = 0; k-- > 0 && looked < 16; ++looked) {
    if (s[k].first != key) continue;
    b->at(s[k].second).end_ns = t;
    s.resize(k);
    return;
  }
}

void on_end(const at::RecordFunction& fn, at::ObserverContext*) {
  const uint64_t t = now_ns();
  ThreadBuf* b = t_buf;
  if (!b || b->stack.empty()) return;
  Busy busy(b);
  close(b, &fn, t);
}

void start(bool shapes, int64_t max_per_thread) {
  g_shapes = shapes;
  if (max_per_thread > 0) g_max_per_thread = static_cast<uint64_t>(max_per_thread);
  if (g_handle == 0) {
    g_handle = at::addGlobalCallback(at::RecordFunctionCallback(on_start, on_end)
                                         .needsInputs(shapes)
                                         .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
                                                  at::RecordScope::USER_SCOPE, at::RecordScope::TORCHSCRIPT_FUNCTION}));
  }
  g_on.store(true);
}

// Stops recording new ops. Ranges open now (the Optimizer.step the hook runs inside) still close:
// a RecordFunction keeps the callbacks it started with, so their ends arrive after removal.
void stop() {
  g_on.store(false);
  if (g_handle != 0) {
    at::removeCallback(g_handle);
    g_handle = 0;
  }
}

int64_t intern(const std::string& s) { return tbuf()->name(s.c_str()); }

void module_push(int64_t name) {
  if (!g_on.load(std::memory_order_relaxed)) return;
  const uint64_t t = now_ns();
  ThreadBuf* b = tbuf();
  Busy busy(b);
  const uint64_t i = b->n;
  goblin_op_record& r = b->append();
  r = goblin_op_record{t, 0, -1, static_cast<uint32_t>(name), b->index, UINT32_MAX, GOBLIN_OP_KIND_MODULE};
  b->stack.emplace_back(kModuleKey, i);
}

void module_pop() {
  const uint64_t t = now_ns();
  ThreadBuf* b = t_buf;
  if (!b || b->stack.empty()) return;
  Busy busy(b);
  close(b, kModuleKey, t);
}

// Hands every record to `sink` (goblin_cupti_add_ops' address) and empties the buffers; returns
// what the sink returned, or the record count when sink is 0 (a dry run, for tests).
int64_t drain(uintptr_t sink) {
  std::vector<goblin_op_record> ops;
  std::vector<int64_t> dims;
  std::vector<goblin_op_thread> threads;
  {
    std::lock_guard<std::mutex> lk(g_bufs_mu);
    for (ThreadBuf* b : g_bufs) {
      for (int spin = 0; b->busy.load(std::memory_order_acquire) && spin < 1000000; ++spin) {
      }
      const auto base = static_cast<uint32_t>(dims.size());
      for (uint64_t i = 0; i < b->n; ++i) {
        goblin_op_record r = b->at(i);
        if (r.dims_off != UINT32_MAX) r.dims_off += base;
        ops.push_back(r);
      }
      dims.insert(dims.end(), b->dims.begin(), b->dims.end());
      threads.push_back(b->ids);
      b->n = 0;
      b->dims.clear();
      b->stack.clear();
    }
  }
  std::vector<const char*> names;
  {
    std::lock_guard<std::mutex> lk(g_names_mu);
    for (const std::string& s : g_names) names.push_back(s.c_str());
  }
  if (sink == 0) return static_cast<int64_t>(ops.size());
  goblin_ops_batch batch{GOBLIN_OPS_ABI_VERSION, CLOCK_MONOTONIC, ops.data(),     ops.size(),  names.data(),
                         names.size(),           threads.data(),  threads.size(), dims.data(), dims.size()};
  return reinterpret_cast<goblin_cupti_add_ops_fn>(sink)(&batch);
}

pybind11::dict stats() {
  pybind11::dict d;
  uint64_t n = 0, open = 0;
  size_t threads = 0;
  {
    std::lock_guard<std::mutex> lk(g_bufs_mu);
    threads = g_bufs.size();
    for (ThreadBuf* b : g_bufs) {
      n += b->n;
      open += b->stack.size();
    }
  }
  d["records"] = n;
  d["open"] = open;
  d["threads"] = threads;
  d["errors"] = g_errors.load();
  d["skipped"] = g_skipped.load();
  {
    std::lock_guard<std::mutex> lk(g_names_mu);
    d["names"] = g_names.size();
  }
  return d;
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("start", &start, "record ops from now on (shapes: input sizes too; at most max_per_thread records a thread)");
  m.def("stop", &stop, "record no new ops; open ranges still close");
  m.def("drain", &drain, "hand every record to the tracer's goblin_cupti_add_ops (its address)");
  m.def("intern", &intern);
  m.def("module_push", &module_push);
  m.def("module_pop", &module_pop);
  m.def("stats", &stats);
  m.attr("abi_version") = GOBLIN_OPS_ABI_VERSION;
}
