// The spec database checked against the device (`goblin specs --detect`): every value the device
// itself reports — nvidia-smi's query, amd-smi static, rocminfo, the runtime's device properties
// (cudaGetDeviceProperties or hipGetDeviceProperties through tools/device_props.py) — compared
// with data/gpus.yaml, so a reader sees which values the device confirms, which it contradicts,
// which the database lacks and which rest on documents alone.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "hw/gpu_specs.h"

namespace goblin::hw {

// One value a device reported, in the database's unit for that key.
struct DeviceValue {
  std::string key;     // gpus.yaml spec key: sm_count, l2_cache, memory_size, boost_clock, ...
  double value = 0;    // in the database's unit (MB for l2_cache means MiB, as NVIDIA's tables do)
  std::string raw;     // what the tool printed, with its unit
  std::string source;  // "nvidia-smi --query-gpu=clocks.max.sm", "cudaGetDeviceProperties.L2_cache_size"
};

// nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,power.max_limit
// --format=csv,noheader,nounits: the values of the device at `index` (its line).
std::vector<DeviceValue> nvidia_smi_values(std::string_view csv, int index = 0);
// tools/device_props.py's JSON: the values of device `index`.
std::vector<DeviceValue> device_props_values(const Json& props, int index = 0);
// `amd-smi static` text, the block "GPU: index": ASIC NUM_COMPUTE_UNITS (older releases print
// NUM_OF_COMPUTE_UNITS), VRAM SIZE, LIMIT MAX_POWER and the level-3 cache (Infinity Cache).
std::vector<DeviceValue> amd_smi_values(std::string_view text, int index = 0);
// rocminfo's text, the index-th GPU agent: Compute Unit, Wavefront Size, Max Clock Freq., the L3
// cache, the first coarse-grained global pool (the memory) and the GROUP pool (LDS per CU).
std::vector<DeviceValue> rocminfo_values(std::string_view text, int index = 0);

// {agree, contradicted, missing, documents_only: [{key, database, unit, verified, device,
// device_raw, device_source}], sources: [...]}. A value agrees within its key's tolerance
// (counts exactly; memory size 5 %: marketing GB against the GiB the driver reports).
Json check_specs_against_device(const GpuSpec& g, const std::vector<DeviceValue>& dev);
std::string spec_check_human(const Json& check);
// The values of device `index` on this machine: nvidia-smi's query (NVIDIA) or amd-smi static and
// rocminfo (AMD) and, when python can run props_script (tools/device_props.py, needs torch), the
// runtime's device properties.
std::vector<DeviceValue> read_device_values(const std::string& vendor, int index, const std::string& python,
                                            const std::string& props_script);

}  // namespace goblin::hw
