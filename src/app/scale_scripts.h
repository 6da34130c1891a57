// `goblin slurm-script`: the scripts that run goblin ranks over many ranks on the scheduler the
// cluster already has (docs/scale.md). The map (goblin summarize, one task per rank trace, where
// the traces are) is a Slurm job array or a Kubernetes Indexed Job; the reduce (goblin ranks over
// the summaries) is a job that starts when every map task has ended.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"

namespace goblin::app {

struct ScaleScriptOptions {
  std::string out_dir;            // where the scripts, the trace list, logs and the reduce output go
  std::string summaries;          // where the summaries go (default: OUT/summaries; Kubernetes: MOUNT/summaries)
  std::string goblin = "goblin";  // the goblin command on the compute nodes
  std::string partition;          // Slurm partition ("": the cluster's default)
  std::string time = "00:30:00";
  int64_t parallel = 0;  // map tasks at once (0: as many as the scheduler gives)
  int64_t cpus = 2;      // cores per task (summarize reads a large trace on two)
  bool k8s = false;      // Kubernetes manifests instead of sbatch scripts
  std::string image = "goblin:latest";
  std::string claim = "goblin-data";  // the PersistentVolumeClaim holding traces and summaries
  std::string mount = "/data";        // where the pods mount it
  std::string rank_regex;             // passed to enumerate_ranks and to each summarize
  // Two-level reduce (Slurm): > 0 adds a job array between map and reduce whose task g folds the
  // summaries g*G .. g*G+G-1 (in name order) into one group summary (goblin summarize --merge);
  // the final reduce reads the group summaries. 0: the reduce reads every rank summary.
  int64_t group_size = 0;
  std::string groups;  // where the group summaries go (default: OUT/groups)
};

struct ScaleScripts {
  std::vector<std::string> traces;  // one per map task, in task-index order
  std::vector<std::string> files;   // what was written
  std::string submit;               // the command that submits it all
};

// Enumerates the rank traces (files, directories: goblin ranks' discovery), writes the trace
// list, the map and reduce scripts (or manifests) and submit.sh into `out_dir`.
Result<ScaleScripts> write_scale_scripts(const std::vector<std::string>& paths, const ScaleScriptOptions& opt);

}  // namespace goblin::app
