// Whether a measured window of optimizer steps ran on batches the DataLoader had prefetched
// before the job's first step.
//
// A PyTorch DataLoader with N workers keeps N × prefetch_factor batches ready (prefetch_factor
// defaults to 2 when workers > 0, PyTorch docs: torch.utils.data.DataLoader). While the first
// steps compile and warm up, the workers fill that buffer; a window that ends before the job has
// consumed it times steps that never wait for data, however slow the loader is. tuned_compile.yaml
// (4 workers × 4) ran at 23.2 ms/step inside its 16 buffered batches and at ~31 ms/step after them
// (bench/results/tracer, 2026-11-23 evening): goblin's 5 + 5-step profile and 15-step
// bench saw none of it.
#pragma once

#include "config/workload_config.h"
#include "core/json.h"

namespace goblin::run {

// A JSON object for run.json / the bench result, or null when the config has no DataLoader
// workers (nothing is prefetched ahead) or does not say. Fields: workers, prefetch_factor,
// prefetch_factor_from ("config" or "PyTorch default"), grad_accum_steps, buffered_batches,
// window_first_step, window_last_step, steps_on_buffered_batches (how many of the window's steps
// consumed batches that were ready before the first step, at least), window_inside_buffer (all
// of them), note (one sentence for people; empty when the window runs past the buffer).
Json prefetch_window(const config::WorkloadConfig& cfg, int warmup_steps, int measured_steps);

}  // namespace goblin::run
