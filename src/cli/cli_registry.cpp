// The CLI door of the verb registry (app/verb.h): each registered verb becomes a subcommand whose
// options are generated from its request fields, and whose callback turns the parsed options into
// the same JSON arguments any other door would send, validates them with app::make_request, runs
// the verb and prints its VerbResult (cli/verb.h). No verb logic lives here.
#include <iostream>
#include <map>
#include <memory>

#include "app/verb.h"
#include "cli/verb.h"
#include "cli/verbs.h"
#include "core/escape.h"
#include "core/phases.h"

namespace goblin::cli {

namespace {

using app::Field;
using app::FieldKind;

// Storage CLI11 binds the options to, one slot per field, alive as long as the command tree.
struct Slots {
  std::map<std::string, std::string> text;
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, int64_t> integers;
  std::map<std::string, double> numbers;
  std::map<std::string, bool> flags;
  std::map<std::string, CLI::Option*> options;
  bool json = false;
  // The trace-reading options every verb that reads a trace takes (add_trace_options).
  int64_t threads = 0;
  CLI::Option* threads_opt = nullptr;
  bool phase_times = false;
};

// A verb reads traces when its positional input is a file or files (info, triage, metrics, ...).
bool reads_traces(const app::Verb& v) {
  for (const Field& f : v.request)
    if (f.positional && (f.kind == FieldKind::InputPath || f.kind == FieldKind::InputPaths)) return true;
  return false;
}

// --threads and --phase-times, declared once for every verb that reads a trace. They tune how the
// command runs, not what it answers, so they are options of the CLI door (the process's worker
// threads and its phase table, core/phases.h), not request fields: a result is the same whatever
// the thread count. A verb with a `threads` field of its own (ranks) keeps it; its value sets the
// worker threads too.
void add_trace_options(CLI::App* cmd, const app::Verb& v, Slots& s) {
  bool own = false;
  for (const Field& f : v.request) own = own || f.name == "threads";
  if (!own) {
    s.threads_opt =
        cmd->add_option("--threads", s.threads,
                        "Threads that read and analyse one trace (default: the machine's cores, at most 16; 1: one "
                        "thread). Results are identical whatever the count")
            ->check(CLI::Range(1, 256));
  }
  cmd->add_flag("--phase-times", s.phase_times,
                "Print where the time went, phase by phase (read, parse, merge, sort, each analysis), to stderr");
}

// Sets the process's worker threads and phase table from the parsed options.
void apply_trace_options(const Slots& s) {
  int n = default_worker_threads();
  if (s.threads_opt && s.threads_opt->count() > 0) n = static_cast<int>(s.threads);
  if (auto it = s.options.find("threads"); it != s.options.end() && it->second->count() > 0)
    n = static_cast<int>(s.integers.at("threads"));
  set_worker_threads(n);
  set_phase_times(s.phase_times);
}

// The subcommand for a command path, creating the parent words ("kb") on first use.
CLI::App* command_for(CLI::App& root, const app::Verb& v) {
  CLI::App* at = &root;
  for (size_t i = 0; i + 1 < v.cli_path.size(); ++i) {
    CLI::App* next = nullptr;
    for (CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; }))
      if (sub->get_name() == v.cli_path[i]) next = sub;
    if (!next) {
      const app::VerbGroup* g = app::find_group(v.cli_path[i]);
      next = at->add_subcommand(v.cli_path[i], g ? g->summary : v.cli_path[i]);
      next->footer(help_footer_with_examples(g ? g->examples : ""));
      next->require_subcommand(1);
    }
    at = next;
  }
  return at->add_subcommand(v.cli_path.back(), v.summary);
}

void add_field(CLI::App* cmd, const Field& f, Slots& s) {
  // A positional's CLI name is its field name unless Field::cli spells it ("CONFIG").
  const std::string name = !f.cli.empty() ? f.cli : f.positional ? f.name : app::cli_flag(f);
  CLI::Option* opt = nullptr;
  switch (f.kind) {
    case FieldKind::Boolean:
      opt = cmd->add_flag(name, s.flags[f.name], f.help);
      break;
    case FieldKind::Integer:
      opt = cmd->add_option(name, s.integers[f.name], f.help);
      // Whole-number limits when both are whole ("INT in [1 - 1000]"); a one-sided limit keeps
      // the open side as a double.
      if (f.min && f.max)
        opt->check(CLI::Range(static_cast<int64_t>(*f.min), static_cast<int64_t>(*f.max)));
      else if (f.min || f.max)
        opt->check(CLI::Range(f.min.value_or(-9e18), f.max.value_or(9e18)));
      break;
    case FieldKind::Number:
      opt = cmd->add_option(name, s.numbers[f.name], f.help);
      if (f.min || f.max) opt->check(CLI::Range(f.min.value_or(-1e300), f.max.value_or(1e300)));
      break;
    case FieldKind::StringList:
    case FieldKind::InputPaths:
      opt = cmd->add_option(name, s.lists[f.name], f.help);
      if (!f.positional) opt->delimiter(',');
      break;
    case FieldKind::Object:
    case FieldKind::Array:
      return;  // JSON doors only
    default:
      opt = cmd->add_option(name, s.text[f.name], f.help);
      if (!f.choices.empty()) opt->check(CLI::IsMember(f.choices));
  }
  if (f.required) opt->required();
  // Shown only: the value a request gets when the option is absent comes from make_request.
  if (f.cli_show_default && !f.default_value.is_null())
    opt->default_str(f.default_value.is_string() ? f.default_value.get<std::string>() : f.default_value.dump());
  if (f.cli_hidden) opt->group("");
  s.options[f.name] = opt;
}

// The parsed options as the JSON arguments of the request (only what the user gave).
Json arguments(const app::Verb& v, const Slots& s) {
  Json a = Json::object();
  for (const Field& f : v.request) {
    auto it = s.options.find(f.name);
    if (it == s.options.end() || it->second->count() == 0) continue;
    switch (f.kind) {
      case FieldKind::Boolean:
        a[f.name] = s.flags.at(f.name);
        break;
      case FieldKind::Integer:
        a[f.name] = s.integers.at(f.name);
        break;
      case FieldKind::Number:
        a[f.name] = s.numbers.at(f.name);
        break;
      case FieldKind::StringList:
      case FieldKind::InputPaths:
        a[f.name] = s.lists.at(f.name);
        break;
      default:
        a[f.name] = s.text.at(f.name);
    }
  }
  return a;
}

}  // namespace

void register_verbs(CLI::App& root) {
  for (const app::Verb& v : app::verbs()) {
    if (!(v.doors & app::kCli)) continue;
    CLI::App* cmd = command_for(root, v);
    cmd->footer(help_footer_with_examples(v.examples));
    auto slots = std::make_shared<Slots>();
    for (const Field& f : v.request)
      if (f.doors & app::kCli) add_field(cmd, f, *slots);
    cmd->add_flag("--json", slots->json, "Print the {ok, result, error} envelope");
    const bool traces = reads_traces(v);
    if (traces) add_trace_options(cmd, v, *slots);
    const app::Verb* verb = &v;
    cmd->callback([verb, slots, traces] {
      if (traces) apply_trace_options(*slots);
      run_verb(slots->json, [&]() -> VerbResult {
        app::Context ctx;
        if (!slots->json)
          ctx.text_out = [](std::string_view t) { std::cout.write(t.data(), static_cast<std::streamsize>(t.size())); };
        // A live verb's progress lines (bench's runs, the audit's steps) go to stderr, so stdout
        // keeps only the result, --json or not.
        ctx.progress = [](double, const std::string& line) { std::cerr << terminal_text(line) << "\n"; };
        return app::call(*verb, arguments(*verb, *slots), app::kCli, ctx);
      });
      if (const std::string t = phase_times_text(); !t.empty()) std::cerr << t;
    });
  }
}

}  // namespace goblin::cli
