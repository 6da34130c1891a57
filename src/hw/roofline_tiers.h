// The roofline's tiers beyond the FLOP ops (data/op_models.yaml): every other GPU op of a trace
// priced by its launching op's shapes, its recorded bytes (memcpy/memset), its collective
// metadata (or the nccl:<collective> annotation around its launch: hw/roofline_annotation.h) or its
// name and grid, and the coverage of GPU-op time. Called by roofline_from_trace.
#pragma once
#include <cstdint>
#include <vector>

#include "hw/roofline.h"

namespace goblin::hw {

// `priced`: per gpu_ops row, 1 where a FLOP op already priced it; `sigs`: those kernels by
// signature (more are added: every kernel this call prices by its op's shapes). Adds op and kernel
// points to `rep` (finished: achieved rates, % of roofline, bound), fills rep.op_flops / op_bytes
// and rep.coverage; kernels left without a model are priced by an identical shape-priced launch
// of this trace (signature tier) or of the capture trace (capture tier) where one exists.
void price_other_gpu_ops(const Timeline& tl, const GpuSpec& gpu, const RooflineInputs& in,
                         const std::vector<uint8_t>& priced, TraceSignatures& sigs, RooflineReport& rep);

}  // namespace goblin::hw
