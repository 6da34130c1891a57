// goblin kb lint | query SYMPTOM... | show ID | list : the cited rule base (audit/rules.h; the
// audit's query_kb step, docs/audit.md).
#include <functional>
#include <sstream>

#include "audit/rules.h"
#include "cli/verb.h"
#include "cli/verbs.h"

namespace goblin {
namespace {
// Every kb subcommand: a --json flag, then `body` over the loaded rule base (a rule base that
// does not load is the verb's error).
void on_rule_base(CLI::App* cmd, bool& json, std::function<void(const audit::RuleBase&, VerbResult&)> body) {
  cmd->add_flag("--json", json, "print the {ok, result, error} envelope");
  cmd->callback([&json, body = std::move(body)] {
    run_verb(json, [&body] {
      VerbResult r;
      auto base = audit::load_rule_base();
      if (!base) {
        r.error = base.error();
        return r;
      }
      body(*base, r);
      return r;
    });
  });
}
}  // namespace

void register_kb(CLI::App& app) {
  auto* kb = app.add_subcommand("kb", "The cited rule base: lint, query, show, list");
  kb->footer(
      help_footer_with_examples("  goblin kb query \"fp32 used on H100\" \"DataLoader num_workers=0\" --top 3\n"
                                "  goblin kb show data.dataloader_workers_zero       one rule with its citation\n"
                                "  goblin kb list --json                             every rule\n"
                                "  goblin kb lint                                    check the rule files\n"));
  kb->require_subcommand(1);
  struct Opts {
    bool json = false;
    std::vector<std::string> symptoms;
    int top_k = 5;
    std::string id;
  };
  // CLI11 binds options by reference: each subcommand's body holds `o`, so it lives as long as
  // the command tree.
  auto o = std::make_shared<Opts>();
  auto* lint = kb->add_subcommand("lint", "Check every rule (schema, citations, fields, detect not always-true)");
  lint->footer(help_footer_with_examples("  goblin kb lint --json\n"));
  on_rule_base(lint, o->json, [o](const audit::RuleBase& base, VerbResult& r) {
    auto problems = audit::lint_rules(base);
    r.result["rules"] = base.rules.size();
    r.result["problems"] = Json::array();
    std::ostringstream os;
    for (const auto& p : problems) {
      r.result["problems"].push_back(error_to_json(p));
      os << p.describe() << "\n";
    }
    os << base.rules.size() << " rules, " << problems.size() << " problems\n";
    r.human = os.str();
    if (!problems.empty())
      r.error = make_error(ErrorKind::Malformed, std::to_string(problems.size()) + " rule problems");
  });
  auto* query =
      kb->add_subcommand("query", "Search the rules by symptom words (offline); several symptoms: the union of hits");
  query->footer(help_footer_with_examples("  goblin kb query \"eager attention\" \"low GPU utilisation\" --top 3\n"));
  query->add_option("SYMPTOM", o->symptoms, "symptom strings")->required();
  query->add_option("--top,--top-k", o->top_k, "hits per symptom (default 5)")->check(CLI::Range(1, 1000));
  on_rule_base(query, o->json, [o](const audit::RuleBase& base, VerbResult& r) {
    if (o->top_k < 1) {
      r.error = make_error(ErrorKind::Usage, "--top-k must be at least 1");
      return;
    }
    auto hits = audit::kb_query(base, o->symptoms, o->top_k);
    r.result["queries"] = o->symptoms;
    r.result["hits"] = Json::array();
    std::ostringstream os;
    for (const auto& h : hits) {
      r.result["hits"].push_back(audit::kb_hit_to_json(h));
      os << round_to(h.score, 3) << "  " << h.rule->id << "  " << h.rule->title << "\n      " << h.rule->citation
         << "\n";
    }
    if (hits.empty()) os << "no rule matches; try other words\n";
    r.human = os.str();
  });
  auto* show = kb->add_subcommand("show", "Print one rule");
  show->footer(help_footer_with_examples("  goblin kb show precision.bf16_amp_over_fp32\n"));
  show->add_option("ID", o->id, "rule id")->required();
  on_rule_base(show, o->json, [o](const audit::RuleBase& base, VerbResult& r) {
    const audit::Rule* rule = base.find(o->id);
    if (!rule) {
      r.error = make_error(ErrorKind::NotFound, "no rule '" + o->id + "' (see `goblin kb list`)");
      return;
    }
    r.result = audit::rule_to_json(*rule);
    r.human = r.result.dump(2);
  });
  auto* list = kb->add_subcommand("list", "List every rule");
  list->footer(help_footer_with_examples("  goblin kb list --json\n"));
  on_rule_base(list, o->json, [o](const audit::RuleBase& base, VerbResult& r) {
    std::ostringstream os;
    r.result = Json::array();
    for (const auto& rule : base.rules) {
      r.result.push_back(
          {{"id", rule.id}, {"vendor", rule.vendor}, {"category", rule.category}, {"title", rule.title}});
      os << rule.id << "  [" << rule.vendor << ", " << rule.category << "]  " << rule.title << "\n";
    }
    r.human = os.str();
  });
}
}  // namespace goblin
