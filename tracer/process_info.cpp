// What the tracer records about the process it runs in: devices and driver versions (through
// the already-loaded CUDA driver and NVML, by dlsym: no link-time dependency), and the workload
// metadata goblin's Python hook leaves beside the trace.
#include "process_info.h"

#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>

namespace goblin::tracer {

std::string strip_version(const char* name) {
  std::string s(name);
  size_t p = s.rfind("_v");
  if (p != std::string::npos && p + 2 < s.size() && s.find_first_not_of("0123456789", p + 2) == std::string::npos)
    s.resize(p);
  return s;
}

std::string read_small(const char* path) {
  std::string s;
  FILE* f = std::fopen(path, "rb");
  if (!f) return s;
  char buf[4096];
  size_t n = std::fread(buf, 1, sizeof buf, f);
  std::fclose(f);
  s.assign(buf, n);
  return s;
}

// Devices from the driver (already loaded: it loaded us). Through dlsym so the library has no
// link-time dependency on libcuda.
void query_devices(Trace& t) {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h) return;
  auto count = reinterpret_cast<CUresult (*)(int*)>(dlsym(h, "cuDeviceGetCount"));
  auto get = reinterpret_cast<CUresult (*)(CUdevice*, int)>(dlsym(h, "cuDeviceGet"));
  auto name = reinterpret_cast<CUresult (*)(char*, int, CUdevice)>(dlsym(h, "cuDeviceGetName"));
  auto mem = reinterpret_cast<CUresult (*)(size_t*, CUdevice)>(dlsym(h, "cuDeviceTotalMem_v2"));
  auto attr = reinterpret_cast<CUresult (*)(int*, CUdevice_attribute, CUdevice)>(dlsym(h, "cuDeviceGetAttribute"));
  auto drv = reinterpret_cast<CUresult (*)(int*)>(dlsym(h, "cuDriverGetVersion"));
  int v = 0;
  if (drv && drv(&v) == CUDA_SUCCESS) t.versions["cuda_driver"] = std::to_string(v);
  int n = 0;
  if (!count || !get || count(&n) != CUDA_SUCCESS) return;
  for (int i = 0; i < n; ++i) {
    CUdevice d;
    if (get(&d, i) != CUDA_SUCCESS) continue;
    DeviceRec r;
    r.id = static_cast<uint32_t>(i);
    char buf[256] = {0};
    if (name && name(buf, sizeof buf - 1, d) == CUDA_SUCCESS) r.name = buf;
    size_t bytes = 0;
    if (mem && mem(&bytes, d) == CUDA_SUCCESS) r.total_memory = bytes;
    if (attr) {
      attr(&r.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d);
      attr(&r.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d);
      attr(&r.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d);
      attr(&r.warp_size, CU_DEVICE_ATTRIBUTE_WARP_SIZE, d);
    }
    t.devices.push_back(r);
  }
}

// The display driver's version string ("580.159.04") from NVML, when present.
std::string nvml_driver_version() {
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) return "";
  auto init = reinterpret_cast<int (*)()>(dlsym(h, "nvmlInit_v2"));
  auto ver = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(h, "nvmlSystemGetDriverVersion"));
  auto down = reinterpret_cast<int (*)()>(dlsym(h, "nvmlShutdown"));
  std::string out;
  if (init && ver && init() == 0) {
    char buf[96] = {0};
    if (ver(buf, sizeof buf - 1) == 0) out = buf;
    if (down) down();
  }
  return out;
}

// Lines "key<TAB>json" that goblin's Python hook wrote for this process (step_time_seconds,
// tokens_per_sec): top-level entries of the trace, as torch.profiler's add_metadata_json makes
// them. Keys are checked to be identifiers; values are the hook's json.dumps output.
void splice_workload_metadata(Trace& t, const std::string& dir) {
  std::string path = dir + "/goblin_meta_" + std::to_string(t.pid) + ".tsv";
  std::string text = read_small(path.c_str());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    size_t tab = line.find('\t');
    if (tab == 0 || tab == std::string::npos || tab + 1 >= line.size()) continue;
    std::string key = line.substr(0, tab);
    if (key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos)
      continue;
    if (key == "goblin_tracer" || key == "traceEvents" || key == "deviceProperties") continue;
    t.metadata_json[key] = line.substr(tab + 1);
  }
}

}  // namespace goblin::tracer
