// JAX profiler traces: the Chrome-trace JSON (`<host>.trace.json.gz`) that jax.profiler.trace
// writes under plugins/profile/<run>/ beside the XSpace protobuf (docs/formats.md § JAX). The
// .xplane.pb itself is not read: the JSON holds the same device and host lines.
#pragma once
#include <string>
#include <string_view>

#include "core/io.h"
#include "core/status.h"
#include "model/timeline.h"
#include "trace/readers.h"

namespace goblin::trace {

// True when `prefix` (first ≤64 KiB, decompressed) is XProf's trace JSON: the document starts
// with {"displayTimeUnit":"ns","metadata":{"highres-ticks":true} (tsl TraceContainerToJson; JAX's
// perfetto_trace.json.gz drops "metadata") and its process names are XLA device / host names
// ("/device:GPU:0", "/host:CPU").
bool sniff_jax(std::string_view prefix);

// Reads a JAX trace into `tl`: kernels, memcpys and memsets of the "/device:*" processes (device
// from the name, stream = thread), the host's CUDA API calls with a correlation id as runtime
// rows, StepTraceAnnotation ranges (args.step_num) as ProfilerStep#N annotations, Python frames
// ("$file:line fn") and every other host event (XLA/PjRt work, TraceAnnotation) as CPU ops.
// Damaged input keeps what was read before the damage and returns a Malformed error.
Status read_jax(const std::string& path, Timeline& tl, const ReadOptions& opt);
Status read_jax_source(ByteSource& src, Timeline& tl, const ReadOptions& opt);  // tests, fuzzer

}  // namespace goblin::trace
