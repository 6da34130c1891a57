// Parts shared by the Kineto reader's paths (kineto_reader.cpp: one thread, two halves of a
// plain file; batch_reader.cpp: blocks on two workers): column reservation and the end-of-read
// bookkeeping, so every path produces the same notes and errors.
#pragma once
#include <cstdint>
#include <string>

#include "core/status.h"
#include "model/timeline.h"
#include "trace/kineto/event_parser.h"

namespace goblin::trace::kineto {

// Reserves every column of `tl` for `factor` times its current rows (transparent huge pages for
// large columns where THP is in madvise mode).
void reserve_like(Timeline& tl, double factor);

// What the parts of one read add up to.
struct PartTotals {
  SkipCounts skipped;
  int64_t min_ts_ns = INT64_MAX;
  uint64_t parsed = 0, events = 0;
};
void add_skips(SkipCounts& a, const SkipCounts& b);

// The read's end: epoch-clock detection, the "not modelled" notes, "none could be parsed".
void finish_read(Timeline& tl, const std::string& path, const PartTotals& t, Status& status);

}  // namespace goblin::trace::kineto
