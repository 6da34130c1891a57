// The shapes a FLOP op's own record lacks, found elsewhere in its trace (hw/flop_count.h,
// OpCostHints in hw/roofline.h): Kineto before PyTorch 1.10 records Input Dims but no Concrete
// Inputs (a convolution's stride and padding) and records int-list arguments as [] (the cuDNN
// backward halves' input / weight size). Every hint is a fact of the same trace; op_cost marks
// the cost it prices `inferred` and names the source.
#include <fmt/format.h>

#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "hw/flop_count.h"
#include "hw/roofline.h"

namespace goblin::hw {

namespace {

using Dims = std::vector<int64_t>;

bool encloses(const CpuOpTable& ops, size_t outer, size_t inner) {
  return ops.start_ns[outer] <= ops.start_ns[inner] && ops.end_ns(inner) <= ops.end_ns(outer);
}

// How many same-thread ops after a convolution the next-op hint looks at: the op that consumes
// the output comes right after it (bias add, batch norm, activation); further on, a tensor of the
// same batch and channels need not be this output.
constexpr int kNextOps = 4;
// Rows scanned for them (other threads' ops interleave in start order).
constexpr size_t kNextRows = 4096;

}  // namespace

void infer_shape_hints(const Timeline& tl, FlopOps& sel) {
  const CpuOpTable& ops = tl.cpu_ops;
  std::unordered_map<StrId, std::optional<std::vector<Dims>>> parsed;
  auto dims_of = [&](size_t i) -> const std::optional<std::vector<Dims>>& {
    auto [it, fresh] = parsed.try_emplace(ops.input_dims[i]);
    if (fresh) it->second = parse_input_dims(tl.str(ops.input_dims[i]));
    return it->second;
  };
  // (input dims, weight dims) → grad_output dims of the convolution backward ops that record all
  // three; nullopt where two backwards with the same input and weight disagree (two strides).
  std::map<std::pair<Dims, Dims>, std::optional<Dims>> grad_output_of;
  for (const auto& [tid, v] : sel.by_tid)
    for (size_t i : v) {
      const auto args = conv_backward_args(tl.str(ops.name[i]));
      if (!args) continue;
      const auto& d = dims_of(i);
      if (!d || d->size() < 3) continue;
      const Dims &x = (*d)[args->x], &go = (*d)[args->go], &w = (*d)[args->w];
      if (x.size() < 3 || go.size() != x.size() || w.size() != x.size()) continue;
      auto [it, fresh] = grad_output_of.try_emplace({x, w}, go);
      if (!fresh && it->second && *it->second != go) it->second.reset();
    }

  for (const auto& [tid, v] : sel.by_tid)
    for (size_t k = 0; k < v.size(); ++k) {
      const size_t i = v[k];
      if (sel.composite.count(i)) continue;
      const std::string_view name = tl.str(ops.name[i]);
      const auto args = conv_backward_args(name);
      if (args) {
        // A cuDNN / MIOpen backward half: argument 0 (input or weight size) from the enclosing
        // *_convolution_backward, the nearest FLOP op of the thread that contains it.
        if (args->grad_input && args->grad_weight) continue;
        const auto& d = dims_of(i);
        if (!d || d->size() < 3 || !(*d)[0].empty()) continue;
        for (size_t j = k; j-- > 0 && k - j <= 8;) {
          const size_t p = v[j];
          if (!encloses(ops, p, i)) continue;
          const auto pargs = conv_backward_args(tl.str(ops.name[p]));
          const auto& pd = dims_of(p);
          if (!pargs || !pargs->grad_input || !pargs->grad_weight) break;
          if (!pd || pd->size() < 3 || (*pd)[pargs->go] != (*d)[args->go]) break;
          const Dims& a0 = args->grad_input ? (*pd)[pargs->x] : (*pd)[pargs->w];
          if (!a0.empty()) sel.hints[i].arg0 = a0;
          break;
        }
        continue;
      }
      if (!is_conv_forward_op(name)) continue;
      const auto& d = dims_of(i);
      if (!d || d->size() < 2) continue;
      const Dims &x = (*d)[0], &w = (*d)[1];
      if (x.size() < 3 || w.size() != x.size()) continue;
      auto conc = parse_string_list(tl.str(ops.concrete_inputs[i]));
      if (conc && conc->size() > 5 && !(*conc)[3].empty()) continue;  // stride recorded: op_cost computes it
      if (auto g = grad_output_of.find({x, w}); g != grad_output_of.end() && g->second) {
        sel.hints[i].output = *g->second;
        sel.hints[i].output_from = "the grad_output of its backward (same input and weight dims)";
        continue;
      }
      // The next op of the thread after the convolution ends, whose first argument is [N, Cout, ...]
      int seen = 0;
      for (size_t r = i + 1; r < ops.size() && r <= i + kNextRows && seen < kNextOps; ++r) {
        if (ops.tid[r] != ops.tid[i] || ops.kind[r] != CpuOpKind::Op || ops.start_ns[r] < ops.end_ns(i)) continue;
        ++seen;
        const auto& nd = dims_of(r);
        if (!nd || nd->empty()) continue;
        const Dims& o = (*nd)[0];
        if (o.size() != x.size() || o[0] != x[0] || o[1] != w[0]) continue;
        sel.hints[i].output = o;
        sel.hints[i].output_from = fmt::format("the input of the next op on its thread ({})", tl.str(ops.name[r]));
        break;
      }
    }
}

}  // namespace goblin::hw
