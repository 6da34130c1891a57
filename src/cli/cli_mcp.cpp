// goblin mcp [--root DIR]... [--replay DIR] [--allow-live] [--budget N] [--out DIR]: the MCP
// server over stdio (src/mcp). Thin: options -> serve_stdio.
#include <fmt/format.h>

#include <iostream>

#include "cli/verb.h"
#include "cli/verbs.h"
#include "core/confine.h"
#include "mcp/server.h"
#include "mcp/transport.h"

namespace goblin::cli {

void register_mcp(CLI::App& app) {
  auto o = std::make_shared<mcp::ServerOptions>();
  auto tools = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "mcp",
      "Model Context Protocol server on stdin/stdout (JSON-RPC 2.0, one message per line): the audit tools "
      "(parse_config, profile_run, query_kb, propose_patch, benchmark, compare_runs) with a call budget, the "
      "analyses (info, triage, breakdown, metrics, specs, roofline, diagnose), the gpu_goblin_audit prompt, and the "
      "rule base, GPU specs and reports as resources; --tools chooses which tool groups are listed");
  cmd->footer(help_footer_with_examples(
      "  goblin mcp --replay examples/h100_llama            no GPU: recorded H100 runs answer profile/benchmark\n"
      "  goblin mcp --allow-live --root ~/project            live runs with goblin's own runners on this GPU\n"
      "  goblin mcp --root . --budget 12 --out /tmp/audit    more calls, reports elsewhere\n"
      "  goblin mcp --tools all --replay examples/h100_llama  every tool group listed (a larger tools/list)\n"
      "Register it with an MCP client as {\"command\": \"goblin\", \"args\": [\"mcp\", \"--replay\", \"DIR\"]};\n"
      "docs/mcp.md lists the tools, limits and safety rules. Logs go to stderr; stdout is the protocol.\n"));
  cmd->add_option(
      "--tools", *tools,
      "tool groups to list, comma-separated, or all (default: the groups data/mcp/tool_groups.yaml names as "
      "default; an unknown name is refused with the list; docs/mcp.md § Tool groups)");
  cmd->add_option("--root", o->roots,
                  "directory the tools may read files from (repeatable; default: the working directory); paths "
                  "resolving outside (after symlinks) are refused");
  cmd->add_option("--replay", o->replay_dir,
                  "replay directory (replay.yaml + recorded traces): answers profile_run/benchmark without a live run")
      ->check(CLI::ExistingPath);
  cmd->add_flag("--allow-live", o->allow_live,
                "let profile_run/benchmark run the workload live (goblin's own runners, their timeouts; GPU needed)");
  cmd->add_option("--budget", o->budget, "audit-tool calls per session (default 8)")->check(CLI::Range(1, 1000));
  cmd->add_option("-o,--out", o->out_dir, "where reports, patched configs and live runs go (default ./goblin-mcp)");
  cmd->add_option("--repeats", o->live_repeats, "live benchmark runs per call (default: the runner's 5)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--max-message", o->max_message_bytes, "largest JSON-RPC message in bytes (default 4 MiB)")
      ->check(CLI::Range(1024, 256 << 20));
  cmd->add_option("--max-result", o->max_result_bytes,
                  "largest tool result in bytes (default 4 MiB): past it long strings are cut with a note, or the "
                  "call answers with the size and how to ask for less")
      ->check(CLI::Range(4096, 256 << 20));
  cmd->add_option("--tool-timeout", o->tool_timeout_s,
                  "seconds one tool call may run (default 300): past it the call is stopped, answered with an error "
                  "naming the deadline, and the server goes on; a request may ask for less in "
                  "_meta[\"goblin/timeout_s\"]")
      ->check(CLI::Range(0.1, 86400.0));
  cmd->add_option("--eof-grace", o->eof_grace_s,
                  "seconds the requests sent before stdin closed may still run (default 5); then the running call is "
                  "stopped and the server exits 0")
      ->check(CLI::Range(0.0, 3600.0));
  cmd->callback([o, tools] {
    // Checked first: a wrong group name is the operator's typo, answered before anything starts.
    auto registry = mcp::make_registry(*tools);
    if (!registry) {
      std::cerr << "goblin mcp: " << registry.error().describe() << "\n";
      set_verb_exit_code(registry.error().exit_code());
      return;
    }
    auto roots = mcp::Roots::make(o->roots);
    if (!roots) {
      std::cerr << "goblin mcp: " << roots.error().describe() << "\n";
      set_verb_exit_code(roots.error().exit_code());
      return;
    }
    // Every read and write the tools do is confined from here on, at every depth (core/confine.h).
    ConfinementScope confined(mcp::confinement_of(*o, *roots));
    mcp::Session session(*o, *roots);
    const std::vector<std::string> server_groups = registry->groups();
    mcp::Server server(session, std::move(*registry));
    std::string groups;
    for (const auto& g : server_groups) groups += (groups.empty() ? "" : ",") + g;
    std::cerr << fmt::format("goblin mcp: serving on stdio (tools: {}; roots: {}, budget {}{}{})\n", groups,
                             roots->dirs().size(), o->budget, o->allow_live ? ", live runs allowed" : "",
                             o->replay_dir.empty() ? "" : ", replay " + o->replay_dir);

    set_verb_exit_code(mcp::serve_stdio(server));
  });
}

}  // namespace goblin::cli
