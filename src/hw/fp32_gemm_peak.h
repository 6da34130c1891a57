// The peak plain fp32 GEMMs run at on a GPU of data/gpus.yaml (no TF32/XF32): its fp32_matrix
// rate where it lists one at least as fast as its fp32 vector rate (AMD CDNA's Tensile/hipBLASLt
// single-precision kernels run on the FP32 matrix cores), else fp32. Used by the waste budget's
// precision_path ratio, the MFU dtype path and the speedup models (docs/metrics.md).
#pragma once
#include <optional>
#include <string>

#include "hw/gpu_specs.h"

namespace goblin::hw {

// `key` (when given) is set to the dtype key used ("fp32" or "fp32_matrix").
inline std::optional<double> fp32_gemm_peak_tflops(const GpuSpec& g, std::string* key = nullptr) {
  std::optional<double> v = g.peak_tflops("fp32");
  std::string k = "fp32";
  if (auto m = g.peak_tflops("fp32_matrix"); m && (!v || *m >= *v)) v = m, k = "fp32_matrix";
  if (key && v) *key = k;
  return v;
}

}  // namespace goblin::hw
