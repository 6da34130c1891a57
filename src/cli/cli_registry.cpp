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
    const app::Verb* verb = &v;
    cmd->callback([verb, slots] {
      run_verb(slots->json, [&]() -> VerbResult {
        app::Context ctx;
        if (!slots->json)
          ctx.text_out = [](std::string_view t) { std::cout.write(t.data(), static_cast<std::streamsize>(t.size())); };
        // A live verb's progress lines (bench's runs, the audit's steps) go to stderr, so stdout
        // keeps only the result, --json or not.
        ctx.progress = [](double, const std::string& line) { std::cerr << terminal_text(line) << "\n"; };
        return app::call(*verb, arguments(*verb, *slots), app::kCli, ctx);
      });
    });
  }
}

}  // namespace goblin::cli
