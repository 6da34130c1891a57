// Command lines as a config (docs/audit.md § Command lines): the format's name and what the run
// module needs of it, and the throughput unit of a workload's config (docs/metrics.md §
// Throughput unit). Declared here rather than in workload_config.h, which ~100 files include.
#pragma once
#include <optional>
#include <string>

#include "config/workload_config.h"

namespace goblin::config {

// A launch command line (a shell or Slurm script, Makefile, README code block or `audit --command`)
// whose flags are the config: ConfigFormat's value after Env. config_format_name calls it
// "command". (ConfigFormat does not name it yet: adding an enumerator to workload_config.h
// rebuilds every file that includes it.)
inline constexpr ConfigFormat kCommandFormat = static_cast<ConfigFormat>(static_cast<int>(ConfigFormat::Env) + 1);

// A command-line config's launch command as written (continuation lines included): what a
// Makefile's or README's command runs as. Malformed when the text holds none.
Result<std::string> launch_command_text(const std::string& text, const std::string& file);

// The unit a workload's throughput is counted in: "tokens" when the config sets a sequence length,
// "images" when it sets an image size and no sequence length, "samples" with only a batch size,
// else "tokens" (goblin's reference workloads).
std::string throughput_unit(const WorkloadConfig& c);
// What one optimizer step processes in that unit: batch x seq x accumulation (tokens), batch x
// accumulation (images, samples); none without a batch size (or, for tokens, a sequence length).
std::optional<double> items_per_step(const WorkloadConfig& c);

}  // namespace goblin::config
