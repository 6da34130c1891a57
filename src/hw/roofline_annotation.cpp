// The roofline's collective_annotation tier (hw/roofline_annotation.h; the knowledge and its
// sources are data/op_models.yaml nccl_annotations).
#include "hw/roofline_annotation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "hw/roofline.h"

namespace goblin::hw {

void ThreadIntervals::add(int64_t s, int64_t e, size_t r) {
  start.push_back(s);
  end.push_back(e);
  row.push_back(r);
  max_dur = std::max(max_dur, e - s);
}

void ThreadIntervals::sort() {
  std::vector<size_t> order(start.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return start[a] < start[b]; });
  auto permute = [&](auto& v) {
    auto copy = v;
    for (size_t i = 0; i < order.size(); ++i) v[i] = copy[order[i]];
  };
  permute(start);
  permute(end);
  permute(row);
}

std::optional<size_t> ThreadIntervals::innermost(int64_t ts) const {
  const auto first_after = std::upper_bound(start.begin(), start.end(), ts);
  for (auto i = static_cast<size_t>(first_after - start.begin()); i-- > 0;) {
    // Unsigned: times lie within +-2^62 (Timeline::validate), so the difference fits.
    if (static_cast<uint64_t>(ts) - static_cast<uint64_t>(start[i]) > static_cast<uint64_t>(max_dur)) break;
    if (end[i] >= ts) return row[i];  // the latest-starting interval holding ts is the innermost
  }
  return std::nullopt;
}

NcclAnnotations::NcclAnnotations(const Timeline& tl, const OpModels& m) : tl_(tl), m_(m) {
  if (m.nccl_annotations.empty()) return;
  const AnnotationTable& an = tl.annotations;
  for (size_t i = 0; i < an.size(); ++i) {
    if (an.on_gpu[i] || an.input_dims[i] == kNoStr || an.input_types[i] == kNoStr) continue;
    if (!m.nccl_annotation(tl.str(an.name[i]))) continue;
    by_thread_[{an.pid[i], an.tid[i]}].add(an.start_ns[i], an.end_ns(i), i);
  }
  if (by_thread_.empty()) return;
  for (auto& [t, iv] : by_thread_) iv.sort();
  // The group size, where PyTorch records it: on the record_param_comms op around the collective
  // (its collectives row, joined to the op's thread by External id).
  const CollectiveTable& C = tl.collectives;
  for (size_t i = 0; i < C.size(); ++i) {
    if (C.on_gpu[i] || C.group_size[i] <= 0 || C.external_id[i] == kNone) continue;
    if (auto op = tl.cpu_op_by_external_id(C.external_id[i]))
      comms_[{tl.cpu_ops.pid[*op], tl.cpu_ops.tid[*op]}].add(C.start_ns[i], C.end_ns(i), i);
  }
  for (auto& [t, iv] : comms_) iv.sort();
}

std::optional<AnnotatedCollective> NcclAnnotations::price(int64_t corr) const {
  if (by_thread_.empty() || corr == kNone) return std::nullopt;
  const auto rt = tl_.runtime_by_correlation(corr);
  if (!rt) return std::nullopt;
  const Thread thread{tl_.runtime.pid[*rt], tl_.runtime.tid[*rt]};
  const auto t = by_thread_.find(thread);
  if (t == by_thread_.end()) return std::nullopt;
  const int64_t ts = tl_.runtime.start_ns[*rt];
  const auto a = t->second.innermost(ts);
  if (!a) return std::nullopt;
  const AnnotationTable& an = tl_.annotations;
  const OpModels::NcclAnnotation& rule = *m_.nccl_annotation(tl_.str(an.name[*a]));
  const auto dims = parse_input_dims(tl_.str(an.input_dims[*a]));
  const auto types = parse_string_list(tl_.str(an.input_types[*a]));
  if (!dims || !types || dims->size() != types->size()) return std::nullopt;
  AnnotatedCollective c;
  c.title = rule.title;
  c.collective = rule.collective;
  for (size_t i = 0; i < dims->size(); ++i) {
    if ((*types)[i].empty()) continue;  // not a tensor
    const int eb = dtype_bytes((*types)[i]);
    if (eb == 0) return std::nullopt;  // a tensor of unknown element size: no message
    double n = 1;
    for (int64_t d : (*dims)[i]) {
      if (d < 0) return std::nullopt;
      n *= static_cast<double>(d);
    }
    c.input_bytes += n * eb;
    if (c.dtype.empty()) c.dtype = normalize_dtype((*types)[i]);
  }
  if (!(c.input_bytes > 0) || !std::isfinite(c.input_bytes)) return std::nullopt;
  if (auto cm = comms_.find(thread); cm != comms_.end())
    if (auto r = cm->second.innermost(ts)) c.ranks = tl_.collectives.group_size[*r];
  const bool known = c.ranks > 0;
  auto model = model_collective(m_, c.collective, c.input_bytes,
                                rule.output_n_x_input && known ? c.input_bytes * c.ranks : 0, known ? c.ranks : 0);
  if (!model || !(model->size_bytes > 0)) return std::nullopt;  // all_gather without the group size
  c.model = *model;
  std::string tensors = fmt::format("{} {}", tl_.str(an.input_dims[*a]), tl_.str(an.input_types[*a]));
  if (tensors.size() > 160) tensors = tensors.substr(0, 157) + "...";  // a coalesced call lists many
  c.formula = known ? fmt::format(
                          "S from the {} annotation around the launch (its input tensors {}), n from the enclosing "
                          "record_param_comms op's Group size; {}",
                          c.title, tensors, model->formula)
                    : fmt::format(
                          "S from the {} annotation around the launch (its input tensors {}): S = {:.0f} bytes; group "
                          "size not recorded: algBw = S/t only, no busBw",
                          c.title, tensors, model->size_bytes);
  return c;
}

}  // namespace goblin::hw
