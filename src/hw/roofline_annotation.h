// The roofline's collective_annotation tier (data/op_models.yaml nccl_annotations): an NCCL/RCCL
// kernel with no collective metadata and no c10d op with sizes, sized from the "nccl:<collective>"
// user annotation that encloses its launch on the launching thread, whose Input Dims / Input type
// are the collective's input tensors (ProcessGroupNCCL gives them to its record_function).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hw/op_models.h"
#include "model/timeline.h"

namespace goblin::hw {

// What the annotation around a kernel's launch says of its collective.
struct AnnotatedCollective {
  std::string title;       // "nccl:all_reduce"
  std::string collective;  // all_reduce, as data/op_models.yaml collectives names it
  std::string dtype;       // normalised dtype of the first tensor (fp32, bf16, ...)
  double input_bytes = 0;  // Σ elements × element size over the annotation's tensors
  int64_t ranks = kNone;   // group size, from the enclosing record_param_comms op when recorded
  CollectiveModel model;   // S and the bus-bandwidth factor (`collectives`)
  std::string formula;
};

// Intervals of one thread in start order, and the innermost one holding a time (the latest start
// whose end is not before it). Rows of any table, by index.
struct ThreadIntervals {
  std::vector<int64_t> start, end;
  std::vector<size_t> row;
  int64_t max_dur = 0;
  void add(int64_t s, int64_t e, size_t r);
  void sort();                                        // by start, once every row is added
  std::optional<size_t> innermost(int64_t ts) const;  // after sort()
};

class NcclAnnotations {
 public:
  NcclAnnotations(const Timeline& tl, const OpModels& m);
  bool empty() const { return by_thread_.empty(); }
  // The collective of the kernel launched by the runtime call of correlation `corr`: nullopt when
  // no listed annotation with sizes encloses the launch, or its tensors give no message.
  std::optional<AnnotatedCollective> price(int64_t corr) const;

 private:
  using Thread = std::pair<int64_t, int64_t>;  // (pid, tid)
  const Timeline& tl_;
  const OpModels& m_;
  std::map<Thread, ThreadIntervals> by_thread_;  // nccl:<collective> annotations with sizes (rows)
  std::map<Thread, ThreadIntervals> comms_;      // collectives rows of record_param_comms with a group size
};

}  // namespace goblin::hw
