#include "trace/kineto/trace_metadata.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <charconv>

#include "core/decimal.h"

namespace goblin::trace::kineto {

namespace od = simdjson::ondemand;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

int64_t int_or(od::value& v, int64_t fallback) {
  int64_t x = 0;
  if (!v.get_int64().get(x)) return x;
  uint64_t u = 0;
  if (!v.get_uint64().get(u)) return u > static_cast<uint64_t>(INT64_MAX) ? fallback : static_cast<int64_t>(u);
  return fallback;
}

std::string string_or_raw(od::value& v) {
  std::string_view s;
  if (!v.get_string().get(s)) return std::string(s);
  return std::string(trim(v.raw_json_token()));
}

bool is_amd(const std::string& name) {
  return name.find("AMD") != std::string::npos || name.find("Instinct") != std::string::npos ||
         name.find("Radeon") != std::string::npos;
}

void read_devices(od::value& list, Timeline& tl, const std::string& path, uint64_t offset) {
  od::array arr;
  if (list.get_array().get(arr)) {
    tl.warn(W::kineto_bad_device_properties, "deviceProperties is not a list; device information ignored", path,
            static_cast<int64_t>(offset));
    return;
  }
  for (auto el : arr) {
    od::object o;
    if (el.get_object().get(o)) {
      tl.warn(W::kineto_bad_device_properties, "a deviceProperties entry is not an object; ignored", path,
              static_cast<int64_t>(offset));
      continue;
    }
    DeviceInfo d;
    for (auto fr : o) {
      od::field f;
      if (std::move(fr).get(f)) break;
      std::string_view k;
      if (f.unescaped_key().get(k)) break;
      std::string key(k);
      od::value& v = f.value();
      if (key == "id")
        d.id = static_cast<int32_t>(int_or(v, kNone));
      else if (key == "name")
        d.name = string_or_raw(v);
      else if (key == "totalGlobalMem")
        d.total_memory_bytes = int_or(v, kNone);
      else if (key == "computeMajor" || key == "major")
        d.compute_major = static_cast<int>(int_or(v, -1));
      else if (key == "computeMinor" || key == "minor")
        d.compute_minor = static_cast<int>(int_or(v, -1));
      else if (key == "numSms" || key == "multiProcessorCount")
        d.num_sms = static_cast<int>(int_or(v, -1));
      else if (key == "warpSize")
        d.warp_size = static_cast<int>(int_or(v, -1));
      else if (key == "gcnArchName")
        d.arch = string_or_raw(v);
    }
    // NVIDIA devices: arch from compute capability. AMD reports HIP's major/minor (the gfx ISA
    // version, not an ISA name), so leave arch empty unless gcnArchName said it. A device with
    // warpSize 64 is AMD whatever its name (an empty name is common on ROCm: hw::observe_arch
    // derives its gfx target from all signals).
    if (d.arch.empty() && d.compute_major > 0 && !is_amd(d.name) && d.warp_size != 64) {
      d.arch = fmt::format("sm_{}{}", d.compute_major, std::max(d.compute_minor, 0));
    }
    tl.meta.devices.push_back(std::move(d));
  }
}

void read_distributed(od::value& v, Timeline& tl, const std::string& path, uint64_t offset) {
  od::object o;
  if (v.get_object().get(o)) {
    tl.warn(W::kineto_bad_distributed_info, "distributedInfo is not an object; ignored", path,
            static_cast<int64_t>(offset));
    return;
  }
  for (auto fr : o) {
    od::field f;
    if (std::move(fr).get(f)) break;
    std::string_view k;
    if (f.unescaped_key().get(k)) break;
    std::string key(k);
    od::value& val = f.value();
    if (key == "rank")
      tl.meta.distributed.rank = int_or(val, kNone);
    else if (key == "world_size")
      tl.meta.distributed.world_size = int_or(val, kNone);
    else if (key == "backend")
      tl.meta.distributed.backend = string_or_raw(val);
    else if (key == "nccl_version")
      tl.meta.versions["nccl"] = string_or_raw(val);
  }
}

}  // namespace

void apply_top_level(std::string_view key, std::string_view value, uint64_t offset, const std::string& path,
                     Timeline& tl) {
  const bool devices = key == "deviceProperties" || key == "computeProperties";
  const bool distributed = key == "distributedInfo";
  if (key == "schemaVersion") {
    tl.meta.versions["kineto_schema"] = std::string(trim(value));
    return;
  }
  if (key == "baseTimeNanoseconds") {
    auto ns = parse_decimal_scaled(trim(value), 0);
    if (ns) {
      tl.meta.clock_base_ns = *ns;
      tl.meta.clock_is_epoch = true;
    } else {
      tl.warn(W::kineto_bad_base_time, "baseTimeNanoseconds is not an integer; timestamps kept relative", path,
              static_cast<int64_t>(offset));
    }
    return;
  }
  if (devices || distributed) {
    simdjson::padded_string text(value);
    od::parser parser;
    od::document doc;
    if (parser.iterate(text).get(doc)) {
      tl.warn(W::kineto_bad_metadata_json, std::string(key) + " is not valid JSON; ignored", path,
              static_cast<int64_t>(offset));
      return;
    }
    od::value v;
    if (doc.get_value().get(v)) {
      tl.warn(W::kineto_bad_metadata_json, std::string(key) + " is not valid JSON; ignored", path,
              static_cast<int64_t>(offset));
      return;
    }
    if (devices)
      read_devices(v, tl, path, offset);
    else
      read_distributed(v, tl, path, offset);
    return;
  }
  std::string k(key);
  // cuda_runtime_version, cuda_driver_version, cupti_version, and pytorch/rocm version keys
  // some workloads add: versions["cuda_runtime"] = "13000". String values lose their quotes.
  if (k.size() > 8 && k.ends_with("_version")) {
    std::string_view v = trim(value);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    tl.meta.versions[k.substr(0, k.size() - 8)] = std::string(v);
  }
  tl.meta.extra[k] = std::string(trim(value));
}

}  // namespace goblin::trace::kineto
