// The names Kineto's traces give CUPTI's enumerations (copy kinds, memory kinds, synchronisation
// types, overhead kinds), as torch.profiler writes them, so goblin's readers and any Kineto
// consumer read a goblin_cupti trace like torch.profiler's. No CUPTI header: the values are the
// enumerations' documented numbers.
#include "trace_format.h"

namespace goblin::tracer {

// CUpti_ActivityMemcpyKind values (cupti_activity.h, CUDA 13).
const char* copy_kind_name(uint8_t k) {
  switch (k) {
    case 1:
      return "HtoD";
    case 2:
      return "DtoH";
    case 3:
      return "HtoA";
    case 4:
      return "AtoH";
    case 5:
      return "AtoA";
    case 6:
      return "AtoD";
    case 7:
      return "DtoA";
    case 8:
      return "DtoD";
    case 9:
      return "HtoH";
    case 10:
      return "PtoP";
    default:
      return "Unknown";
  }
}

// CUpti_ActivityMemoryKind values.
const char* memory_kind_name(uint8_t k) {
  switch (k) {
    case 1:
      return "Pageable";
    case 2:
      return "Pinned";
    case 3:
      return "Device";
    case 4:
      return "Array";
    case 5:
      return "Managed";
    case 6:
      return "Device Static";
    case 7:
      return "Managed Static";
    default:
      return "Unknown";
  }
}

// CUpti_ActivitySynchronizationType values, spelled as Kineto names its cuda_sync events.
const char* sync_type_name(uint32_t t) {
  switch (t) {
    case 1:
      return "Event Sync";
    case 2:
      return "Stream Wait Event";
    case 3:
      return "Stream Sync";
    case 4:
      return "Context Sync";
    default:
      return "Unknown Sync";
  }
}

// CUpti_ActivityOverheadKind values.
const char* overhead_kind_name(uint32_t k) {
  switch (k) {
    case 1:
      return "Driver compiler";
    case 1 << 16:
      return "CUPTI buffer flush";
    case 2 << 16:
      return "CUPTI instrumentation";
    case 3 << 16:
      return "CUPTI resource";
    case 4 << 16:
      return "Runtime triggered module loading";
    case 5 << 16:
      return "Lazy function loading";
    case 6 << 16:
      return "Command buffer full";
    case 7 << 16:
      return "Activity buffer request";
    case 8 << 16:
      return "UVM activity init";
    default:
      return "Unknown overhead";
  }
}

}  // namespace goblin::tracer
