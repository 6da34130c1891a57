// Measured ceilings shipped beside the datasheet peaks: data/measured/<gpu id>.json, written by
// `goblin specs --measure` (torch.matmul GEMM TFLOP/s per dtype, copy bandwidth). What a
// well-shaped kernel really reaches on that GPU; the audit's speedup models prefer them to the
// datasheet.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "core/json.h"
#include "hw/gpu_specs.h"

namespace goblin::hw {

struct MeasuredCeilings {
  std::string file;  // data/measured/<id>.json ("" when none ships for the GPU)
  struct Gemm {
    double median = 0, best = 0;  // TFLOP/s
  };
  std::map<std::string, Gemm> gemm;  // dtype (bf16, fp16, fp32, tf32) → figures
  std::optional<double> copy_gbs;    // device-to-device copy bandwidth, GB/s
  // The whole file (null when it is not a JSON object), for `goblin specs` and the kernel
  // workspace, which show it as written. Free-form: the file has its own writer
  // (tools/measure_ceilings.py).
  Json json;
  std::string origin;  // where it was read from (core/data.h data_file_origin)
};

// data/measured/<id>.json of a GPU id ("H100-SXM" → "measured/h100_sxm.json").
std::string measured_ceilings_file(const std::string& gpu_id);
// Parses one such file's text (hw::HwKnowledge::load, the one place that reads them); `rel` is
// its path under data/. Figures empty (file "") when the text is not a JSON object.
MeasuredCeilings parse_measured_ceilings(const std::string& text, const std::string& rel);

}  // namespace goblin::hw
