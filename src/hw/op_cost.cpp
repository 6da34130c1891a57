// The cost model: FLOPs and bytes of one GEMM / attention / convolution op from its recorded
// shapes and dtypes (formulas in docs), and which ops are FLOP ops at all.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/text.h"
#include "hw/roofline.h"

namespace goblin::hw {

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

// Convolution backward (native_functions.yaml): where grad_output, input and weight sit, the
// gradients the op computes, and where output_mask sits in Concrete Inputs (-1: none). PyTorch
// <= 1.10 split the cuDNN / MIOpen backward into _input and _weight ops whose argument 0 is an int
// list (self_size / weight_size), recorded as [] (OpCostHints::arg0 gives it).
struct ConvBwdOp {
  const char* name;
  size_t go, x, w;
  bool grad_input, grad_weight;
  int mask;
  int transposed;  // Concrete Inputs index of `transposed` (-1: the op is never transposed)
};
const ConvBwdOp kConvBwd[] = {
    {"aten::convolution_backward", 0, 1, 2, true, true, 10, 7},
    {"aten::cudnn_convolution_backward", 1, 0, 2, true, true, 10, -1},
    {"aten::miopen_convolution_backward", 1, 0, 2, true, true, 9, -1},
    {"aten::cudnn_convolution_backward_input", 1, 0, 2, true, false, -1, -1},
    {"aten::miopen_convolution_backward_input", 1, 0, 2, true, false, -1, -1},
    {"aten::cudnn_convolution_backward_weight", 1, 2, 0, false, true, -1, -1},
    {"aten::miopen_convolution_backward_weight", 1, 2, 0, false, true, -1, -1},
};

const ConvBwdOp* find_conv_bwd(std::string_view name) {
  for (const auto& c : kConvBwd)
    if (name == c.name) return &c;
  return nullptr;
}

std::string dims_text(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + format_sig(static_cast<double>(d[i]), 19);
  return s + "]";
}

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

std::optional<ConvBackwardArgs> conv_backward_args(std::string_view n) {
  const ConvBwdOp* c = find_conv_bwd(n);
  if (!c) return std::nullopt;
  return ConvBackwardArgs{c->go, c->x, c->w, c->grad_input, c->grad_weight};
}

bool is_conv_forward_op(std::string_view n) {
  for (auto* c : kConv)
    if (n == c) return true;
  return false;
}

bool is_flop_op(std::string_view n) {
  for (auto* g : kGemm)
    if (n == g) return true;
  for (auto* c : kConv)
    if (n == c) return true;
  return find_attn(n) != nullptr || find_conv_bwd(n) != nullptr;
}

std::optional<OpCost> op_cost(std::string_view name, std::string_view dims_text_in, std::string_view types_text,
                              std::string_view concrete_text, std::string* why) {
  return op_cost(name, dims_text_in, types_text, concrete_text, OpCostHints{}, why);
}

std::optional<OpCost> op_cost(std::string_view name, std::string_view dims_text_in, std::string_view types_text,
                              std::string_view concrete_text, const OpCostHints& hints, std::string* why) {
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
  bool dtype_inferred = false;
  auto set_dtype = [&](size_t i) -> bool {
    c.dtype = normalize_dtype(type_at(i));
    c.dtype_bytes = dtype_bytes(type_at(i));
    if (c.dtype_bytes == 0 && type_at(i).empty() && hints.dtype_bytes > 0) {
      // Input type not recorded (Kineto before PyTorch 1.10): the dtype the kernels name
      c.dtype = hints.dtype;
      c.dtype_bytes = hints.dtype_bytes;
      dtype_inferred = true;
    }
    return c.dtype_bytes > 0;
  };
  auto done = [&]() -> std::optional<OpCost> {
    if (dtype_inferred) {
      c.formula += "; dtype " + c.dtype + " inferred from " + hints.dtype_from;
      if (c.estimate.empty()) c.estimate = "inferred";
    }
    return c;
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
    return done();
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
    return done();
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
    return done();
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
    return done();
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
    return done();
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
    const auto &X = D[0], &W = D[1];
    double N = X[0], Cout = W[0], CinPerG = W[1];
    double out_sp = 1, ker = 1;
    std::string inferred_from;
    if (stride && pad && dil) {
      bool transposed = (n == "aten::convolution" || n == "aten::_convolution") && conc.size() > 6 && truthy(conc[6]);
      if (transposed) return fail("transposed convolution not modelled");
      std::optional<int64_t> groups;
      size_t gi = (n == "aten::convolution" || n == "aten::_convolution") ? 8 : 6;
      if (gi < conc.size() && !conc[gi].empty()) try {
          groups = std::stoll(conc[gi]);
        } catch (...) {
        }
      if (!groups) return fail("convolution groups not recorded");
      for (size_t i = 0; i < sp; ++i) {
        double in = X[2 + i], k = W[2 + i];
        double o = std::floor((in + 2.0 * (*pad)[i] - (*dil)[i] * (k - 1) - 1) / (*stride)[i] + 1);
        if (o <= 0) return fail("convolution output size not positive");
        out_sp *= o;
        ker *= k;
      }
    } else {
      // Stride/padding not recorded: the output dims the trace shows elsewhere (the backward's
      // grad_output, the next op's input). Weight dims give Cin/groups, so groups is not needed.
      // The output must be one a stride >= 1 and padding < kernel can give: 1 <= out <= in + k - 1.
      const auto& O = hints.output;
      if (O.size() != X.size() || O[0] != X[0] || O[1] != W[0])
        return fail("convolution stride/padding/dilation not recorded in Concrete Inputs");
      for (size_t i = 0; i < sp; ++i) {
        const double o = static_cast<double>(O[2 + i]);
        if (o < 1 || o > static_cast<double>(X[2 + i]) + static_cast<double>(W[2 + i]) - 1)
          return fail("convolution stride/padding/dilation not recorded in Concrete Inputs");
        out_sp *= static_cast<double>(O[2 + i]);
        ker *= static_cast<double>(W[2 + i]);
      }
      inferred_from = "; output " + dims_text(O) + " inferred from " + hints.output_from;
      c.estimate = "inferred";
    }
    c.kind = "conv";
    c.flops = 2 * N * Cout * out_sp * CinPerG * ker;
    c.bytes = (elems(X) + elems(W) + N * Cout * out_sp) * c.dtype_bytes;
    c.formula = "2*N*Cout*outspatial*(Cin/groups)*kernel, N=" + format_sig(N, 10) + " Cout=" + format_sig(Cout, 10) +
                " out=" + format_sig(out_sp, 10) + " Cin/g=" + format_sig(CinPerG, 10) + " k=" + format_sig(ker, 10) +
                inferred_from;
    return done();
  }
  // Convolution backward: the grad_input pass (grad_output convolved with the weight) and the
  // grad_weight pass (input correlated with grad_output) each take the forward's multiply-adds,
  // 2*N*Cout*out_spatial*(Cin/groups)*kernel, read from grad_output [N, Cout, out...] and weight
  // [Cout, Cin/groups, k...]: no stride or padding needed (torch.utils.flop_counter's
  // conv_backward_flop). Bytes: grad_output read; the grad_input pass reads the weight and writes
  // grad_input (input-shaped), the grad_weight pass reads the input and writes grad_weight.
  if (const ConvBwdOp* cb = find_conv_bwd(n)) {
    if (D.size() < 3) return fail("unexpected convolution backward shapes");
    const bool arg0_hinted = D[0].empty() && !hints.arg0.empty();
    auto tensor = [&](size_t i) -> const std::vector<int64_t>& { return i == 0 && arg0_hinted ? hints.arg0 : D[i]; };
    const auto &G = tensor(cb->go), &X = tensor(cb->x), &W = tensor(cb->w);
    if (G.size() < 3) return fail("unexpected convolution backward shapes (grad_output)");
    if (W.empty())
      return fail("weight size not recorded (an int list) and no enclosing convolution backward op records it");
    if (X.empty())
      return fail("input size not recorded (an int list) and no enclosing convolution backward op records it");
    if (W.size() != G.size() || X.size() != G.size() || W[0] != G[1] || X[0] != G[0])
      return fail("unexpected convolution backward shapes (grad_output, input and weight disagree)");
    if (cb->transposed >= 0 && static_cast<size_t>(cb->transposed) < conc.size() && truthy(conc[cb->transposed]))
      return fail("transposed convolution backward not modelled");
    if (!set_dtype(cb->go)) return fail("unknown dtype '" + type_at(cb->go) + "'");
    bool gi = cb->grad_input, gw = cb->grad_weight;
    std::string mask_note;
    if (gi && gw) {
      // output_mask: which gradients were asked for ("[True, True, False]" when recorded).
      const std::string mask = cb->mask >= 0 && static_cast<size_t>(cb->mask) < conc.size() ? conc[cb->mask] : "";
      std::vector<std::string> flags;
      if (mask.find("True") != std::string::npos || mask.find("False") != std::string::npos) {
        std::string cur;
        for (char ch : mask) {
          if (ch == '[' || ch == ']' || ch == ' ' || ch == '"') continue;
          if (ch == ',') {
            flags.push_back(cur);
            cur.clear();
          } else {
            cur += ch;
          }
        }
        flags.push_back(cur);
      }
      if (flags.size() >= 2) {
        gi = truthy(flags[0]);
        gw = truthy(flags[1]);
      } else {
        mask_note = " (output_mask not recorded: both gradients counted, an upper bound where the input needs none)";
        c.estimate = "upper_bound";
      }
    }
    const double N = G[0], Cout = G[1], CinPerG = W[1];
    const double out_sp = prod(G, 2), ker = prod(W, 2);
    const double pass = 2 * N * Cout * out_sp * CinPerG * ker;
    c.kind = "conv";
    c.flops = (gi ? pass : 0) + (gw ? pass : 0);
    c.bytes = (elems(G) + (gi ? elems(W) + elems(X) : 0) + (gw ? elems(X) + elems(W) : 0)) * c.dtype_bytes;
    c.formula = std::string(gi && gw ? "2 passes" : (gi ? "grad_input pass" : "grad_weight pass")) +
                " x 2*N*Cout*outspatial*(Cin/groups)*kernel, N=" + format_sig(N, 10) + " Cout=" + format_sig(Cout, 10) +
                " out=" + format_sig(out_sp, 10) + " Cin/g=" + format_sig(CinPerG, 10) + " k=" + format_sig(ker, 10) +
                mask_note;
    if (arg0_hinted) {
      c.formula += std::string("; ") + (cb->x == 0 ? "input" : "weight") + " " + dims_text(hints.arg0) +
                   " from the enclosing convolution backward op";
      if (c.estimate.empty()) c.estimate = "inferred";
    }
    return done();
  }
  return fail("unsupported op");
}

}  // namespace goblin::hw
