// Measured ceilings shipped beside the datasheet peaks: data/measured/<gpu id>.json, written by
// `goblin specs --measure` (torch.matmul GEMM TFLOP/s per dtype, copy bandwidth). What a
// well-shaped kernel really reaches on that GPU; the audit's speedup models prefer them to the
// datasheet.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "hw/gpu_specs.h"

namespace goblin {

struct MeasuredCeilings {
  std::string file;  // data/measured/<id>.json ("" when none ships for the GPU)
  struct Gemm {
    double median = 0, best = 0;  // TFLOP/s
  };
  std::map<std::string, Gemm> gemm;  // dtype (bf16, fp16, fp32, tf32) → figures
  std::optional<double> copy_gbs;    // device-to-device copy bandwidth, GB/s
};

// The GPU's measured ceilings; empty (file "") when none ship or the file does not parse.
MeasuredCeilings measured_ceilings_for(const GpuSpec& g);

}  // namespace goblin
