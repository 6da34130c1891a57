// Evaluates data/op_models.yaml: op classes from recorded shapes, kernel classes from their name
// and grid, collectives by the NCCL bus-bandwidth factors (hw/op_models.h).
#include "hw/op_models.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "core/json.h"
#include "core/text.h"
#include "hw/roofline.h"

namespace goblin::hw {

namespace {

std::string str(const YAML::Node& n, const char* key) {
  return n[key] && n[key].IsScalar() ? n[key].as<std::string>() : std::string();
}
double num(const YAML::Node& n, const char* key, double dflt) {
  return n[key] && n[key].IsScalar() ? n[key].as<double>() : dflt;
}
std::vector<std::string> strs(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n && n.IsSequence())
    for (const auto& x : n) out.push_back(x.as<std::string>());
  else if (n && n.IsScalar())
    out.push_back(n.as<std::string>());
  return out;
}

// One tensor argument of "Input Dims": its tensors' element counts (a TensorList holds several;
// a scalar or an unrecorded list none).
using ArgElems = std::vector<double>;
std::optional<std::vector<ArgElems>> parse_arg_elems(std::string_view text) {
  Json j = Json::parse(text, nullptr, false);
  if (!j.is_array()) return std::nullopt;
  std::vector<ArgElems> out;
  out.reserve(j.size());
  for (const auto& a : j) {
    ArgElems e;
    auto shape_elems = [](const Json& s) -> std::optional<double> {
      if (!s.is_array() || s.empty()) return std::nullopt;
      double p = 1;
      for (const auto& x : s) {
        if (!x.is_number_integer()) return std::nullopt;
        p *= static_cast<double>(x.get<int64_t>());
      }
      return p;
    };
    if (auto p = shape_elems(a)) {
      e.push_back(*p);
    } else if (a.is_array()) {  // TensorList: a list of shapes
      for (const auto& s : a)
        if (auto q = shape_elems(s)) e.push_back(*q);
    }
    out.push_back(std::move(e));
  }
  return out;
}

double sum(const ArgElems& e) {
  double s = 0;
  for (double x : e) s += x;
  return s;
}

std::optional<std::vector<int64_t>> shape_at(std::string_view dims_text, size_t i) {
  auto d = parse_input_dims(dims_text);
  if (!d || i >= d->size()) return std::nullopt;
  return (*d)[i];
}

std::optional<int> arg_index(const std::string& spec, const char* prefix) {
  const std::string p = prefix;
  if (spec.rfind(p, 0) != 0) return std::nullopt;
  try {
    return std::stoi(spec.substr(p.size()));
  } catch (...) {
    return std::nullopt;
  }
}

// Blocks of a grid / threads of a block; 0 when the x extent is unknown (y, z of 0 read as 1).
double dim_volume(const Dim3& d) {
  return static_cast<double>(d[0]) * std::max<uint32_t>(d[1], 1) * std::max<uint32_t>(d[2], 1);
}

}  // namespace

const OpClassRule* OpModels::rule(std::string_view op) const {
  auto it = by_op.find(std::string(op));
  return it == by_op.end() ? nullptr : &rules[it->second];
}

const OpModels::C10dOp* OpModels::c10d_op(std::string_view op) const {
  for (const auto& c : c10d_ops)
    if (c.op == op) return &c;
  return nullptr;
}

const OpModels::NcclAnnotation* OpModels::nccl_annotation(std::string_view title) const {
  for (const auto& a : nccl_annotations)
    if (a.title == title) return &a;
  return nullptr;
}

std::string OpModels::cite(const std::string& id) const {
  auto it = documents.find(id);
  return it == documents.end() ? id : it->second;
}

Result<OpModels> parse_op_models(const std::string& text) {
  OpModels m;
  try {
    YAML::Node root = YAML::Load(text);
    for (const auto& d : root["documents"])
      m.documents[d.first.as<std::string>()] = str(d.second, "title") + " <" + str(d.second, "url") + ">";
    for (const auto& t : root["kernel_dtype_tokens"])
      m.dtype_tokens.push_back({str(t, "token"), str(t, "dtype"), static_cast<int>(num(t, "bytes", 0))});
    if (const auto mt = root["multi_tensor"]) {
      m.multi_tensor_token = str(mt, "kernel_token");
      m.chunk_elements = num(mt, "chunk_elements", 0);
      m.multi_tensor_source = str(mt, "source");
      for (const auto& f : mt["functors"])
        m.functors.push_back({str(f, "token"), str(f, "class"), str(f, "formula"), str(f, "source"),
                              num(f, "accesses", 0), num(f, "flops_per_element", 0)});
    }
    if (const auto c = root["collectives"]) {
      m.collectives_source = str(c, "source");
      for (const auto& k : c["kinds"]) m.collectives.push_back({strs(k["names"]), str(k, "size"), str(k, "factor")});
    }
    if (const auto c = root["c10d_ops"]) {
      m.c10d_source = str(c, "source");
      for (const auto& o : c["ops"])
        m.c10d_ops.push_back({str(o, "op"), str(o, "collective"), static_cast<int>(num(o, "input_arg", -1)),
                              static_cast<int>(num(o, "output_arg", -1)), str(o, "ranks")});
    }
    if (const auto c = root["nccl_annotations"]) {
      m.nccl_annotations_source = str(c, "source");
      m.param_comms_source = str(c, "group_size_source");
      for (const auto& a : c["titles"])
        m.nccl_annotations.push_back({str(a, "title"), str(a, "collective"), str(a, "message") == "n_x_input"});
    }
    for (const auto& g : root["kernel_grid_classes"])
      m.grid_classes.push_back({str(g, "category"), str(g, "formula"), str(g, "source"), num(g, "accesses", 1)});
    for (const auto& r : root["op_classes"]) {
      OpClassRule x;
      x.cls = str(r, "class");
      x.model = str(r, "model");
      x.formula = str(r, "formula");
      x.source = str(r, "source");
      if (x.cls.empty() || x.model.empty() || x.source.empty())
        return make_error(ErrorKind::Malformed, "op_models.yaml: an op class needs class, model and source");
      if (r["read"] && r["read"].IsSequence()) {
        x.read_all = false;
        for (const auto& i : r["read"]) x.read.push_back(i.as<int>());
      }
      x.write = strs(r["write"]);
      if (x.write.empty()) x.write.push_back("largest");
      x.flops_per_element = num(r, "flops_per_element", 0);
      x.q_arg = static_cast<int>(num(r, "q_arg", 0));
      x.k_arg = static_cast<int>(num(r, "k_arg", 1));
      x.kv_tokens_arg = static_cast<int>(num(r, "kv_tokens_arg", -1));
      x.max_seqlen_k_concrete = static_cast<int>(num(r, "max_seqlen_k_concrete", -1));
      x.causal_concrete = static_cast<int>(num(r, "causal_concrete", -1));
      m.rules.push_back(x);
      for (const auto& op : strs(r["ops"])) m.by_op.emplace(op, m.rules.size() - 1);
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, fmt::format("op_models.yaml: {}", e.what()), "data/op_models.yaml", -1,
                      e.mark.line + 1);
  }
  return m;
}

const OpModels::DtypeToken* kernel_dtype(const OpModels& m, std::string_view kernel_name) {
  // Only the name's head: deep template arguments of long names name unrelated types.
  const std::string n = ascii_lower(kernel_name.substr(0, 400));
  for (const auto& t : m.dtype_tokens)
    if (n.find(t.token) != std::string::npos) return &t;
  return nullptr;
}

std::optional<ModelCost> model_op(const OpModels& m, const OpClassRule& r, std::string_view dims_text,
                                  std::string_view types_text, std::string_view concrete_text, int fallback_bytes,
                                  std::string* why) {
  auto fail = [&](std::string w) -> std::optional<ModelCost> {
    if (why) *why = std::move(w);
    return std::nullopt;
  };
  auto args = parse_arg_elems(dims_text);
  if (!args || args->empty()) return fail("no Input Dims recorded (profile with record_shapes=True)");
  auto types = parse_string_list(types_text).value_or(std::vector<std::string>{});
  auto conc = parse_string_list(concrete_text).value_or(std::vector<std::string>{});
  // A 0-dim tensor is recorded as [] with a tensor dtype (a Scalar's type is "Scalar"): 1 element.
  for (size_t i = 0; i < args->size() && i < types.size(); ++i)
    if ((*args)[i].empty() && dtype_bytes(types[i]) > 0) (*args)[i].push_back(1);
  const auto& A = *args;
  // Element size per argument; a TensorList or unrecorded dtype takes the op's first known one.
  std::vector<int> bytes(A.size(), 0);
  int first_known = 0;
  std::string dtype;
  for (size_t i = 0; i < A.size(); ++i) {
    bytes[i] = i < types.size() ? dtype_bytes(types[i]) : 0;
    if (bytes[i] && !first_known && !A[i].empty()) {
      first_known = bytes[i];
      dtype = normalize_dtype(types[i]);
    }
  }
  if (!first_known) first_known = fallback_bytes;
  if (!first_known) return fail("no tensor dtype recorded");
  for (size_t i = 0; i < A.size(); ++i)
    if (!bytes[i]) bytes[i] = first_known;
  ModelCost c;
  c.cls = r.cls;
  c.dtype = dtype;
  c.dtype_bytes = first_known;
  c.formula = r.formula;
  c.source = m.cite(r.source);
  auto arg_bytes = [&](size_t i) { return i < A.size() ? sum(A[i]) * bytes[i] : 0.0; };

  // multi_tensor ops (foreach, fused optimizers) whose TensorList shapes were recorded (recent
  // PyTorch) are priced like any op; without them their kernels are priced by the grid.
  if (r.model == "tensors" || r.model == "multi_tensor") {
    double read = 0, read_elems = 0;
    for (size_t i = 0; i < A.size(); ++i) {
      bool is_read = r.read_all || std::find(r.read.begin(), r.read.end(), static_cast<int>(i)) != r.read.end();
      if (!is_read) continue;
      read += arg_bytes(i);
      read_elems += sum(A[i]);
    }
    double written = 0, write_elems = 0;
    for (const auto& w : r.write) {
      if (w == "none") continue;
      if (w == "largest") {
        size_t best = 0;
        for (size_t i = 1; i < A.size(); ++i)
          if (sum(A[i]) > sum(A[best])) best = i;
        write_elems += sum(A[best]);
        written += sum(A[best]) * bytes[0];
      } else if (w == "self") {
        write_elems += sum(A[0]);
        written += arg_bytes(0);
      } else if (auto a = arg_index(w, "arg:")) {
        if (*a < 0 || static_cast<size_t>(*a) >= A.size()) return fail("write argument " + w + " not recorded");
        write_elems += sum(A[*a]);
        written += arg_bytes(*a);
      } else if (auto rw = arg_index(w, "rows:")) {
        if (*rw < 0 || static_cast<size_t>(*rw) >= A.size()) return fail("row argument " + w + " not recorded");
        // one element of argument 0 gathered per element of the index argument
        write_elems += sum(A[*rw]);
        written += sum(A[*rw]) * bytes[0];
      }
    }
    c.bytes = read + written;
    c.flops = r.flops_per_element * (write_elems > 0 ? write_elems : read_elems);
    if (c.bytes <= 0) return fail("no tensor elements recorded");
    return c;
  }
  if (r.model == "embedding") {
    // weight is argument 0; the index is the last integer-typed tensor argument
    auto w = shape_at(dims_text, 0);
    if (!w || w->size() < 2) return fail("unexpected embedding weight shape");
    double row = 1;
    for (size_t i = 1; i < w->size(); ++i) row *= static_cast<double>((*w)[i]);
    int idx = -1;
    for (size_t i = 1; i < A.size() && i < types.size(); ++i)
      if (!A[i].empty() && normalize_dtype(types[i]).rfind("int", 0) == 0) idx = static_cast<int>(i);
    if (idx < 0) return fail("embedding indices not recorded");
    c.bytes = arg_bytes(idx) + 2 * sum(A[idx]) * row * bytes[0];
    return c;
  }
  if (r.model == "embedding_backward") {
    auto g = shape_at(dims_text, 0);
    if (!g || g->empty() || A.size() < 2) return fail("unexpected embedding backward shapes");
    double num_weights = 0;
    try {
      if (conc.size() > 2 && !conc[2].empty()) num_weights = std::stod(conc[2]);
    } catch (...) {
    }
    if (num_weights <= 0) return fail("num_weights not recorded in Concrete Inputs");
    c.bytes = arg_bytes(0) + arg_bytes(1) + num_weights * static_cast<double>(g->back()) * bytes[0];
    return c;
  }
  if (r.model == "scaled_mm" || r.model == "grouped_mm") {
    auto a = shape_at(dims_text, 0), b = shape_at(dims_text, 1);
    if (!a || !b || a->size() < 2 || b->size() < 2) return fail("unexpected GEMM shapes");
    const std::string ta = types.empty() ? "" : ascii_lower(types[0]);
    const bool fp4 = ta.find("float4") != std::string::npos;
    double pack = fp4 ? 2 : 1;  // FP4 stores two values per byte: the recorded K is half
    double M = static_cast<double>((*a)[a->size() - 2]), K = static_cast<double>(a->back()) * pack,
           N = static_cast<double>(b->back());
    double G = 1;
    if (r.model == "grouped_mm" && a->size() == 3) G = static_cast<double>((*a)[0]);  // 3d x 3d
    c.engine = "matrix";
    c.dtype = fp4 ? "fp4" : (ta.find("float8") != std::string::npos ? "fp8" : dtype);
    c.dtype_bytes = fp4 ? 1 : first_known;
    c.flops = 2 * G * M * N * K;
    double in = 0;
    for (size_t i = 0; i < A.size(); ++i) in += arg_bytes(i);  // A, B, scales, offsets, bias
    c.bytes = in + G * M * N * 2;                              // output in bf16 unless recorded otherwise
    c.formula = fmt::format("{}; M={} N={} K={}{}", r.formula, format_sig(M, 10), format_sig(N, 10), format_sig(K, 10),
                            G > 1 ? fmt::format(" groups={}", format_sig(G, 10)) : "");
    return c;
  }
  if (r.model == "varlen_attention") {
    auto q = shape_at(dims_text, r.q_arg), k = shape_at(dims_text, r.k_arg);
    if (!q || !k || q->size() != 3 || k->size() < 2) return fail("unexpected varlen attention shapes");
    double total_q = static_cast<double>((*q)[0]), hq = static_cast<double>((*q)[1]), d = static_cast<double>((*q)[2]);
    double hkv = static_cast<double>((*k)[k->size() - 2]), dk = static_cast<double>(k->back());
    double max_k = 0;
    try {
      if (r.max_seqlen_k_concrete >= 0 && static_cast<size_t>(r.max_seqlen_k_concrete) < conc.size())
        max_k = std::stod(conc[r.max_seqlen_k_concrete]);
    } catch (...) {
    }
    if (max_k <= 0) return fail("max_seqlen_k not recorded in Concrete Inputs");
    bool causal = r.causal_concrete >= 0 && static_cast<size_t>(r.causal_concrete) < conc.size() &&
                  (conc[r.causal_concrete] == "True" || conc[r.causal_concrete] == "true");
    double kv_tokens = r.kv_tokens_arg >= 0 && static_cast<size_t>(r.kv_tokens_arg) < A.size()
                           ? sum(A[r.kv_tokens_arg])
                           : static_cast<double>((*k)[0]);
    c.engine = "matrix";
    c.cls = r.cls;
    c.flops = 4 * hq * d * total_q * max_k * (causal ? 0.5 : 1.0);
    c.bytes = (2 * total_q * hq * d + 2 * kv_tokens * hkv * dk) * first_known;
    c.estimate = "upper_bound";
    c.formula = fmt::format("{}; totalQ={} Hq={} Hkv={} D={} max_seqlen_k={}{}", r.formula, format_sig(total_q, 10),
                            format_sig(hq, 10), format_sig(hkv, 10), format_sig(d, 10), format_sig(max_k, 10),
                            causal ? " causal" : "");
    return c;
  }
  return fail("unknown model '" + r.model + "'");
}

std::optional<ModelCost> model_multi_tensor_kernel(const OpModels& m, std::string_view kernel_name, Dim3 grid) {
  if (m.multi_tensor_token.empty() || m.chunk_elements <= 0) return std::nullopt;
  const std::string n = ascii_lower(kernel_name.substr(0, 400));
  if (n.find(m.multi_tensor_token) == std::string::npos) return std::nullopt;
  const OpModels::Functor* f = nullptr;
  for (const auto& x : m.functors)
    if (n.find(x.token) != std::string::npos) {
      f = &x;
      break;
    }
  if (!f) return std::nullopt;
  double blocks = dim_volume(grid);
  if (blocks <= 0) return std::nullopt;
  const auto* dt = kernel_dtype(m, kernel_name);
  ModelCost c;
  c.cls = f->cls;
  c.dtype = dt ? dt->dtype : "";
  c.dtype_bytes = dt ? dt->bytes : 4;
  double elems = blocks * m.chunk_elements;
  c.bytes = elems * f->accesses * c.dtype_bytes;
  c.flops = elems * f->flops_per_element;
  c.estimate = "upper_bound";
  c.formula = fmt::format("{}; elements <= {} blocks x {}{}", f->formula, format_sig(blocks, 10),
                          format_sig(m.chunk_elements, 10), dt ? "" : " (dtype not in the name: 4 bytes assumed)");
  c.source = m.cite(f->source);
  return c;
}

std::optional<ModelCost> model_grid_kernel(const OpModels& m, std::string_view category, std::string_view kernel_name,
                                           Dim3 grid, Dim3 block) {
  const OpModels::GridClass* g = nullptr;
  for (const auto& x : m.grid_classes)
    if (x.category == category) g = &x;
  if (!g) return std::nullopt;
  double threads = dim_volume(grid) * dim_volume(block);
  if (threads <= 0) return std::nullopt;
  const auto* dt = kernel_dtype(m, kernel_name);
  ModelCost c;
  c.cls = std::string(category);
  c.dtype = dt ? dt->dtype : "";
  c.dtype_bytes = dt ? dt->bytes : 1;
  c.bytes = threads * g->accesses * c.dtype_bytes;
  c.flops = 0;
  c.estimate = "lower_bound";
  c.formula = fmt::format("{}; threads={}{}", g->formula, format_sig(threads, 10),
                          dt ? "" : " (dtype not in the name: 1 byte)");
  c.source = m.cite(g->source);
  return c;
}

std::optional<CollectiveModel> model_collective(const OpModels& m, std::string_view name, double in_bytes,
                                                double out_bytes, int64_t ranks) {
  const std::string n = ascii_lower(name);
  for (const auto& k : m.collectives) {
    if (std::find(k.names.begin(), k.names.end(), n) == k.names.end()) continue;
    CollectiveModel c;
    double r = ranks > 0 ? static_cast<double>(ranks) : 1;
    c.size_bytes = k.size == "output" ? out_bytes : (k.size == "output_times_n" ? out_bytes * r : in_bytes);
    if (k.size == "output_times_n" && out_bytes <= 0) c.size_bytes = in_bytes;
    if (k.factor == "2*(n-1)/n")
      c.busbw_factor = 2 * (r - 1) / r;
    else if (k.factor == "(n-1)/n")
      c.busbw_factor = (r - 1) / r;
    else
      c.busbw_factor = 1;
    c.formula = fmt::format("busBw = S/t * {} (n={}), S = {} bytes", k.factor, ranks, k.size);
    return c;
  }
  return std::nullopt;
}

}  // namespace goblin::hw
