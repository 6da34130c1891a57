// A GPU's architecture id ("sm_90", "gfx942") from its name, from data rather than C++ tables:
// data/gpus.yaml's aliases (exact, folded) first, then data/gpu_arch_names.yaml's name fragments
// for GPUs the spec database does not hold.
#pragma once
#include <string>
#include <string_view>

namespace goblin::hw {

// "" when neither data file knows the name (or a data file cannot be read: the caller then
// treats the architecture as unobserved, as for an unknown GPU).
std::string arch_of(std::string_view gpu_name);

}  // namespace goblin::hw
