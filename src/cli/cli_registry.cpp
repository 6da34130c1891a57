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
};

// The subcommand for a command path, creating the parent words ("kb") on first use.
CLI::App* command_for(CLI::App& root, const app::Verb& v) {
  CLI::App* at = &root;
  for (size_t i = 0; i + 1 < v.cli_path.size(); ++i) {
    CLI::App* next = nullptr;
    for (CLI::App* sub : at->get_subcommands([](const CLI::App*) { return true; }))
      if (sub->get_name() == v.cli_path[i]) next = sub;
    if (!next) {
      next = at->add_subcommand(v.cli_path[i], parent_summary(v.cli_path[i]));
      next->footer(help_footer_with_examples(parent_examples(v.cli_path[i])));
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

std::string parent_summary(const std::string& word) {
  if (word == "kb") return "The cited rule base: lint, query, show, list";
  if (word == "kernel")
    return "Kernel optimization workspace: Step 0 roofline, bench, ncu diagnosis, record, plan, suite";
  if (word == "store")
    return "The run store (SQLite or PostgreSQL): init, add, ls, show, rm, migrate, export, trend, calibration";
  return word;
}

std::string parent_examples(const std::string& word) {
  if (word == "kb")
    return "  goblin kb query \"fp32 used on H100\" \"DataLoader num_workers=0\" --top 3\n"
           "  goblin kb show data.dataloader_workers_zero       one rule with its citation\n"
           "  goblin kb list --json                             every rule\n"
           "  goblin kb lint                                    check the rule files\n";
  if (word == "kernel")
    return "  goblin kernel init softmax --kernel v0.py --platform H100 --shape M=32768,N=8192 --dtype bf16\n"
           "  goblin kernel bench /tmp/kernel_opt_softmax      correctness + honest timing\n"
           "  goblin kernel profile /tmp/kernel_opt_softmax    ncu on the kernel's launches + diagnosis\n"
           "  goblin kernel record /tmp/kernel_opt_softmax --summary \"single pass, row in registers\"\n"
           "  goblin kernel plan /tmp/kernel_opt_softmax       next candidates (plans/v<N>_plan.md)\n"
           "  goblin kernel status /tmp/kernel_opt_softmax     history, best version, stop or continue\n"
           "  goblin kernel suite DIR --platform H100 -o OUT   KernelBench's metrics over a directory\n"
           "Workflow and the kernel file's contract: docs/kernel.md\n";
  if (word == "store")
    return "  goblin store init --store sqlite:///srv/goblin/runs.db\n"
           "  goblin store add out/triage out/audit --experiment exp42 --trial t3\n"
           "  goblin store ls --workload llama-8b --json\n"
           "  goblin store show 12\n";
  return "";
}

void register_verb(CLI::App& root, const std::string& cli_name) {
  for (const app::Verb& v : app::verbs()) {
    if (v.cli_name() != cli_name) continue;
    CLI::App* cmd = command_for(root, v);
    cmd->footer(help_footer_with_examples(v.examples));
    auto slots = std::make_shared<Slots>();
    for (const Field& f : v.request)
      if (f.doors & app::kCli) add_field(cmd, f, *slots);
    cmd->add_flag("--json", slots->json, "Print the {ok, result, error} envelope");
    const app::Verb* verb = &v;
    cmd->callback([verb, slots] {
      run_verb(slots->json, [&]() -> VerbResult {
        std::vector<std::string> missing;
        auto rq = app::make_request(*verb, arguments(*verb, *slots), app::kCli, &missing);
        if (!rq) return VerbResult{nullptr, rq.error(), ""};
        if (!missing.empty())
          return VerbResult{nullptr, make_error(ErrorKind::Usage, "missing " + missing.front()), ""};
        app::Context ctx;
        ctx.door = app::kCli;
        if (!slots->json)
          ctx.text_out = [](std::string_view t) { std::cout.write(t.data(), static_cast<std::streamsize>(t.size())); };
        // A live verb's progress lines (bench's runs, the audit's steps) go to stderr, so stdout
        // keeps only the result, --json or not.
        ctx.progress = [](double, const std::string& line) { std::cerr << line << "\n"; };
        return app::run_verb(*verb, *rq, ctx);
      });
    });
  }
}

void register_verb_group(CLI::App& root, const std::string& first_word) {
  for (const app::Verb& v : app::verbs())
    if (v.cli_path.front() == first_word) register_verb(root, v.cli_name());
}

}  // namespace goblin::cli
