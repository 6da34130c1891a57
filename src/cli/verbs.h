// Every verb registers itself on the root app from its own file, src/cli/cli_<verb>.cpp: parse
// options -> call one library function -> render. main.cpp only wires them up.
#pragma once
#include <CLI/CLI.hpp>

namespace goblin {
// ingest
void register_info(CLI::App& app);
// triage and run metrics
void register_triage(CLI::App& app);
void register_breakdown(CLI::App& app);
void register_overlap(CLI::App& app);
void register_perfetto_fix(CLI::App& app);
void register_metrics(CLI::App& app);
// several runs: before/after and per-rank
void register_diff(CLI::App& app);
void register_ranks(CLI::App& app);
// the audit
void register_parse_config(CLI::App& app);
void register_kb(CLI::App& app);
void register_patch(CLI::App& app);
void register_compare(CLI::App& app);
void register_audit(CLI::App& app);
// live runs
void register_profile(CLI::App& app);
void register_bench(CLI::App& app);
// hardware
void register_specs(CLI::App& app);
void register_roofline(CLI::App& app);
void register_diagnose(CLI::App& app);
// kernel optimization workspace
void register_kernel(CLI::App& app);
// the MCP server
void register_mcp(CLI::App& app);
// goblin's own CUPTI tracer
void register_trace(CLI::App& app);
}  // namespace goblin
