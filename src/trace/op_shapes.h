// Input shapes recorded in one step, given to the others by their op sequence (issue 30).
//
// Boxing every op's inputs for their shapes is the largest part of what goblin's operator
// observer costs a launch-bound step (~0.85 µs per op, ~17 ms of the HF Trainer's step,
// bench/results/tracer, 2026-11-26). A training step repeats its op sequence,
// so goblin's hook records input shapes and nn.Module frames in each recorded window's first step
// only and names after it (GOBLIN_TRACER_SHAPES=first, docs/tracer.md), and says so in the
// trace's metadata (`goblin_tracer_shapes: "first_step"`). This pass, run by the reader on such a
// trace, gives every later step's ops the shapes and types of the matching op of the nearest
// earlier step that has them (the template), and re-creates the template's nn.Module frames
// around the matching ops.
//
// Matching: per thread, the step's ops in start order against the template's, by name, as the
// longest common subsequence (Myers' diff, bounded): an op of a later step takes the shapes of
// the template op it is paired with, an op left unpaired (a logging `aten::item` that falls on
// the other side of the step edge) keeps its name only. A step whose sequence differs in more
// than kMaxUnpairedShare of its ops (or by more than the diff's bound) is refused as a whole: its
// ops keep names only. What was mapped and refused is written into the Timeline's metadata
// (`goblin_shapes_mapped`), the count of refused steps into a warning-free note there too.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "model/timeline.h"

namespace goblin::trace {

// A later step is refused when more than this share of its ops (or of the template's) is unpaired.
inline constexpr double kMaxUnpairedShare = 0.01;

struct ShapeMapStep {
  std::string name;  // ProfilerStep#N
  std::string role;  // "template", "mapped", "refused", "no ops"
  size_t ops = 0, paired = 0, unpaired = 0, modules_added = 0;
  std::string reason;  // for "refused"
};
struct ShapeMapResult {
  bool applied = false;  // the trace asked for it (goblin_tracer_shapes: "first_step")
  std::vector<ShapeMapStep> steps;
  size_t ops_given_shapes = 0, modules_added = 0, steps_refused = 0;
};

// Pairs two name sequences: the longest common subsequence within `max_edits` insertions and
// deletions (Myers' O((N + M) D) diff). Returns (i, j) pairs in order, or false when more edits
// are needed.
bool pair_sequences(const std::vector<StrId>& a, const std::vector<StrId>& b, size_t max_edits,
                    std::vector<std::pair<size_t, size_t>>& pairs);

// Runs the pass over the CPU ops from row `op_begin` and the annotations from `ann_begin` (the
// rows one file added; before or after Timeline::finish(), it sorts what it needs). Appends the
// nn.Module frames it re-creates to tl.cpu_ops (a finished Timeline must then be finished again).
// Does nothing unless tl.meta.extra["goblin_tracer_shapes"] is "first_step"; writes
// tl.meta.extra["goblin_shapes_mapped"] (JSON) when it ran.
ShapeMapResult map_first_step_shapes(Timeline& tl, size_t op_begin = 0, size_t ann_begin = 0);

}  // namespace goblin::trace
