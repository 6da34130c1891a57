#include "op_attribution.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <unordered_map>

#include "goblin_ops_abi.h"
#include "trace_format.h"

namespace goblin::tracer {

std::string demangle_kernel_name(const std::string& mangled) {
  // Kineto's kMaxSymbolSize: longer names stay mangled there, so they do here (same table).
  constexpr size_t kMaxSymbolSize = 1024;
  if (mangled.size() > kMaxSymbolSize) return mangled;
  int status = -1;
  std::unique_ptr<char, void (*)(void*)> out{abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free};
  return status == 0 && out ? std::string(out.get()) : mangled;
}

namespace {

// The integer right after `key` in `s` (e.g. ", seq = " → 12), or -1.
int64_t int_after(std::string_view s, std::string_view key) {
  size_t p = s.find(key);
  if (p == std::string_view::npos) return -1;
  p += key.size();
  int64_t v = 0;
  bool any = false;
  while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
    v = v * 10 + (s[p++] - '0');
    any = true;
  }
  return any ? v : -1;
}

// The balanced [...] right after `key`, or empty.
std::string_view array_after(std::string_view s, std::string_view key) {
  size_t p = s.find(key);
  if (p == std::string_view::npos) return {};
  p += key.size();
  if (p >= s.size() || s[p] != '[') return {};
  int depth = 0;
  for (size_t i = p; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '[') ++depth;
    if (c == ']' && --depth == 0) return s.substr(p, i - p + 1);
    // Shapes are integers: anything else (a string list) is not a JSON array we pass on.
    if (!(c == '[' || c == ']' || c == ',' || c == ' ' || c == '-' || (c >= '0' && c <= '9'))) return {};
  }
  return {};
}

}  // namespace

NvtxOp parse_nvtx_op(std::string_view text) {
  NvtxOp o;
  static constexpr std::string_view kSeq = ", seq = ", kOpId = ", op_id = ", kSizes = ", sizes = ",
                                    kInputs = ", input_op_ids = ";
  size_t cut = text.size();
  for (std::string_view k : {kSeq, kOpId, kSizes, kInputs}) cut = std::min(cut, text.find(k));
  o.name = text.substr(0, cut);
  o.is_op = cut < text.size() || text.starts_with("aten::");
  if (!o.is_op || o.name.empty()) {
    o.is_op = false;
    o.name = text;
    return o;
  }
  std::string_view rest = text.substr(cut);
  o.seq = int_after(rest, kSeq);
  o.op_id = int_after(rest, kOpId);
  o.sizes = array_after(rest, kSizes);
  return o;
}

std::vector<int32_t> innermost_ranges(const std::vector<OpRange>& ranges,
                                      const std::vector<std::pair<uint32_t, uint64_t>>& queries) {
  std::vector<int32_t> out(queries.size(), -1);
  // Both sorted by (tid, time); ranges that start together: the outer (longer) first.
  std::vector<uint32_t> ri(ranges.size()), qi(queries.size());
  std::iota(ri.begin(), ri.end(), 0u);
  std::iota(qi.begin(), qi.end(), 0u);
  std::sort(ri.begin(), ri.end(), [&](uint32_t a, uint32_t b) {
    const OpRange &x = ranges[a], &y = ranges[b];
    if (x.tid != y.tid) return x.tid < y.tid;
    if (x.start != y.start) return x.start < y.start;
    return x.end > y.end;
  });
  std::sort(qi.begin(), qi.end(), [&](uint32_t a, uint32_t b) { return queries[a] < queries[b]; });
  std::vector<uint32_t> stack;
  size_t j = 0;
  uint32_t tid = 0;
  bool have_tid = false;
  for (uint32_t q : qi) {
    const auto [qt, ts] = queries[q];
    if (!have_tid || qt != tid) {  // next thread: start over
      tid = qt;
      have_tid = true;
      stack.clear();
      while (j < ri.size() && ranges[ri[j]].tid < qt) ++j;
    }
    while (j < ri.size() && ranges[ri[j]].tid == qt && ranges[ri[j]].start <= ts) {
      const OpRange& r = ranges[ri[j]];
      while (!stack.empty() && ranges[stack.back()].end <= r.start) stack.pop_back();
      stack.push_back(ri[j]);
      ++j;
    }
    while (!stack.empty() && ranges[stack.back()].end <= ts) stack.pop_back();
    if (!stack.empty()) out[q] = static_cast<int32_t>(stack.back());
  }
  return out;
}

std::vector<uint32_t> resolve_op_threads(const std::vector<OpThread>& threads, const std::vector<uint32_t>& api_tids) {
  std::vector<uint32_t> sorted = api_tids;
  std::sort(sorted.begin(), sorted.end());
  auto has = [&](uint32_t v) { return std::binary_search(sorted.begin(), sorted.end(), v); };
  std::vector<uint32_t> out;
  out.reserve(threads.size());
  for (const OpThread& t : threads) out.push_back(has(t.pthread_lo) && !has(t.tid) ? t.pthread_lo : t.tid);
  return out;
}

InputsJson inputs_json(const int64_t* dims, uint64_t n_dims, uint64_t off, const char* const* names, uint64_t n_names) {
  if (off >= n_dims || dims[off] < 0) return {};
  const int64_t n = dims[off++];
  InputsJson j{"[", "["};
  for (int64_t i = 0; i < n; ++i) {
    if (off + 1 >= n_dims) return {};
    const int64_t rank = dims[off++];
    const int64_t type = dims[off++];
    j.dims += i ? ", [" : "[";
    for (int64_t r = 0; r < rank; ++r) {
      if (off >= n_dims) return {};
      if (r) j.dims += ", ";
      j.dims += std::to_string(dims[off++]);
    }
    j.dims += ']';
    if (i) j.types += ", ";
    append_json_string(j.types, type >= 0 && static_cast<uint64_t>(type) < n_names && names[type] ? names[type] : "");
  }
  j.dims += ']';
  j.types += ']';
  return j;
}

int64_t append_observer_batch(Trace& t, const void* batch_ptr,
                              const std::function<uint32_t(const std::string&)>& intern,
                              const std::function<uint64_t(uint64_t)>& to_cupti) {
  const auto* b = static_cast<const goblin_ops_batch*>(batch_ptr);
  if (!b || b->abi_version != GOBLIN_OPS_ABI_VERSION) return -1;
  const auto thread_base = static_cast<uint32_t>(t.op_threads.size());
  for (uint64_t i = 0; i < b->n_threads; ++i)
    t.op_threads.push_back({static_cast<uint32_t>(b->threads[i].pthread_self), b->threads[i].tid});
  std::vector<uint32_t> name_ids(b->n_names, kNoId);  // interned on first use
  std::unordered_map<std::string, uint32_t> dims_ids;
  int64_t kept = 0;
  for (uint64_t i = 0; i < b->n_ops; ++i) {
    const goblin_op_record& r = b->ops[i];
    if (r.name >= b->n_names || r.thread >= b->n_threads) continue;
    if (name_ids[r.name] == kNoId) name_ids[r.name] = intern(b->names[r.name] ? b->names[r.name] : "?");
    OpRec o;
    o.start = to_cupti(r.start_ns);
    o.end = r.end_ns ? to_cupti(r.end_ns) : 0;
    o.seq = r.seq;
    o.name = name_ids[r.name];
    o.thread = thread_base + r.thread;
    o.module = r.kind == GOBLIN_OP_KIND_MODULE;
    if (r.dims_off != UINT32_MAX) {
      InputsJson in = inputs_json(b->dims, b->n_dims, r.dims_off, b->names, b->n_names);
      if (!in.dims.empty()) {  // interned: a training step repeats the same few hundred
        auto [it, inserted] = dims_ids.emplace(std::move(in.dims), kNoId);
        if (inserted) it->second = intern(it->first);
        o.dims = it->second;
        auto [jt, tinserted] = dims_ids.emplace(std::move(in.types), kNoId);
        if (tinserted) jt->second = intern(jt->first);
        o.types = jt->second;
      }
    }
    t.ops.push_back(o);
    ++kept;
  }
  return kept;
}

}  // namespace goblin::tracer
