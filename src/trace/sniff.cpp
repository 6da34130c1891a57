// Content sniffers, one per format. Each looks only at the first ≤64 KiB of decompressed
// content; none trusts the file name.
#include <sqlite3.h>

#include <optional>
#include <string>

#include "core/sqlite_input.h"
#include "trace/readers.h"

namespace goblin::trace {

namespace {
bool has(std::string_view p, std::string_view needle) { return p.find(needle) != std::string_view::npos; }

std::string_view skip_ws(std::string_view p) {
  size_t i = 0;
  if (p.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // UTF-8 BOM
  while (i < p.size() && (p[i] == ' ' || p[i] == '\n' || p[i] == '\r' || p[i] == '\t')) ++i;
  return p.substr(i);
}

// First line that is not blank and not a profiler log line (==PROF==, WARNING:).
std::string_view first_data_line(std::string_view p) {
  size_t pos = p.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;  // UTF-8 BOM
  while (pos < p.size()) {
    size_t nl = p.find('\n', pos);
    std::string_view line = p.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    bool skip = line.empty() || line.substr(0, 2) == "==" || line.substr(0, 8) == "WARNING:";
    if (!skip) return line;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return {};
}
}  // namespace

bool sniff_kineto(std::string_view p) {
  auto s = skip_ws(p);
  if (s.empty() || (s[0] != '{' && s[0] != '[')) return false;
  return has(s, "\"traceEvents\"") || has(s, "\"schemaVersion\"") || has(s, "\"deviceProperties\"") ||
         (s[0] == '[' && has(s, "\"ph\""));
}

bool sniff_rocprofv3_json(std::string_view p) {
  auto s = skip_ws(p);
  return !s.empty() && s[0] == '{' && has(s.substr(0, 4096), "\"rocprofiler-sdk-tool\"");
}

bool sniff_rocprof_v1(std::string_view p) {
  auto s = skip_ws(p);
  if (!s.empty() && s[0] == '{') {
    // results.json: a chrome trace whose timestamps are quoted strings and whose args carry
    // BeginNs/EndNs (written by rocprof v1's tblextr.py).
    return has(s, "\"traceEvents\"") && (has(s, "\"BeginNs\"") || has(s, "\"ts\":\"")) && !has(s, "\"schemaVersion\"");
  }
  auto line = first_data_line(p);
  // results.csv (v1) and the rocprofv2 file-plugin header.
  if (has(line, "KernelName") && has(line, "gpu-id")) return true;
  if (has(line, "Dispatch_ID") && (has(line, "GPU_ID") || has(line, "Kernel_Name"))) return true;
  // v1 stats files: exactly 5 columns (rocprofv3 *_stats.csv add MinNs,MaxNs,StdDev).
  if (has(line, "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"") && !has(line, "MinNs"))
    return true;
  return false;
}

bool sniff_rocprofv3_csv(std::string_view p) {
  auto quoted = first_data_line(p);
  if (quoted.empty()) return false;
  // rocprofv3 quotes every header name; a file re-saved by pandas or a spreadsheet has them bare.
  std::string line;
  for (char c : quoted)
    if (c != '"') line += c;
  auto col = [&](std::string_view name) {  // a whole header field
    size_t at = 0;
    while ((at = line.find(name, at)) != std::string::npos) {
      const bool starts = at == 0 || line[at - 1] == ',';
      const bool ends =
          at + name.size() == line.size() || line[at + name.size()] == ',' || line[at + name.size()] == '\r';
      if (starts && ends) return true;
      at += name.size();
    }
    return false;
  };
  return col("Correlation_Id") || col("Kind,Agent_Id") || col("Kind,Direction") || col("Kind,Operation") ||
         col("Domain,Function") || col("Sample_Timestamp") ||
         (col("Logical_Node_Id") && col("Agent_Type")) ||  // agent_info.csv
         (col("Name,Calls,TotalDurationNs") && has(line, "MinNs"));
}

bool sniff_ncu_csv(std::string_view p) {
  // The header may follow ==PROF== lines *and* the application's own stdout, so look at every
  // line of the prefix for the one that starts with the "ID" column and names "Kernel Name".
  size_t pos = 0;
  while (pos < p.size()) {
    size_t nl = p.find('\n', pos);
    std::string_view line = p.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    if (line.starts_with("\"ID\",") && has(line, "\"Kernel Name\"")) return true;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return false;
}

bool sniff_nvidia_smi(std::string_view p) {
  auto line = first_data_line(p);
  if (line.empty()) return false;
  if (line[0] == '#') return has(line, "gpu") && (has(line, "pwr") || has(line, " sm "));  // dmon
  if (has(line, "utilization.gpu") || has(line, "memory.used") || has(line, "power.draw") ||
      has(line, "temperature.gpu") || has(line, "clocks.current") || has(line, "pci.bus_id"))
    return true;
  // noheader: "2026/11/22 06:05:40.370, 0, NVIDIA H100 ..."
  return line.size() > 25 && line[4] == '/' && line[7] == '/' && line[13] == ':' && has(line, ", ");
}

bool sniff_amd_smi(std::string_view p) {
  if (has(p.substr(0, 256), "'CTRL' + 'C' to stop watching")) return true;
  auto line = first_data_line(p);
  bool starts = line.substr(0, 4) == "gpu," || line.substr(0, 14) == "timestamp,gpu,";
  return starts && (has(line, "gfx_activity") || has(line, "vram_used") || has(line, "used_vram") ||
                    has(line, "socket_power") || has(line, "power_usage") || has(line, "gfx_clock") ||
                    has(line, "hotspot") || has(line, "umc_activity") || has(line, "xcp"));
}

bool sniff_rocm_smi(std::string_view p) {
  if (has(p.substr(0, 512), "ROCm System Management Interface")) return true;
  auto line = first_data_line(p);
  // `rocm-smi --csv`: "device," then human metric names with their units in parentheses.
  return line.substr(0, 7) == "device," &&
         (has(line, "(%)") || has(line, "(C)") || has(line, "(W)") || has(line, "(B)") || has(line, "clock speed"));
}

Format sniff_sqlite(const std::string& path) {
  // The names of the schema's objects only, under the readers' limits (core/sqlite_input.h). A
  // view named like a format's table still sniffs as that format: its reader then refuses the
  // view with an error that names it, which says more than "not a format goblin reads".
  auto in = SqliteInput::open(path, "SQLite");
  if (!in.ok()) return Format::Unknown;  // the reader then says why
  auto names = (*in)->object_names();
  if (!names.ok()) return Format::Unknown;
  Format f = Format::Unknown;
  bool nsys = false, v1 = false, rocpd = false, compute = false;
  for (const std::string& name : *names) {
    // rocpd tables carry a per-run suffix (rocpd_kernel_dispatch_<uuid>); the unsuffixed names are views.
    if (name.starts_with("rocpd_kernel_dispatch") || name.starts_with("rocpd_metadata")) rocpd = true;
    if (name.starts_with("CUPTI_ACTIVITY_KIND_") || name == "StringIds" || name == "TARGET_INFO_GPU") nsys = true;
    if (name == "compute_kernel_metric_value" || name == "compute_workload") compute = true;
    if (name == "KERN" || name == "OPS" || name == "HIP" || name == "COPY") v1 = true;
  }
  if (nsys)
    f = Format::NsysSqlite;
  else if (rocpd)
    f = Format::Rocpd;
  else if (compute)
    f = Format::RocprofCompute;
  else if (v1)
    f = Format::RocprofV1;
  return f;
}

std::optional<std::string> sqlite_damage(const std::string& path) {
  auto in = SqliteInput::open(path, "SQLite");
  if (!in.ok()) {
    if (in.error().kind == ErrorKind::Malformed) return in.error().message;
    return std::nullopt;
  }
  auto names = (*in)->object_names();
  if (!names.ok() && names.error().kind == ErrorKind::Malformed) return std::string(sqlite3_errmsg((*in)->db()));
  return std::nullopt;
}

}  // namespace goblin::trace
