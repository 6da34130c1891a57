#include "analysis/opportunities.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <regex>
#include <tuple>
#include <unordered_map>

#include "core/data.h"
#include "core/text.h"

namespace goblin::analysis {

namespace {
bool contains(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }
}  // namespace

const char* priority_name(Priority p) {
  switch (p) {
    case Priority::P1:
      return "P1";
    case Priority::P2:
      return "P2";
    case Priority::P3:
      return "P3";
    case Priority::P4:
      return "P4";
    case Priority::P5:
      return "P5";
  }
  return "P5";
}

hw::Vendor detect_vendor(const Timeline& tl) { return hw::vendor_of_timeline(tl).vendor; }

// ---- loading -------------------------------------------------------------------------------

Result<OverlapHeuristics> OverlapHeuristics::load() {
  const char* rel = "overlap_heuristics.yaml";
  ASSIGN_OR_RETURN(auto text, load_data_file(rel));
  OverlapHeuristics h;
  try {
    YAML::Node y = YAML::Load(text);
    auto num = [&](const YAML::Node& n, double& dst) {
      if (n) dst = n.as<double>();
    };
    num(y["headroom_exclusive_ratio"], h.headroom_exclusive_ratio);
    num(y["headroom_min_exposed_us"], h.headroom_min_exposed_us);
    num(y["low_roi_hidden_ratio"], h.low_roi_hidden_ratio);
    if (auto d = y["dependency"]) {
      num(d["dep_min_us"], h.dep_min_us);
      num(d["dep_max_us"], h.dep_max_us);
      num(d["dep_frac"], h.dep_frac);
      num(d["high_fraction"], h.dep_high_fraction);
      num(d["medium_fraction"], h.dep_medium_fraction);
    }
    if (auto p = y["priority"]) {
      num(p["negligible_share_pct"], h.negligible_share_pct);
      num(p["p1_share_pct"], h.p1_share_pct);
      num(p["compute_p2_share_pct"], h.compute_p2_share_pct);
    }
    for (auto it : y["weights"]) h.weights[it.first.as<std::string>()] = it.second.as<double>();
    for (auto it : y["classes"]) h.classes[it.first.as<std::string>()] = it.second.as<std::string>();
  } catch (const std::exception& e) {
    return make_error(ErrorKind::Malformed, std::string("bad overlap heuristics: ") + e.what(), data_file_origin(rel));
  }
  if (h.weights.empty())
    return make_error(ErrorKind::Malformed, "overlap heuristics define no weights", data_file_origin(rel));
  return h;
}

Result<std::vector<FusePattern>> load_fusion_patterns() {
  const char* rel = "fusion_patterns.yaml";
  ASSIGN_OR_RETURN(auto text, load_data_file(rel));
  std::vector<FusePattern> out;
  try {
    YAML::Node y = YAML::Load(text);
    for (const auto& n : y["patterns"]) {
      FusePattern p;
      p.id = n["id"].as<std::string>();
      p.detector = n["detector"].as<std::string>();
      p.title = n["title"].as<std::string>(p.id);
      if (auto c = n["candidate"]) {
        p.candidate_cuda = c["cuda"].as<std::string>("");
        p.candidate_rocm = c["rocm"].as<std::string>("");
      }
      p.rationale = n["rationale"].as<std::string>("");
      p.citation = n["citation"].as<std::string>("");
      if (p.rationale.empty() || p.citation.empty())
        return make_error(ErrorKind::Malformed, "fusion pattern '" + p.id + "' lacks a rationale or citation",
                          data_file_origin(rel));
      if (auto pr = n["params"]) {
        p.max_kernel_us = pr["max_kernel_us"].as<double>(p.max_kernel_us);
        p.max_gap_us = pr["max_gap_us"].as<double>(p.max_gap_us);
        p.min_run = pr["min_run"].as<int>(p.min_run);
        p.min_kernels = pr["min_kernels"].as<int>(p.min_kernels);
        if (pr["categories"])
          for (const auto& c : pr["categories"]) p.categories.push_back(c.as<std::string>());
        p.regex = pr["regex"].as<std::string>("");
        p.cpu_op_regex = pr["cpu_op_regex"].as<std::string>("");
        p.comm_regex = pr["comm_regex"].as<std::string>("");
        p.scope_regex = pr["scope_regex"].as<std::string>("");
        p.fused_regex = pr["fused_regex"].as<std::string>("");
        p.mask_regex = pr["mask_regex"].as<std::string>("");
      }
      if (auto c = n["confidence"]) {
        p.high_min = c["high_min_occurrences"].as<int>(p.high_min);
        p.medium_min = c["medium_min_occurrences"].as<int>(p.medium_min);
      }
      static const char* kDetectors[] = {"elementwise_run", "norm_after_comm", "copy_cast_chain", "optimizer_loop",
                                         "softmax_mask_chain"};
      if (std::none_of(std::begin(kDetectors), std::end(kDetectors), [&](const char* d) { return p.detector == d; }))
        return make_error(ErrorKind::Malformed,
                          "fusion pattern '" + p.id + "' names unknown detector '" + p.detector + "'",
                          data_file_origin(rel));
      // Validate regexes now so a bad data file is a clear error, not a crash later.
      for (const std::string* r :
           {&p.regex, &p.cpu_op_regex, &p.comm_regex, &p.scope_regex, &p.fused_regex, &p.mask_regex})
        if (!r->empty()) std::regex test(*r, std::regex::icase);
      out.push_back(std::move(p));
    }
  } catch (const std::exception& e) {
    return make_error(ErrorKind::Malformed, std::string("bad fusion patterns: ") + e.what(), data_file_origin(rel));
  }
  return out;
}

// ---- shared helpers ------------------------------------------------------------------------

namespace {

// Op indices per track (device, stream), in track order, each in start order (the table's
// order, Timeline::finish). A row with no track (a timeline built by hand, not finished) goes
// by its own (device, stream).
std::vector<std::vector<uint32_t>> stream_sequences(const GpuOpTable& ops) {
  std::map<std::tuple<int32_t, int32_t, int64_t>, std::vector<uint32_t>> m;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.dur_ns[i] < 0) continue;
    const bool tracked = ops.track[i] != kNone;
    m[{ops.track[i], tracked ? 0 : ops.device[i], tracked ? 0 : ops.stream[i]}].push_back(static_cast<uint32_t>(i));
  }
  std::vector<std::vector<uint32_t>> out;
  out.reserve(m.size());
  for (auto& [k, v] : m) out.push_back(std::move(v));
  return out;
}

std::string short_name(std::string_view s, size_t n = 80) {
  if (s.size() <= n) return std::string(s);
  return std::string(s.substr(0, n - 3)) + "...";
}

std::string recommendation(const std::string& cls, const KernelTableRow& r, hw::Vendor v, const std::string& verdict,
                           const Taxonomy& tax, std::string* next_step) {
  bool amd = v == hw::Vendor::Amd;
  if (cls == "comm") {
    *next_step = "overlap";
    return std::string(
               "overlap the collective with compute: issue it asynchronously on its own stream "
               "(DDP bucketing / FSDP prefetch, async_op=True) and schedule independent work behind it") +
           (amd ? "; on ROCm check RCCL channel/algorithm settings and that the collective runs on a dedicated HIP "
                  "stream"
                : "; check NCCL algorithm/protocol and SM budget (NCCL_MAX_NCHANNELS) if it slows compute");
  }
  if (r.category == "memcpy") {
    *next_step = "overlap";
    return std::string(
               "move the copy off the critical path: pinned host memory + non_blocking=True on a side stream, "
               "prefetch the next batch; remove implicit syncs (.item(), .cpu())") +
           (amd ? " (hipMemcpyAsync from pinned memory)" : "");
  }
  if (r.category == "memset") {
    *next_step = "fusion";
    return "avoid the fill: torch.empty instead of zeros where overwritten, zero_grad(set_to_none=True)";
  }
  if (cls == "elementwise") {
    *next_step = "fusion";
    return "fuse with its neighbours (torch.compile, or a fused op for the pattern); see fuse_opportunities.json";
  }
  if (cls == "compute") {
    const bool vendor_lib = tax.is_library_family(r.family);  // taxonomy.yaml § library_families
    if (r.category == "attention" && !vendor_lib) {
      *next_step = "kernel_swap";
      return amd ? "swap the eager attention for a fused kernel: F.scaled_dot_product_attention (CK/AOTriton flash) "
                   "or AITER flash attention"
                 : "swap the eager attention for a fused kernel: F.scaled_dot_product_attention (FlashAttention "
                   "backend)";
    }
    if (vendor_lib) {
      *next_step = "library_tuning";
      return amd ? "tune the library kernel: PyTorch TunableOp (PYTORCH_TUNABLEOP_ENABLED=1) / hipBLASLt offline "
                   "tuning, "
                   "check dtype (bf16/fp8) and shapes (multiples of 64/128)"
                 : "tune the library kernel: cuBLASLt heuristics / TF32 or bf16, shapes multiple of 64/128, "
                   "torch.backends.cuda.matmul settings";
    }
    *next_step = "kernel_swap";
    return "a generic kernel carries this compute: route it to a vendor library or compiled kernel "
           "(torch.compile max-autotune, cuBLAS/hipBLASLt, FlashAttention)";
  }
  *next_step = verdict.rfind("investigate", 0) == 0 ? "overlap" : "none";
  return "inspect the launching code: exposed time with no other stream busy";
}

}  // namespace

std::vector<int64_t> scopes_from_attribution(const LaunchAttribution& la) {
  std::vector<int64_t> s(la.cpu_op.size(), -1);
  for (size_t i = 0; i < s.size(); ++i) {
    if (la.python[i] != kNoStr)
      s[i] = (int64_t{1} << 40) + la.python[i];
    else if (la.cpu_op[i] >= 0)
      s[i] = la.cpu_op[i];
  }
  return s;
}

std::vector<OverlapRow> build_overlap_table(const Timeline& tl, const KernelTableResult& kt,
                                            const std::vector<int64_t>& scope, hw::Vendor vendor,
                                            const OverlapHeuristics& h, const Taxonomy& tax) {
  const GpuOpTable& ops = tl.gpu_ops;
  std::vector<int64_t> risky(kt.rows.size(), 0);
  const auto sequences = stream_sequences(ops);
  // On a trace with one stream nothing can overlap anything, so "exposed" says nothing (issue #34:
  // "exposed compute" on every GEMM of a single-stream trace was noise): the verdicts say so.
  const bool one_stream = sequences.size() <= 1;
  for (const auto& seq : sequences) {
    for (size_t k = 0; k < seq.size(); ++k) {
      uint32_t i = seq[k];
      if (kt.op_row[i] < 0 || scope[i] < 0) continue;
      double dur_us = ops.dur_ns[i] / 1000.0;
      double thr_ns = 1000.0 * std::max(h.dep_min_us, std::min(h.dep_max_us, h.dep_frac * dur_us));
      bool r = false;
      if (k > 0) {
        uint32_t p = seq[k - 1];
        if (scope[p] == scope[i] && ops.start_ns[i] - ops.end_ns(p) <= thr_ns) r = true;
      }
      if (!r && k + 1 < seq.size()) {
        uint32_t n = seq[k + 1];
        if (scope[n] == scope[i] && ops.start_ns[n] - ops.end_ns(i) <= thr_ns) r = true;
      }
      if (r) ++risky[kt.op_row[i]];
    }
  }
  std::vector<OverlapRow> out;
  for (size_t ri = 0; ri < kt.rows.size(); ++ri) {
    const KernelTableRow& k = kt.rows[ri];
    OverlapRow o;
    o.kernel = k.name;
    o.category = k.category;
    o.family = k.family;
    auto cit = h.classes.find(k.category);
    o.weight_class = cit == h.classes.end() ? "other" : cit->second;
    double w = h.weights.count(o.weight_class) ? h.weights.at(o.weight_class) : 0.8;
    o.total_ns = k.total_ns;
    o.exposed_ns = k.exposed_ns;
    o.hidden_ns = k.hidden_ns;
    o.launches = k.launches;
    o.share_pct = k.share_pct;
    double excl = k.total_ns > 0 ? static_cast<double>(k.exposed_ns) / k.total_ns : 0;
    double hid = k.total_ns > 0 ? static_cast<double>(k.hidden_ns) / k.total_ns : 0;
    o.exclusive_pct = 100 * excl;
    o.hidden_pct = 100 * hid;
    o.score = k.exposed_ns / 1000.0 * w;
    o.headroom = excl >= h.headroom_exclusive_ratio && k.exposed_ns >= h.headroom_min_exposed_us * 1000;
    o.low_roi = (o.weight_class == "elementwise" || o.weight_class == "mem") && hid >= h.low_roi_hidden_ratio;
    o.dependency_risky_fraction = k.launches ? static_cast<double>(risky[ri]) / k.launches : 0;
    o.dependency_risk = o.dependency_risky_fraction >= h.dep_high_fraction     ? "high"
                        : o.dependency_risky_fraction >= h.dep_medium_fraction ? "medium"
                                                                               : "low";
    const std::string& c = o.weight_class;
    if (k.share_pct < h.negligible_share_pct) {
      o.priority = Priority::P5;
      o.verdict = fmt::format("negligible (<{}% of GPU-op time)", static_cast<int>(h.negligible_share_pct));
    } else if (o.low_roi) {
      o.priority = Priority::P4;
      o.verdict = "low ROI: already mostly hidden behind other streams";
    } else if (o.headroom) {
      if (o.dependency_risk == "high") {
        o.priority = Priority::P3;
        o.verdict = "headroom, but dependency-bound: reorder or split the scope first";
      } else if (c == "comm" || c == "mem") {
        o.priority = k.share_pct >= h.p1_share_pct ? Priority::P1 : Priority::P2;
        o.verdict = "try overlap";
      } else if (c == "elementwise") {
        o.priority = k.share_pct >= h.p1_share_pct ? Priority::P1 : Priority::P2;
        o.verdict = "try fusion";
      } else if (c == "compute") {
        o.priority = k.share_pct >= h.compute_p2_share_pct ? Priority::P2 : Priority::P3;
        o.verdict = one_stream ? "compute on the trace's only stream: tune or swap the kernel"
                               : "exposed compute: tune or swap the kernel";
      } else {
        o.priority = k.share_pct >= h.p1_share_pct ? Priority::P2 : Priority::P3;
        o.verdict =
            one_stream ? "investigate: on the trace's only stream" : "investigate: exposed with no other stream busy";
      }
    } else {
      o.priority = Priority::P4;
      o.verdict = "mostly hidden already";
    }
    o.recommendation = recommendation(c, k, vendor, o.verdict, tax, &o.next_step);
    if (o.priority == Priority::P5 || o.verdict == "mostly hidden already" || o.low_roi) o.next_step = "none";
    o.cpu_op = k.cpu_op;
    o.python_location = k.python_location;
    out.push_back(std::move(o));
  }
  // Ranked by the time a row could save (score: exposed time x the class's weight), the priority
  // breaking ties: sorting by priority first put a 1.6 % elementwise P1 row above a 15.6 % GEMM
  // (issue #34). Priorities stay as labels of how actionable a row is.
  std::stable_sort(out.begin(), out.end(), [](const OverlapRow& a, const OverlapRow& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.priority < b.priority;
  });
  return out;
}

// ---- fuse table ----------------------------------------------------------------------------

namespace {

class RegexCache {
 public:
  RegexCache(const Timeline& tl, const std::string& re) : tl_(tl), ok_(!re.empty()) {
    if (ok_) re_ = std::regex(re, std::regex::icase | std::regex::ECMAScript);
  }
  bool match(StrId id) {
    if (!ok_ || id == kNoStr) return false;
    auto it = cache_.find(id);
    if (it != cache_.end()) return it->second;
    std::string s(tl_.str(id));
    bool m = std::regex_search(s, re_);
    cache_.emplace(id, m);
    return m;
  }
  bool match_text(const std::string& s) { return ok_ && std::regex_search(s, re_); }
  // Match on a kernel-table row's canonical name, cached per row (regexes are slow; rows repeat).
  bool match_row(int32_t row, const std::string& name) {
    if (!ok_ || row < 0) return false;
    if (static_cast<size_t>(row) >= rows_.size()) rows_.resize(row + 1, -1);
    if (rows_[row] < 0) rows_[row] = match_text(name) ? 1 : 0;
    return rows_[row] == 1;
  }

 private:
  const Timeline& tl_;
  bool ok_;
  std::regex re_;
  std::unordered_map<StrId, bool> cache_;
  std::vector<int8_t> rows_;
};

struct FuseAcc {
  int64_t occurrences = 0, kernels = 0, related_ns = 0;
  std::vector<std::string> example;
  std::string extra;
};

}  // namespace

std::vector<FuseRow> build_fuse_table(const Timeline& tl, const KernelTableResult& kt, const LaunchAttribution& la,
                                      const std::vector<FusePattern>& patterns, hw::Vendor vendor) {
  const GpuOpTable& ops = tl.gpu_ops;
  auto seqs = stream_sequences(ops);
  auto row_of = [&](uint32_t i) -> const KernelTableRow* {
    return kt.op_row[i] >= 0 ? &kt.rows[kt.op_row[i]] : nullptr;
  };
  auto cpu_name = [&](uint32_t i) -> StrId { return la.cpu_op[i] >= 0 ? tl.cpu_ops.name[la.cpu_op[i]] : kNoStr; };
  auto label = [&](uint32_t i) -> std::string {
    StrId c = cpu_name(i);
    if (c != kNoStr) return std::string(tl.str(c));
    const KernelTableRow* r = row_of(i);
    return r ? short_name(r->name, 60) : "?";
  };
  std::vector<FuseRow> out;
  for (const FusePattern& p : patterns) {
    std::map<std::string, FuseAcc> groups;  // signature → accumulator
    auto add = [&](const std::string& sig, const std::vector<uint32_t>& run) {
      FuseAcc& a = groups[sig];
      ++a.occurrences;
      a.kernels += static_cast<int64_t>(run.size());
      for (uint32_t i : run) a.related_ns += ops.dur_ns[i];
      if (a.example.empty())
        for (uint32_t i : run) {
          if (a.example.size() >= 8) break;
          const KernelTableRow* r = row_of(i);
          a.example.push_back(r ? short_name(r->name, 100) : "?");
        }
    };
    auto signature = [&](const std::vector<uint32_t>& run) {
      std::string s;
      for (size_t k = 0; k < run.size() && k < 8; ++k) {
        if (k) s += " → ";
        s += label(run[k]);
      }
      if (run.size() > 8) s += fmt::format(" → … ({} ops)", run.size());
      return s;
    };
    if (p.detector == "elementwise_run" || p.detector == "copy_cast_chain") {
      RegexCache re(tl, p.regex), cpu_re(tl, p.cpu_op_regex);
      auto qualifies = [&](uint32_t i) {
        const KernelTableRow* r = row_of(i);
        if (!r) return false;
        if (p.detector == "elementwise_run") {
          if (ops.dur_ns[i] >= p.max_kernel_us * 1000) return false;
          return std::find(p.categories.begin(), p.categories.end(), r->category) != p.categories.end();
        }
        if (ops.kind[i] == GpuOpKind::Memcpy) {
          std::string n = ascii_lower(r->full_name);
          return contains(n, "dtod") || contains(n, "device -> device");
        }
        if (ops.kind[i] != GpuOpKind::Kernel) return false;
        StrId op = cpu_name(i);
        if (op != kNoStr) return cpu_re.match(op);
        return re.match_row(kt.op_row[i], r->name);
      };
      for (const auto& seq : seqs) {
        std::vector<uint32_t> run;
        auto flush = [&] {
          if (static_cast<int>(run.size()) >= p.min_run) add(signature(run), run);
          run.clear();
        };
        for (uint32_t i : seq) {
          if (!qualifies(i)) {
            flush();
            continue;
          }
          if (!run.empty() && p.detector == "elementwise_run" && la.python[run.back()] != la.python[i]) flush();
          run.push_back(i);
        }
        flush();
      }
    } else if (p.detector == "norm_after_comm") {
      RegexCache re(tl, p.comm_regex);
      // The ops of `seqs` per device, in start order (the table's).
      std::map<int32_t, std::vector<uint32_t>> by_dev;
      for (size_t i = 0; i < ops.size(); ++i)
        if (ops.dur_ns[i] >= 0) by_dev[ops.device[i]].push_back(static_cast<uint32_t>(i));
      for (auto& [dev, v] : by_dev) {
        for (size_t k = 0; k < v.size(); ++k) {
          const KernelTableRow* r = row_of(v[k]);
          if (!r || r->category != "communication" || !re.match_row(kt.op_row[v[k]], r->name)) continue;
          int64_t end = ops.end_ns(v[k]);
          for (size_t j = k + 1; j < v.size() && j < k + 256; ++j) {
            if (ops.start_ns[v[j]] < end) continue;
            const KernelTableRow* n = row_of(v[j]);
            if (!n || n->category == "communication") continue;
            if (n->category == "norm" && ops.start_ns[v[j]] - end <= p.max_gap_us * 1000)
              add(short_name(r->name, 60) + " → " + label(v[j]), {v[k], v[j]});
            break;
          }
        }
      }
    } else if (p.detector == "softmax_mask_chain") {
      RegexCache re(tl, p.mask_regex);
      for (const auto& seq : seqs)
        for (size_t k = 1; k < seq.size(); ++k) {
          const KernelTableRow* r = row_of(seq[k]);
          const KernelTableRow* pr = row_of(seq[k - 1]);
          if (!r || !pr || r->category != "softmax") continue;
          if (ops.start_ns[seq[k]] - ops.end_ns(seq[k - 1]) > p.max_gap_us * 1000) continue;
          if (re.match_row(kt.op_row[seq[k - 1]], pr->name) || re.match(cpu_name(seq[k - 1])))
            add(signature({seq[k - 1], seq[k]}), {seq[k - 1], seq[k]});
        }
    } else if (p.detector == "optimizer_loop") {
      RegexCache scope_re(tl, p.scope_regex), fused_re(tl, p.fused_regex);
      std::vector<uint32_t> by_launch;
      for (size_t i = 0; i < ops.size(); ++i)
        if (la.launch_ns[i] != kNone && ops.kind[i] == GpuOpKind::Kernel && ops.dur_ns[i] >= 0)
          by_launch.push_back(static_cast<uint32_t>(i));
      std::sort(by_launch.begin(), by_launch.end(),
                [&](uint32_t a, uint32_t b) { return la.launch_ns[a] < la.launch_ns[b]; });
      const AnnotationTable& an = tl.annotations;
      for (size_t a = 0; a < an.size(); ++a) {
        if (an.on_gpu[a] || !scope_re.match(an.name[a])) continue;
        auto lo = std::lower_bound(by_launch.begin(), by_launch.end(), an.start_ns[a],
                                   [&](uint32_t i, int64_t t) { return la.launch_ns[i] < t; });
        std::vector<uint32_t> run;
        int64_t fused_ns = 0, total_ns = 0, mta = 0;
        for (auto it = lo; it != by_launch.end() && la.launch_ns[*it] <= an.end_ns(a); ++it) {
          run.push_back(*it);
          total_ns += ops.dur_ns[*it];
          const KernelTableRow* r = row_of(*it);
          if (r && fused_re.match_row(kt.op_row[*it], r->name)) fused_ns += ops.dur_ns[*it];
          if (r && contains(r->name, "multi_tensor_apply")) ++mta;
        }
        if (static_cast<int>(run.size()) < p.min_kernels || fused_ns * 2 >= total_ns) continue;
        std::string sig(tl.str(an.name[a]));
        FuseAcc& g = groups[sig];
        g.extra = fmt::format("{} multi_tensor_apply kernels in the last step scope", mta);
        add(sig, run);
      }
    }
    for (auto& [sig, a] : groups) {
      FuseRow r;
      r.pattern = p.id;
      r.title = p.title;
      r.occurrences = a.occurrences;
      r.kernels = a.kernels;
      r.related_ns = a.related_ns;
      r.share_pct = kt.total_ns > 0 ? 100.0 * a.related_ns / kt.total_ns : 0;
      r.confidence = a.occurrences >= p.high_min ? "high" : a.occurrences >= p.medium_min ? "medium" : "low";
      r.scope = sig;
      r.evidence = fmt::format("{} occurrence(s), {} kernels, {:.1f} us GPU time, mean {:.2f} us/kernel", a.occurrences,
                               a.kernels, a.related_ns / 1000.0, a.kernels ? a.related_ns / 1000.0 / a.kernels : 0.0);
      if (!a.extra.empty()) r.evidence += "; " + a.extra;
      r.evidence += "; sequence: " + sig;
      r.candidate = vendor == hw::Vendor::Amd ? p.candidate_rocm : p.candidate_cuda;
      if (r.candidate.empty()) r.candidate = p.candidate_cuda.empty() ? p.candidate_rocm : p.candidate_cuda;
      r.rationale = p.rationale;
      r.citation = p.citation;
      r.example_kernels = a.example;
      out.push_back(std::move(r));
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FuseRow& a, const FuseRow& b) { return a.related_ns > b.related_ns; });
  return out;
}

Json overlap_row_to_json(const OverlapRow& r) {
  Json j;
  j["priority"] = priority_name(r.priority);
  j["verdict"] = r.verdict;
  j["kernel"] = r.kernel;
  j["category"] = r.category;
  j["family"] = r.family;
  j["excl_pct"] = round_to(r.exclusive_pct, 2);
  j["hid_pct"] = round_to(r.hidden_pct, 2);
  j["dependency_risk"] = r.dependency_risk;
  j["dependency_risky_launch_fraction"] = round_to(r.dependency_risky_fraction, 3);
  j["recommendation"] = r.recommendation;
  j["next_step"] = r.next_step;
  j["time_share_pct"] = round_to(r.share_pct, 3);
  j["time_us"] = round_to(r.total_ns / 1000.0, 3);
  j["exposed_us"] = round_to(r.exposed_ns / 1000.0, 3);
  j["hidden_us"] = round_to(r.hidden_ns / 1000.0, 3);
  j["launches"] = r.launches;
  j["weight_class"] = r.weight_class;
  j["score"] = round_to(r.score, 3);
  j["headroom"] = r.headroom;
  j["low_roi"] = r.low_roi;
  j["cpu_op"] = r.cpu_op.empty() ? Json(nullptr) : Json(r.cpu_op);
  j["python_location"] = r.python_location.empty() ? Json(nullptr) : Json(r.python_location);
  return j;
}

Json fuse_row_to_json(const FuseRow& r) {
  Json j;
  j["pattern"] = r.pattern;
  j["title"] = r.title;
  j["confidence"] = r.confidence;
  j["related_time_us"] = round_to(r.related_ns / 1000.0, 3);
  j["time_share_pct"] = round_to(r.share_pct, 3);
  j["occurrences"] = r.occurrences;
  j["kernels"] = r.kernels;
  j["evidence"] = r.evidence;
  j["candidate_fused_path"] = r.candidate;
  j["scope"] = r.scope;
  j["example_kernels"] = r.example_kernels;
  j["rationale"] = r.rationale;
  j["citation"] = r.citation;
  return j;
}

}  // namespace goblin::analysis
