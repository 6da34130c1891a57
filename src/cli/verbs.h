// Every verb registers itself on the root app. Each lives beside the module it drives
// (src/<module>/cli_<verb>.cpp); main.cpp only wires them up.
#pragma once
#include <CLI/CLI.hpp>

namespace goblin {
// issue 2: ingest
void register_info(CLI::App& app);
// issue 3: triage and run metrics
void register_triage(CLI::App& app);
void register_breakdown(CLI::App& app);
void register_overlap(CLI::App& app);
void register_perfetto_fix(CLI::App& app);
void register_metrics(CLI::App& app);
// issue 4: the audit
void register_parse_config(CLI::App& app);
void register_kb(CLI::App& app);
void register_patch(CLI::App& app);
void register_compare(CLI::App& app);
void register_audit(CLI::App& app);
// issue 5: live runs
void register_profile(CLI::App& app);
void register_bench(CLI::App& app);
// issue 6: hardware
void register_specs(CLI::App& app);
void register_roofline(CLI::App& app);
void register_diagnose(CLI::App& app);
// issue 16: goblin's CUPTI tracer
void register_trace(CLI::App& app);
}  // namespace goblin
