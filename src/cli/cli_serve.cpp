// goblin serve [--store URL] [--bind 127.0.0.1] [--port 8080] [--token T]: the dashboard
// (docs/dashboard.md; src/serve). Thin: options -> serve::Server::run. Not a registry verb: it is
// a door itself, a long-running server rather than a call with a result.
#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#include <iostream>

#include "cli/verb.h"
#include "cli/verbs.h"
#include "serve/server.h"

namespace goblin::cli {
namespace {
serve::Server* g_server = nullptr;
void on_signal(int) {
  if (g_server) g_server->stop();
}
}  // namespace

void register_serve(CLI::App& app) {
  auto o = std::make_shared<serve::ServeOptions>();
  auto token_env = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "serve",
      "The dashboard: an HTTP server over the run store (JSON API under /api/, pages with experiments, runs, "
      "comparisons, trends, audit calibration, kernel progress); read-only unless --token");
  cmd->footer(help_footer_with_examples(
      "  goblin serve --store sqlite:///srv/goblin/runs.db          http://127.0.0.1:8080/\n"
      "  goblin serve --port 9000 --token-env GOBLIN_SERVE_TOKEN    writes (tag, add runs) with the token\n"
      "  goblin serve --bind 0.0.0.0                                 other machines may connect\n"
      "  goblin serve --root traces/    then: curl 'http://127.0.0.1:8080/api/v1/triage?path=run1.json.gz'\n"
      "docs/dashboard.md lists the API and its limits.\n"));
  cmd->add_option("--store", o->store_url, "the run store (default $GOBLIN_STORE)");
  cmd->add_option("--bind", o->bind, "address to listen on (default 127.0.0.1: this machine only)");
  cmd->add_option("--port", o->port, "TCP port (default 8080; 0: any free port, printed)")->check(CLI::Range(0, 65535));
  cmd->add_option("--token", o->token,
                  "enable writes (tag a run, add a run) for requests with Authorization: Bearer TOKEN; prefer "
                  "--token-env (a command line is visible to other users)");
  cmd->add_flag("--token-env", *token_env, "read the token from $GOBLIN_SERVE_TOKEN");
  cmd->add_option("--root", o->roots,
                  "a directory whose files /api/v1/<verb> callers may name (repeatable; paths resolved after "
                  "symlinks must stay inside). None: the verb API reads no files")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--allow-host", o->allow_hosts,
                  "a Host name to answer besides the bound address (repeatable; a proxy's or a DNS alias's name). "
                  "Others are refused with 421 (DNS rebinding)");
  cmd->add_option("--threads", o->threads, "requests served at once (default 8)")->check(CLI::Range(1, 256));
  cmd->add_option("--queue", o->max_queued,
                  "connections waiting for a worker; past it a connection is answered 503 at once (default 64)")
      ->check(CLI::Range(1, 65536));
  cmd->add_option("--max-body", o->max_body_bytes, "largest request body in bytes (default 8 MiB)")
      ->check(CLI::Range(1024, 256 << 20));
  cmd->callback([o, token_env] {
    if (*token_env) {
      const char* t = std::getenv("GOBLIN_SERVE_TOKEN");
      if (!t || !*t) {
        std::cerr << "goblin serve: --token-env: $GOBLIN_SERVE_TOKEN is empty\n";
        set_verb_exit_code(2);
        return;
      }
      o->token = t;
    }
    serve::Server server(*o);
    g_server = &server;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    Status st = server.run([&](int port) {
      std::cerr << fmt::format("goblin serve: listening on http://{}:{}/ ({})\n", o->bind, port,
                               o->token.empty() ? "read-only" : "writes with the token");
    });
    g_server = nullptr;
    if (!st) {
      std::cerr << "goblin serve: " << st.error().describe() << "\n";
      set_verb_exit_code(st.error().exit_code());
    }
  });
}

}  // namespace goblin::cli
