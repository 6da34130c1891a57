// RunMetrics as the text `goblin metrics` prints: step time, utilisation, tokens/s, MFU, HBM,
// steps, the waste budget (each bucket with its share), top kernels, warnings, the window.
#pragma once
#include <string>

#include "analysis/run_metrics.h"

namespace goblin::app {

std::string run_metrics_text(const analysis::RunMetrics& m);

}  // namespace goblin::app
