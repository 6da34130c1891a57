// CUPTI activity records into goblin's compact trace records (trace_format.h): the buffer
// callback's per-record work. Names are interned once into the Trace's string table; kernel
// names by pointer first, since CUPTI keeps one string per function. Not thread-safe: the
// tracer calls it under its lock, one buffer at a time.
#pragma once
#include <cupti.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "trace_format.h"

namespace goblin::tracer {

class ActivityCopier {
 public:
  explicit ActivityCopier(Trace& t) : t_(t) {}
  uint32_t intern(const std::string& s);
  uint32_t kernel_name(const char* p);
  // Appends the record to its table, correlation ids through `corr` (the attach's offset). False:
  // a kind the trace does not hold (the caller counts it).
  bool copy(const CUpti_Activity* r, uint32_t (*corr)(uint32_t));

 private:
  Trace& t_;
  std::unordered_map<const char*, uint32_t> by_ptr_;
  std::unordered_map<std::string, uint32_t> by_str_;
};

}  // namespace goblin::tracer
