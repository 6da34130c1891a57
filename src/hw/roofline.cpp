#include "hw/roofline.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>
#include <unordered_map>

#include "core/text.h"

namespace goblin {

namespace {

double prod(const std::vector<int64_t>& v, size_t from = 0, size_t to = SIZE_MAX) {
  double p = 1;
  for (size_t i = from; i < std::min(to, v.size()); ++i) p *= static_cast<double>(v[i]);
  return p;
}

bool truthy(const std::string& s) { return s == "True" || s == "true" || s == "1"; }

// Attention ops: where query sits, its layout, and where is_causal sits in "Concrete Inputs".
struct AttnOp {
  const char* name;
  int q;           // index of query (key and value follow)
  bool bhle;       // true: [B, H, L, E]; false: [B, L, H, E]
  int causal_idx;  // -1 when the op has no is_causal argument
  bool backward;
  bool mask_type;  // causal_idx holds custom_mask_type (int; 1 = causal)
};
const AttnOp kAttn[] = {
    {"aten::scaled_dot_product_attention", 0, true, 5, false, false},
    {"aten::_scaled_dot_product_flash_attention", 0, true, 4, false, false},
    {"aten::_scaled_dot_product_efficient_attention", 0, true, 6, false, false},
    {"aten::_scaled_dot_product_cudnn_attention", 0, true, 6, false, false},
    {"aten::_cudnn_attention_forward", 0, true, 10, false, false},
    {"aten::_flash_attention_forward", 0, false, 8, false, false},
    {"aten::_efficient_attention_forward", 0, false, 9, false, true},
    {"aten::_scaled_dot_product_flash_attention_backward", 1, true, 11, true, false},
    {"aten::_scaled_dot_product_efficient_attention_backward", 1, true, 11, true, false},
    {"aten::_scaled_dot_product_cudnn_attention_backward", 1, true, 14, true, false},
    {"aten::_cudnn_attention_backward", 1, true, 14, true, false},
    {"aten::_flash_attention_backward", 1, false, 10, true, false},
    {"aten::_efficient_attention_backward", 1, false, 11, true, true},
};

const AttnOp* find_attn(std::string_view name) {
  for (const auto& a : kAttn)
    if (name == a.name) return &a;
  return nullptr;
}

const char* kGemm[] = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear"};
const char* kConv[] = {"aten::convolution", "aten::_convolution", "aten::cudnn_convolution", "aten::conv2d",
                       "aten::conv1d",      "aten::conv3d",       "aten::miopen_convolution"};

}  // namespace

int dtype_bytes(std::string_view t) {
  std::string d = normalize_dtype(t);
  if (d == "fp64" || d == "int64") return 8;
  if (d == "fp32" || d == "int32") return 4;
  if (d == "bf16" || d == "fp16") return 2;
  if (d == "fp8" || d == "int8" || d == "uint8") return 1;
  return 0;
}

std::string normalize_dtype(std::string_view t) {
  std::string s = ascii_lower(t);
  if (s == "float") return "fp32";
  if (s == "double") return "fp64";
  if (s == "c10::bfloat16" || s == "bfloat16") return "bf16";
  if (s == "c10::half" || s == "half") return "fp16";
  if (s.find("float8") != std::string::npos) return "fp8";
  if (s == "signed char") return "int8";
  if (s == "unsigned char") return "uint8";
  if (s == "int") return "int32";
  if (s == "long int" || s == "long") return "int64";
  return "";
}

std::optional<std::vector<std::vector<int64_t>>> parse_input_dims(std::string_view text) {
  try {
    auto j = nlohmann::json::parse(text);
    if (!j.is_array()) return std::nullopt;
    std::vector<std::vector<int64_t>> out;
    for (auto& e : j) {
      std::vector<int64_t> d;
      if (e.is_array())
        for (auto& x : e)
          if (x.is_number_integer()) d.push_back(x.get<int64_t>());
      out.push_back(std::move(d));
    }
    return out;
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<std::vector<std::string>> parse_string_list(std::string_view text) {
  try {
    auto j = nlohmann::json::parse(text);
    if (!j.is_array()) return std::nullopt;
    std::vector<std::string> out;
    for (auto& e : j) out.push_back(e.is_string() ? e.get<std::string>() : e.dump());
    return out;
  } catch (...) {
    return std::nullopt;
  }
}

bool is_flop_op(std::string_view n) {
  for (auto* g : kGemm)
    if (n == g) return true;
  for (auto* c : kConv)
    if (n == c) return true;
  return find_attn(n) != nullptr;
}

std::optional<OpCost> op_cost(std::string_view name, std::string_view dims_text_in, std::string_view types_text,
                              std::string_view concrete_text, std::string* why) {
  auto fail = [&](std::string w) -> std::optional<OpCost> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  if (!is_flop_op(name)) return fail("not a GEMM/attention/convolution op");
  auto dims = parse_input_dims(dims_text_in);
  if (!dims || dims->empty()) return fail("no Input Dims recorded (profile with record_shapes=True)");
  auto types = parse_string_list(types_text);
  std::vector<std::string> conc;
  if (auto c = parse_string_list(concrete_text)) conc = *c;
  auto type_at = [&](size_t i) -> std::string { return types && i < types->size() ? (*types)[i] : ""; };
  OpCost c;
  auto set_dtype = [&](size_t i) -> bool {
    c.dtype = normalize_dtype(type_at(i));
    c.dtype_bytes = dtype_bytes(type_at(i));
    return c.dtype_bytes > 0;
  };
  const auto& D = *dims;
  auto elems = [&](const std::vector<int64_t>& d) { return d.empty() ? 0.0 : prod(d); };
  std::string n(name);

  if (n == "aten::mm" || n == "aten::addmm") {
    size_t a = n == "aten::mm" ? 0 : 1;
    if (D.size() < a + 2 || D[a].size() != 2 || D[a + 1].size() != 2) return fail("unexpected mm shapes");
    if (!set_dtype(a)) return fail("unknown dtype '" + type_at(a) + "'");
    double M = D[a][0], K = D[a][1], N = D[a + 1][1];
    c.kind = "gemm";
    c.flops = 2 * M * N * K;
    c.bytes = (M * K + K * N + M * N + (a ? elems(D[0]) : 0)) * c.dtype_bytes;
    c.formula = "2*M*N*K, M=" + format_sig(M, 10) + " N=" + format_sig(N, 10) + " K=" + format_sig(K, 10);
    return c;
  }
  if (n == "aten::bmm" || n == "aten::baddbmm") {
    size_t a = n == "aten::bmm" ? 0 : 1;
    if (D.size() < a + 2 || D[a].size() != 3 || D[a + 1].size() != 3) return fail("unexpected bmm shapes");
    if (!set_dtype(a)) return fail("unknown dtype '" + type_at(a) + "'");
    double B = D[a][0], M = D[a][1], K = D[a][2], N = D[a + 1][2];
    c.kind = "gemm";
    c.flops = 2 * B * M * N * K;
    c.bytes = (B * M * K + B * K * N + B * M * N + (a ? elems(D[0]) : 0)) * c.dtype_bytes;
    c.formula = "2*B*M*N*K, B=" + format_sig(B, 10) + " M=" + format_sig(M, 10) + " N=" + format_sig(N, 10) +
                " K=" + format_sig(K, 10);
    return c;
  }
  if (n == "aten::linear") {
    if (D.size() < 2 || D[0].empty() || D[1].size() != 2) return fail("unexpected linear shapes");
    if (!set_dtype(0)) return fail("unknown dtype '" + type_at(0) + "'");
    double K = static_cast<double>(D[0].back()), N = D[1][0];
    double M = prod(D[0], 0, D[0].size() - 1);
    c.kind = "gemm";
    c.flops = 2 * M * N * K;
    c.bytes = (M * K + N * K + M * N + (D.size() > 2 ? elems(D[2]) : 0)) * c.dtype_bytes;
    c.formula = "2*M*N*K, M=" + format_sig(M, 10) + " N=" + format_sig(N, 10) + " K=" + format_sig(K, 10);
    return c;
  }
  if (n == "aten::matmul") {
    if (D.size() < 2 || D[0].empty() || D[1].empty()) return fail("unexpected matmul shapes");
    if (!set_dtype(0)) return fail("unknown dtype '" + type_at(0) + "'");
    auto a = D[0], b = D[1];
    if (a.size() == 1) a.insert(a.begin(), 1);
    if (b.size() == 1) b.push_back(1);
    double M = a[a.size() - 2], K = a.back(), N = b.back();
    if (b[b.size() - 2] != static_cast<int64_t>(K)) return fail("matmul inner dimensions differ");
    // broadcast batch
    std::vector<int64_t> ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
    size_t nb = std::max(ba.size(), bb.size());
    double batch = 1;
    for (size_t i = 0; i < nb; ++i) {
      int64_t x = i < nb - ba.size() ? 1 : ba[i - (nb - ba.size())];
      int64_t y = i < nb - bb.size() ? 1 : bb[i - (nb - bb.size())];
      batch *= static_cast<double>(std::max(x, y));
    }
    c.kind = "gemm";
    c.flops = 2 * batch * M * N * K;
    c.bytes = (elems(D[0]) + elems(D[1]) + batch * M * N) * c.dtype_bytes;
    c.formula = "2*batch*M*N*K, batch=" + format_sig(batch, 10) + " M=" + format_sig(M, 10) +
                " N=" + format_sig(N, 10) + " K=" + format_sig(K, 10);
    return c;
  }
  if (const AttnOp* at = find_attn(n)) {
    size_t q = at->q;
    if (D.size() < q + 3 || D[q].size() != 4 || D[q + 1].size() != 4 || D[q + 2].size() != 4)
      return fail("unexpected attention shapes (need 4-D query/key/value)");
    if (!set_dtype(q)) return fail("unknown dtype '" + type_at(q) + "'");
    const auto &Q = D[q], &Kd = D[q + 1], &V = D[q + 2];
    double B = Q[0], H = at->bhle ? Q[1] : Q[2], L = at->bhle ? Q[2] : Q[1], E = Q[3];
    double S = at->bhle ? Kd[2] : Kd[1], Ev = V[3];
    double fwd = 2 * B * H * L * S * E + 2 * B * H * L * S * Ev;
    bool causal = false;
    bool causal_known =
        at->causal_idx >= 0 && static_cast<size_t>(at->causal_idx) < conc.size() && !conc[at->causal_idx].empty();
    if (causal_known)
      causal =
          at->mask_type ? conc[at->causal_idx] == "1" || conc[at->causal_idx] == "2" : truthy(conc[at->causal_idx]);
    c.kind = "attention";
    c.causal = causal;
    double f = fwd * (causal ? 0.5 : 1.0);
    double tensors = elems(Q) + elems(Kd) + elems(V) + B * H * L * Ev;  // q, k, v, out
    if (at->backward) {
      c.flops = 2.5 * f;
      c.bytes = (2 * tensors + B * H * L * Ev) * c.dtype_bytes;  // + dout, dq, dk, dv
      c.formula = "2.5 * fwd, fwd = 2*B*H*L*S*(E+Ev)";
    } else {
      c.flops = f;
      c.bytes = tensors * c.dtype_bytes;
      c.formula = "2*B*H*L*S*(E+Ev)";
    }
    c.formula += (causal ? " * 0.5 (causal)" : (causal_known ? "" : " (is_causal not recorded: assumed false)")) +
                 std::string(", B=") + format_sig(B, 10) + " H=" + format_sig(H, 10) + " L=" + format_sig(L, 10) +
                 " S=" + format_sig(S, 10) + " E=" + format_sig(E, 10);
    return c;
  }
  // Convolutions: (input, weight, bias, stride, padding, dilation, [transposed, output_padding,] groups)
  bool conv = false;
  for (auto* k : kConv) conv |= n == k;
  if (conv) {
    if (D.size() < 2 || D[0].size() < 3 || D[1].size() != D[0].size()) return fail("unexpected convolution shapes");
    if (!set_dtype(0)) return fail("unknown dtype '" + type_at(0) + "'");
    size_t sp = D[0].size() - 2;
    auto ints = [&](size_t i) -> std::optional<std::vector<int64_t>> {
      if (i >= conc.size() || conc[i].empty()) return std::nullopt;
      auto d = parse_input_dims("[" + conc[i] + "]");
      if (!d || d->empty()) return std::nullopt;
      auto v = (*d)[0];
      if (v.empty()) {  // a scalar
        try {
          v.push_back(std::stoll(conc[i]));
        } catch (...) {
          return std::nullopt;
        }
      }
      if (v.size() == 1) v.resize(sp, v[0]);
      return v;
    };
    auto stride = ints(3), pad = ints(4), dil = ints(5);
    if (!stride || !pad || !dil) return fail("convolution stride/padding/dilation not recorded in Concrete Inputs");
    bool transposed = (n == "aten::convolution" || n == "aten::_convolution") && conc.size() > 6 && truthy(conc[6]);
    if (transposed) return fail("transposed convolution not modelled");
    std::optional<int64_t> groups;
    size_t gi = (n == "aten::convolution" || n == "aten::_convolution") ? 8 : 6;
    if (gi < conc.size() && !conc[gi].empty()) try {
        groups = std::stoll(conc[gi]);
      } catch (...) {
      }
    if (!groups) return fail("convolution groups not recorded");
    const auto &X = D[0], &W = D[1];
    double N = X[0], Cout = W[0], CinPerG = W[1];
    double out_sp = 1, ker = 1;
    for (size_t i = 0; i < sp; ++i) {
      double in = X[2 + i], k = W[2 + i];
      double o = std::floor((in + 2.0 * (*pad)[i] - (*dil)[i] * (k - 1) - 1) / (*stride)[i] + 1);
      if (o <= 0) return fail("convolution output size not positive");
      out_sp *= o;
      ker *= k;
    }
    c.kind = "conv";
    c.flops = 2 * N * Cout * out_sp * CinPerG * ker;
    c.bytes = (elems(X) + elems(W) + N * Cout * out_sp) * c.dtype_bytes;
    c.formula = "2*N*Cout*outspatial*(Cin/groups)*kernel, N=" + format_sig(N, 10) + " Cout=" + format_sig(Cout, 10) +
                " out=" + format_sig(out_sp, 10) + " Cin/g=" + format_sig(CinPerG, 10) + " k=" + format_sig(ker, 10);
    return c;
  }
  return fail("unsupported op");
}

std::string kernel_engine(std::string_view kname) {
  std::string k = ascii_lower(kname);
  auto has = [&](const char* s) { return k.find(s) != std::string::npos; };
  if (has("tf32") || has("1688") || has("16816") || has("tensorop") || has("hmma") || has("gmma") || has("nvjet") ||
      has("mfma") || has("wmma") || has("xdl") || has("flash") || has("fmha") || has("cudnn") || has("_bf16") ||
      has("_h_") || has("sm90_xmma") || has("cutlass3x"))
    return has("ffma") || has("simt") ? "vector" : "matrix";
  if (has("sgemm") || has("ffma") || has("simt") || has("dgemm") || has("dfma")) return "vector";
  return "";
}

RooflineReport roofline_from_trace(const Timeline& tl, const GpuSpec& gpu) {
  RooflineReport rep;
  rep.gpu = gpu;
  auto bw = gpu.bandwidth_bytes_per_s();
  rep.bandwidth_gbs = bw ? *bw / 1e9 : 0;
  if (!bw) rep.notes.push_back(gpu.id + ": peak bandwidth unknown; memory roof and bound classification omitted");

  // FLOP-family CPU ops per thread, sorted by start.
  std::unordered_map<int64_t, std::vector<size_t>> by_tid;
  std::unordered_map<int64_t, size_t> by_ext;
  const auto& ops = tl.cpu_ops;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops.kind[i] != CpuOpKind::Op) continue;
    if (!is_flop_op(tl.str(ops.name[i]))) continue;
    by_tid[ops.tid[i]].push_back(i);
    if (ops.external_id[i] != kNone) by_ext.emplace(ops.external_id[i], i);
    ++rep.flop_op_instances;
  }
  // Composite ops (matmul/linear/sdpa calling mm/bmm/flash...) that contain another FLOP op: their
  // FLOPs are counted on the inner op, so the outer op's own kernels (copies, reshapes) carry none.
  std::unordered_map<size_t, bool> composite;
  for (auto& [t, v] : by_tid) {
    std::sort(v.begin(), v.end(), [&](size_t a, size_t b) { return ops.start_ns[a] < ops.start_ns[b]; });
    for (size_t i = 0; i + 1 < v.size(); ++i)
      if (ops.start_ns[v[i + 1]] <= ops.end_ns(v[i])) composite[v[i]] = true;
  }
  std::unordered_map<int64_t, size_t> rt_by_corr;
  for (size_t i = 0; i < tl.runtime.size(); ++i)
    if (tl.runtime.correlation[i] != kNone) rt_by_corr.emplace(tl.runtime.correlation[i], i);

  // kernel → op
  std::unordered_map<size_t, std::vector<size_t>> op_kernels;
  const auto& K = tl.kernels;
  for (size_t k = 0; k < K.size(); ++k) {
    std::optional<size_t> op;
    auto rt = K.correlation[k] != kNone ? rt_by_corr.find(K.correlation[k]) : rt_by_corr.end();
    if (rt != rt_by_corr.end()) {
      int64_t ts = tl.runtime.start_ns[rt->second];
      auto it = by_tid.find(tl.runtime.tid[rt->second]);
      if (it != by_tid.end()) {
        const auto& v = it->second;
        auto ub =
            std::upper_bound(v.begin(), v.end(), ts, [&](int64_t t, size_t idx) { return t < ops.start_ns[idx]; });
        int steps = 0;
        while (ub != v.begin() && steps++ < 16) {
          --ub;
          if (ops.start_ns[*ub] <= ts && ts <= ops.end_ns(*ub)) {
            op = *ub;
            break;
          }
        }
      }
    }
    if (!op && K.external_id[k] != kNone) {
      auto e = by_ext.find(K.external_id[k]);
      if (e != by_ext.end()) op = e->second;
    }
    if (op) op_kernels[*op].push_back(k);
  }

  struct Acc {
    RooflinePoint p;
    std::map<std::string, int> engines;
    std::map<std::string, int64_t> kern_ns;
  };
  std::map<std::string, Acc> groups;
  std::map<std::string, Acc> kgroups;
  std::map<std::string, int> why_counts;
  int64_t composite_kernels = 0;
  for (auto& [oi, ks] : op_kernels) {
    if (composite.count(oi)) {
      composite_kernels += static_cast<int64_t>(ks.size());
      continue;
    }
    ++rep.instances_with_kernels;
    std::string why;
    std::string_view nm = tl.str(ops.name[oi]);
    auto cost =
        op_cost(nm, tl.str(ops.input_dims[oi]), tl.str(ops.input_types[oi]), tl.str(ops.concrete_inputs[oi]), &why);
    if (!cost) {
      ++rep.instances_without_shapes;
      ++why_counts[std::string(nm) + ": " + why];
      continue;
    }
    int64_t t = 0;
    for (auto k : ks) t += K.dur_ns[k];
    std::string shapes(tl.str(ops.input_dims[oi]));
    std::string key = std::string(nm) + "|" + shapes + "|" + cost->dtype;
    auto& g = groups[key];
    if (g.p.count == 0) {
      g.p.label = std::string(nm) + " " + shapes;
      g.p.kind = cost->kind;
      g.p.dtype = cost->dtype;
      g.p.shapes = shapes;
      g.p.formula = cost->formula;
    }
    g.p.count++;
    g.p.time_ns += t;
    g.p.flops += cost->flops;
    g.p.bytes += cost->bytes;
    for (auto k : ks) {
      std::string kn(tl.str(K.name[k]));
      g.engines[kernel_engine(kn)]++;
      g.kern_ns[kn] += K.dur_ns[k];
      auto& kg = kgroups[kn];
      if (kg.p.count == 0) {
        kg.p.label = kn;
        kg.p.kind = "kernel";
        kg.p.dtype = cost->dtype;
        kg.p.engine = kernel_engine(kn);
      }
      kg.p.count++;
      kg.p.time_ns += K.dur_ns[k];
      double share = t > 0 ? static_cast<double>(K.dur_ns[k]) / t : 1.0 / ks.size();
      kg.p.flops += cost->flops * share;
      kg.p.bytes += cost->bytes * share;
    }
  }
  if (composite_kernels)
    rep.notes.push_back(std::to_string(composite_kernels) +
                        " kernel(s) launched directly by composite ops (matmul/linear/attention wrappers around an "
                        "inner GEMM/attention op: copies, reshapes) carry no FLOPs and are not in the table");
  for (auto& [w, n] : why_counts) rep.notes.push_back(std::to_string(n) + " op instance(s) not modelled: " + w);

  std::map<std::string, double> ridge;
  auto finish = [&](RooflinePoint& p) {
    if (p.time_ns > 0) {
      p.achieved_tflops = p.flops / (p.time_ns * 1e-9) / 1e12;
      p.achieved_gbs = p.bytes / (p.time_ns * 1e-9) / 1e9;
    }
    p.intensity = p.bytes > 0 ? p.flops / p.bytes : 0;
    p.peak_key = peak_key_for(p.dtype, p.engine == "matrix");
    if (p.dtype == "fp32" && p.engine.empty()) p.peak_key = "fp32";
    p.peak_tflops = p.peak_key.empty() ? std::nullopt : gpu.peak_tflops(p.peak_key);
    if (p.peak_tflops && *p.peak_tflops > 0) {
      p.pct_of_peak = 100.0 * p.achieved_tflops / *p.peak_tflops;
      if (bw) {
        double r = *p.peak_tflops * 1e12 / *bw;
        ridge[p.peak_key] = r;
        p.attainable_tflops = std::min(*p.peak_tflops, p.intensity * *bw / 1e12);
        p.bound = p.intensity < r ? "memory" : "compute";
      }
    }
    if (p.bound.empty()) p.bound = "unknown";
  };
  for (auto& [key, g] : groups) {
    // engine: majority of the op's kernels (by count) that say one
    int mat = g.engines["matrix"], vec = g.engines["vector"];
    g.p.engine = mat > vec ? "matrix" : (vec > 0 ? "vector" : "");
    std::vector<std::pair<int64_t, std::string>> ks;
    for (auto& [kn, ns] : g.kern_ns) ks.emplace_back(ns, kn);
    std::sort(ks.rbegin(), ks.rend());
    for (size_t i = 0; i < ks.size() && i < 4; ++i) g.p.kernels.push_back(ks[i].second);
    finish(g.p);
    rep.ops.push_back(g.p);
  }
  for (auto& [kn, g] : kgroups) {
    finish(g.p);
    rep.kernels.push_back(g.p);
  }
  auto by_time = [](const RooflinePoint& a, const RooflinePoint& b) { return a.time_ns > b.time_ns; };
  std::sort(rep.ops.begin(), rep.ops.end(), by_time);
  std::sort(rep.kernels.begin(), rep.kernels.end(), by_time);
  for (auto& [k, r] : ridge) rep.ridges.emplace_back(k, r);
  if (rep.flop_op_instances == 0)
    rep.notes.push_back("no GEMM/attention/convolution ops in the trace (record_shapes and CPU ops needed)");
  bool any_unknown_engine = false;
  for (auto& p : rep.ops) any_unknown_engine |= p.dtype == "fp32" && p.engine.empty();
  if (any_unknown_engine)
    rep.notes.push_back(
        "fp32 ops whose kernel names do not say SIMT or tensor core are compared to the fp32 "
        "(non-tensor) peak");
  return rep;
}

namespace {
Json point_json(const RooflinePoint& p) {
  Json j;
  j["label"] = p.label;
  j["kind"] = p.kind;
  j["dtype"] = p.dtype;
  if (!p.shapes.empty()) j["input_dims"] = p.shapes;
  j["engine"] = p.engine.empty() ? Json(nullptr) : Json(p.engine);
  j["count"] = p.count;
  j["kernel_time_us"] = round_to(p.time_ns / 1e3, 3);
  j["flops"] = p.flops;
  j["bytes_min"] = p.bytes;
  j["achieved_tflops"] = round_to(p.achieved_tflops, 3);
  j["achieved_gbs"] = round_to(p.achieved_gbs, 1);
  j["arithmetic_intensity"] = round_to(p.intensity, 2);
  j["peak_key"] = p.peak_key;
  j["peak_tflops"] = p.peak_tflops ? Json(*p.peak_tflops) : Json(nullptr);
  j["pct_of_peak"] = p.pct_of_peak ? Json(round_to(*p.pct_of_peak, 2)) : Json(nullptr);
  j["attainable_tflops"] = p.attainable_tflops ? Json(round_to(*p.attainable_tflops, 2)) : Json(nullptr);
  j["bound"] = p.bound;
  if (!p.formula.empty()) j["formula"] = p.formula;
  if (!p.kernels.empty()) j["kernels"] = p.kernels;
  return j;
}
}  // namespace

Json roofline_to_json(const RooflineReport& r) {
  Json j;
  j["gpu"] = r.gpu.id;
  j["bandwidth_gbs"] = r.bandwidth_gbs;
  if (auto* b = r.gpu.spec("memory_bandwidth")) j["bandwidth_source"] = b->citation();
  Json ridges = Json::object(), peaks = Json::object(), psrc = Json::object();
  for (auto& [k, v] : r.ridges) {
    ridges[k] = round_to(v, 2);
    peaks[k] = r.gpu.peak_tflops(k) ? Json(*r.gpu.peak_tflops(k)) : Json(nullptr);
    if (auto* p = r.gpu.peak(k)) psrc[k] = p->citation();
  }
  j["ridge_flop_per_byte"] = ridges;
  j["peaks_tflops"] = peaks;
  j["peak_sources"] = psrc;
  j["flop_op_instances"] = r.flop_op_instances;
  j["instances_with_kernels"] = r.instances_with_kernels;
  j["instances_not_modelled"] = r.instances_without_shapes;
  Json ops = Json::array(), ks = Json::array();
  for (auto& p : r.ops) ops.push_back(point_json(p));
  for (auto& p : r.kernels) ks.push_back(point_json(p));
  j["ops"] = ops;
  j["kernels"] = ks;
  j["notes"] = r.notes;
  j["method"] =
      "FLOPs from Input Dims (GEMM 2MNK; attention 2BHLS(E+Ev), causal x0.5, backward x2.5); bytes = each "
      "input/output tensor once (lower bound); kernel time = kernels launched inside the op; peak by dtype and "
      "engine (fp32 SIMT -> fp32, fp32 on tensor cores -> tf32, bf16/fp16/fp8 -> matrix peak)";
  return j;
}

std::string roofline_human(const RooflineReport& r, size_t top) {
  std::ostringstream o;
  o << "Roofline on " << r.gpu.name << " [" << r.gpu.id << "], bandwidth " << format_sig(r.bandwidth_gbs, 5)
    << " GB/s\n";
  for (auto& [k, v] : r.ridges)
    o << "  ridge " << k << ": " << format_sig(v, 4) << " FLOP/B (peak " << format_sig(*r.gpu.peak_tflops(k), 6)
      << " TFLOPS)\n";
  o << "  " << r.instances_with_kernels << " of " << r.flop_op_instances
    << " GEMM/attention/conv op instances launched kernels; " << r.instances_without_shapes << " not modelled\n\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-52s %5s %6s %10s %9s %8s %7s %6s %-7s %s\n", "op [input dims]", "n", "dtype",
                "time_ms", "TFLOP/s", "GB/s", "AI", "%peak", "bound", "peak");
  o << line;
  size_t i = 0;
  for (auto& p : r.ops) {
    if (i++ >= top) break;
    std::string lab = p.label.size() > 52 ? p.label.substr(0, 49) + "..." : p.label;
    std::snprintf(line, sizeof line, "%-52s %5lld %6s %10.3f %9.2f %8.0f %7.1f %6s %-7s %s%s\n", lab.c_str(),
                  static_cast<long long>(p.count), p.dtype.c_str(), p.time_ns / 1e6, p.achieved_tflops, p.achieved_gbs,
                  p.intensity, p.pct_of_peak ? format_sig(*p.pct_of_peak, 3).c_str() : "-", p.bound.c_str(),
                  p.peak_key.c_str(), p.engine.empty() ? "" : (" (" + p.engine + ")").c_str());
    o << line;
  }
  if (r.ops.size() > top) o << "  ... " << r.ops.size() - top << " more (--json for all)\n";
  for (auto& n : r.notes) o << "note: " << n << "\n";
  return o.str();
}

// ---- SVG ----------------------------------------------------------------------------------

namespace {
std::string esc(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}
}  // namespace

std::string roofline_svg(const std::string& title, double bw_gbs, const std::vector<SvgRoof>& roofs,
                         const std::vector<SvgPoint>& points) {
  const double W = 720, H = 460, L = 70, R = 20, T = 40, B = 50;
  double xmin = 1e-2, xmax = 1e4, ymin = 1e-3, ymax = 1e4;
  double pmax = 0;
  for (auto& r : roofs) pmax = std::max(pmax, r.peak_tflops);
  for (auto& p : points)
    if (p.tflops > 0 && p.intensity > 0) {
      xmin = std::min(xmin, p.intensity / 2);
      xmax = std::max(xmax, p.intensity * 2);
      ymin = std::min(ymin, p.tflops / 2);
    }
  if (pmax > 0) ymax = std::max(pmax * 2, 1.0);
  xmin = std::pow(10, std::floor(std::log10(xmin)));
  xmax = std::pow(10, std::ceil(std::log10(xmax)));
  ymin = std::pow(10, std::floor(std::log10(ymin)));
  ymax = std::pow(10, std::ceil(std::log10(ymax)));
  auto X = [&](double x) {
    return L + (std::log10(x) - std::log10(xmin)) / (std::log10(xmax) - std::log10(xmin)) * (W - L - R);
  };
  auto Y = [&](double y) {
    return H - B - (std::log10(y) - std::log10(ymin)) / (std::log10(ymax) - std::log10(ymin)) * (H - T - B);
  };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"goblin-roofline\" width=\"" << W << "\" height=\"" << H
    << "\" viewBox=\"0 0 " << W << " " << H << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  o << "<style>.compute{fill:#d62728}.memory{fill:#1f77b4}.unknown{fill:#7f7f7f}.roof{stroke:#222;stroke-width:2;fill:"
       "none}"
       ".grid{stroke:#ddd;stroke-width:1}</style>\n";
  o << "<text x=\"" << W / 2 << "\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">" << esc(title) << "</text>\n";
  for (double x = xmin; x <= xmax * 1.0001; x *= 10)
    o << "<line class=\"grid\" x1=\"" << X(x) << "\" y1=\"" << T << "\" x2=\"" << X(x) << "\" y2=\"" << H - B
      << "\"/><text x=\"" << X(x) << "\" y=\"" << H - B + 15 << "\" text-anchor=\"middle\">" << format_sig(x, 3)
      << "</text>\n";
  for (double y = ymin; y <= ymax * 1.0001; y *= 10)
    o << "<line class=\"grid\" x1=\"" << L << "\" y1=\"" << Y(y) << "\" x2=\"" << W - R << "\" y2=\"" << Y(y)
      << "\"/><text x=\"" << L - 5 << "\" y=\"" << Y(y) + 4 << "\" text-anchor=\"end\">" << format_sig(y, 3)
      << "</text>\n";
  o << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12
    << "\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text>\n";
  o << "<text transform=\"rotate(-90)\" x=\"" << -(T + H - B) / 2
    << "\" y=\"16\" text-anchor=\"middle\">TFLOP/s</text>\n";
  for (auto& r : roofs) {
    if (r.peak_tflops <= 0) continue;
    if (bw_gbs > 0) {
      double ridge = r.peak_tflops * 1e12 / (bw_gbs * 1e9);
      double x0 = xmin, y0 = x0 * bw_gbs * 1e9 / 1e12;
      if (y0 < ymin) {
        y0 = ymin;
        x0 = ymin * 1e12 / (bw_gbs * 1e9);
      }
      o << "<polyline class=\"roof\" points=\"" << X(x0) << "," << Y(y0) << " " << X(ridge) << "," << Y(r.peak_tflops)
        << " " << X(xmax) << "," << Y(r.peak_tflops) << "\"/>\n";
      o << "<circle cx=\"" << X(ridge) << "\" cy=\"" << Y(r.peak_tflops) << "\" r=\"3\" fill=\"#222\"><title>ridge "
        << esc(r.label) << ": " << format_sig(ridge, 4) << " FLOP/B</title></circle>\n";
    } else {
      o << "<line class=\"roof\" x1=\"" << L << "\" y1=\"" << Y(r.peak_tflops) << "\" x2=\"" << W - R << "\" y2=\""
        << Y(r.peak_tflops) << "\"/>\n";
    }
    o << "<text x=\"" << W - R - 4 << "\" y=\"" << Y(r.peak_tflops) - 4 << "\" text-anchor=\"end\">" << esc(r.label)
      << " " << format_sig(r.peak_tflops, 5) << " TFLOP/s</text>\n";
  }
  if (bw_gbs > 0)
    o << "<text x=\"" << L + 6 << "\" y=\"" << T + 14 << "\">HBM " << format_sig(bw_gbs, 5) << " GB/s</text>\n";
  for (auto& p : points) {
    if (p.tflops <= 0 || p.intensity <= 0) continue;
    o << "<circle class=\"" << esc(p.cls.empty() ? "unknown" : p.cls) << "\" cx=\"" << X(p.intensity) << "\" cy=\""
      << Y(p.tflops) << "\" r=\"4\" fill-opacity=\"0.75\"><title>" << esc(p.label) << ": " << format_sig(p.tflops, 4)
      << " TFLOP/s at " << format_sig(p.intensity, 4) << " FLOP/B</title></circle>\n";
  }
  o << "</svg>\n";
  return o.str();
}

std::string roofline_svg(const RooflineReport& r) {
  std::vector<SvgRoof> roofs;
  for (auto& [k, v] : r.ridges)
    if (auto p = r.gpu.peak_tflops(k)) roofs.push_back({k, *p});
  if (roofs.empty())
    for (const char* k : {"fp32", "bf16"})
      if (auto p = r.gpu.peak_tflops(k)) roofs.push_back({k, *p});
  std::vector<SvgPoint> pts;
  for (auto& p : r.ops) pts.push_back({p.label, p.intensity, p.achieved_tflops, p.bound});
  return roofline_svg("Roofline: " + r.gpu.name, r.bandwidth_gbs, roofs, pts);
}

}  // namespace goblin
