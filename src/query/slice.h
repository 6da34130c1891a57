// `goblin export`: a window of one or more traces written back as one Kineto (chrome trace JSON)
// file a viewer can open — Perfetto UI and chrome://tracing choke on multi-GB traces, a few steps
// of one open at once.
//
// Window: the union of the chosen steps' GPU windows and their CPU ProfilerStep spans (so the
// launches of the first kernel are kept), or [from, to) ms after the trace's first event. An
// event is kept when it starts inside the window: every kind the model holds (GPU ops, runtime
// calls, CPU ops and Python frames with their ids, annotations, forward-backward flows,
// collective metadata on their kernels and CPU ops), with its correlation and External ids; a
// launch flow (ac2g) is written for each kept GPU op whose launch is kept too. GPU ops that run
// into the window from before it are kept too (their time inside the window counts in the first
// step's figures). An annotation that starts inside and ends past the window is trimmed at its
// end, one that starts before it is dropped, and only the ProfilerSteps asked for are kept, so a
// slice holds exactly those steps, none cut. Times are written unchanged (same
// baseTimeNanoseconds), so the slice read back gives the same per-step figures.
//
// Several traces (ranks): one merged file, one process per rank (pid = rank, named "rank N"),
// each rank's times moved onto the earliest rank's epoch base when every trace carries one.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/timeline.h"

namespace goblin::query {

struct SliceSpec {
  std::optional<std::pair<int64_t, int64_t>> steps;  // first..last step number (inclusive)
  std::optional<double> from_ms, to_ms;              // after the trace's first event
};

// "5-7" or "5" → {5, 7}; a Usage error otherwise.
Result<std::pair<int64_t, int64_t>> parse_step_range(const std::string& s);

struct Window {
  int64_t start_ns = 0, end_ns = 0;  // [start, end)
  std::vector<std::string> steps;    // the steps it covers (names)
};

// The window of `spec` in `tl`: NotFound when no step matches, Usage for an empty time range.
Result<Window> slice_window(const Timeline& tl, const SliceSpec& spec);

struct SliceInput {
  const Timeline* timeline = nullptr;
  int64_t rank = 0;
  Window window;
  // The source's top-level keys and metadata events ("ph": "M"), verbatim
  // (trace::read_kineto_header): written back for one trace so Perfetto names its tracks; empty
  // when the source is not Kineto. Several traces get one process name per rank instead.
  std::vector<std::pair<std::string, std::string>> top_level;
  std::vector<std::string> metadata_events;
};

struct SliceStats {
  int64_t events = 0, gpu_ops = 0, flows = 0;
  bool clocks_aligned = true;  // several ranks: every trace had an epoch base
};

// Writes the slice of every input (one: as the trace was; several: merged, one process per rank)
// to `path` through AtomicFile, gzip when the name ends in .gz.
Result<SliceStats> write_kineto_slice(const std::vector<SliceInput>& inputs, const std::string& path);

}  // namespace goblin::query
