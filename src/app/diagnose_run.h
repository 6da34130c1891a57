// goblin diagnose's whole job as one library call (the verb and the MCP `diagnose` tool share it):
// the deterministic diagnosis of Nsight Compute kernels, the judge prompts (docs/hardware.md) (prompt), or the
// validation of a judge's answer (parse_response).
#pragma once
#include <string>

#include "core/verb_result.h"

namespace goblin::hw {
struct HwKnowledge;  // hw/knowledge.h
}  // namespace goblin::hw

namespace goblin::app {

struct DiagnoseRequest {
  std::string ncu, kernel_src, problem, gpu, parse_response;
  int64_t id = -1;
  bool prompt = false, json = false;
};

// The GPU database, NCU rules and metric schema come from the hardware knowledge context.
VerbResult run_diagnose(const DiagnoseRequest& a, const hw::HwKnowledge& k);

}  // namespace goblin::app
