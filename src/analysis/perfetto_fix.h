// perfetto-fix: Perfetto's JSON importer requires slices on one (pid, tid) track to nest; GPU
// kernels that overlap on one stream (PDL / programmatic dependent launch on Hopper, ROCm
// queues, graph replays) are partially overlapping slices, which Perfetto drops or mis-draws.
// This rewrites the trace so that each overlapping kernel moves to an extra track
// "<tid>_hack<N>" of the same pid (first-fit lanes: a kernel stays on the lowest lane whose last
// kernel ended at or before it starts), adds thread_name metadata for the extra tracks, and
// moves the ac2g flow-finish events bound to moved kernels with them so the launch arrows keep
// pointing at the right slice. Everything else is copied byte for byte (the input text is
// spliced, not re-serialised), so unknown fields survive.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace goblin::analysis {

struct PerfettoFixStats {
  int64_t events = 0;        // elements of traceEvents
  int64_t gpu_events = 0;    // X events of cat kernel / gpu_memcpy / gpu_memset
  int64_t moved = 0;         // GPU events moved to an extra track
  int64_t tracks_split = 0;  // original tracks that needed extra lanes
  int64_t extra_tracks = 0;  // "<tid>_hackN" tracks created
  int64_t flows_moved = 0;   // flow events re-pointed to a moved kernel's track
  int64_t unmovable = 0;     // overlapping GPU events without a tid field (left in place)
};

// Rewrites Chrome/Kineto trace JSON text. Malformed JSON → Malformed error.
Result<std::string> perfetto_fix_text(std::string text, PerfettoFixStats* stats);

// Reads `in` (plain or gzip), writes `out` (gzip when it ends in ".gz").
Result<PerfettoFixStats> perfetto_fix_file(const std::string& in, const std::string& out);

}  // namespace goblin::analysis
