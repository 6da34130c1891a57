// rocprofv3 CSV: one file per domain, and the header alone says which domain (file names are
// user-chosen). Each domain has a row reader that maps columns BY NAME onto the Timeline.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/timeline.h"
#include "trace/rocprof/rocprof_fields.h"

namespace goblin::trace::rocprof {

enum class CsvDomain {
  Unknown,
  KernelTrace,        // kernel_trace.csv (all ROCm 6.2 → 7.x and rocpd-to-csv variants)
  MemoryCopy,         // memory_copy_trace.csv
  ApiTrace,           // hip/hsa/marker/rccl/rocdecode/rocjpeg api traces ("Domain","Function")
  CounterCollection,  // counter_collection.csv
  Stats,              // *_stats.csv, domain_stats.csv
  MemoryAllocation,   // memory_allocation_trace.csv
  ScratchMemory,      // scratch_memory_trace.csv
  PcSampling,         // pc_sampling_host_trap / stochastic
  AgentInfo,          // agent_info.csv
};

const char* csv_domain_name(CsvDomain d);
CsvDomain classify_header(const Columns& cols);

class DomainRowReader {
 public:
  virtual ~DomainRowReader() = default;
  // One data row; problems become folded warnings carrying `line`.
  virtual void row(const std::vector<std::string_view>& fields, int64_t line) = 0;
  // After the last row (summary warnings).
  virtual void finish() {}
};

// The row reader for `d`, or a Malformed error naming the missing required column and the
// header line. (Stats files are read by read_stats_rows instead.)
Result<std::unique_ptr<DomainRowReader>> make_row_reader(CsvDomain d, Timeline& tl, const std::string& path,
                                                         const Columns& cols, int64_t header_line,
                                                         const std::string& header_text);

}  // namespace goblin::trace::rocprof
