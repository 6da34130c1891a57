// The hardware knowledge context: every data file the hw module reads (the GPU spec database,
// the measured ceilings, the architecture tables, the NCU diagnosis rules and metric schema),
// parsed once per process and data directory and passed as `const hw::HwKnowledge&` to
// roofline, diagnosis, arch and vendor code instead of each loading its own. The analysis context
// (analysis/knowledge.h AnalysisKnowledge) is one of these plus the analysis files, so a
// `const AnalysisKnowledge&` is passed wherever hw code wants this. DEVELOPING.md § One knowledge
// context.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "hw/diagnose.h"
#include "hw/gpu_specs.h"
#include "hw/measured_ceilings.h"
#include "hw/ncu_analysis.h"
#include "hw/op_models.h"
#include "hw/rocprof_compute_map.h"

namespace goblin::hw {

// data/gpu_arch_names.yaml: GPU name fragments, HIP compute-capability targets, the AMD
// generations and compatible pairs (hw/arch.h) and the library kernel-name markers of each
// vendor (hw/vendor.h). A section that does not parse is left empty: the architecture or vendor
// is then reported as unobserved, never guessed.
struct ArchNames {
  struct HipCompute {
    int major = -1, minor = -1;
    std::vector<std::string> targets;
    std::string assume, assume_reason;
  };
  struct PrefixGeneration {
    std::string prefix, generation;
  };
  struct CompatiblePair {
    std::string a, b, reason;
  };
  std::vector<std::pair<std::string, std::string>> fragments;  // fragment (lower case) → arch, in file order
  std::vector<HipCompute> hip_compute;
  std::vector<std::pair<std::string, std::string>> generation_of;  // target → "amd CDNA 3"
  std::vector<PrefixGeneration> generation_prefixes;
  std::vector<CompatiblePair> compatible;
  std::vector<std::string> amd_kernel_markers, nvidia_kernel_markers;  // § vendor_kernel_markers
};
// The arch sections (hw/arch.cpp) and the kernel markers (hw/vendor.cpp) of the file's text.
void parse_arch_sections(const std::string& yaml_text, ArchNames& out);
void parse_vendor_markers(const std::string& yaml_text, ArchNames& out);
// data/gpu_arch_names.yaml read and parsed (both parts); empty when the file does not load.
ArchNames load_arch_names();

struct HwKnowledge {
  // data/gpus.yaml. Optional for analyses (an unknown GPU is reported where it matters): when the
  // file does not load the list is empty and gpus_error says why; verbs that need the database
  // (specs, roofline, diagnose) report that error through gpu_db() / gpu().
  std::vector<GpuSpec> gpus;
  std::optional<Error> gpus_error;
  // data/measured/<id>.json by GpuSpec::id, for the GPUs that ship one.
  std::map<std::string, MeasuredCeilings> ceilings;
  ArchNames arch;                           // data/gpu_arch_names.yaml
  Result<NcuRules> ncu_rules = NcuRules{};  // data/ncu_rules.yaml
  // data/ncu_metric_schema.yaml
  Result<std::vector<MetricSchemaSection>> ncu_metric_schema = std::vector<MetricSchemaSection>{};
  Result<OpModels> op_models = OpModels{};  // data/op_models.yaml (the roofline's op classes)
  // data/rocprof_compute_metrics.yaml: rocprofiler-compute metrics → the schema keys above
  Result<RocprofComputeMap> rocprof_compute_map = RocprofComputeMap{};

  // The database, or the error that kept it from loading.
  Result<std::vector<GpuSpec>> gpu_db() const;
  // By GPU id or alias (lookup_gpu_in's rules); NotFound listing the known ids otherwise.
  Result<GpuSpec> gpu(std::string_view name) const;
  // The GPU's measured ceilings; empty (file "") when none ship.
  MeasuredCeilings measured(const GpuSpec& g) const;

  // Parses every file above now (no cache). Never fails as a whole: each file's error is kept
  // beside its part (see above), as each loader did before the context.
  static HwKnowledge load();
};

// The process's hardware knowledge: loaded on first use per data directory (--data-dir /
// GOBLIN_DATA_DIR), then shared; thread-safe. The one place the default hardware context is
// loaded; the overloads without a context (tests, one-shot tools) and analysis_knowledge() read it.
std::shared_ptr<const HwKnowledge> hw_knowledge();
// Drops the cached context: the next hw_knowledge() re-parses (tests that rewrite data files).
void reset_hw_knowledge();

}  // namespace goblin::hw
