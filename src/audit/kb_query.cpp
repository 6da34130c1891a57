// Offline retrieval over the rule base (`goblin kb query`): BM25 over rule text.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "audit/rules.h"

namespace goblin::audit {

// ---- BM25 -------------------------------------------------------------------------------------

static std::vector<std::string> tokens(const std::string& s) {
  static const std::set<std::string> stop = {"the",  "a",    "an",  "of",  "on",  "in", "for",  "to", "and", "or", "is",
                                             "with", "when", "set", "use", "not", "no", "from", "by", "at",  "as"};
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty() && !stop.count(cur)) out.push_back(cur);
    cur.clear();
  };
  for (char ch : s) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else
      flush();
  }
  flush();
  return out;
}

std::vector<KbHit> kb_query(const RuleBase& kb, const std::vector<std::string>& queries, int top_k) {
  const double k1 = 1.2, b = 0.75;
  std::vector<std::map<std::string, int>> tf(kb.rules.size());
  std::vector<double> len(kb.rules.size());
  std::map<std::string, int> df;
  for (size_t i = 0; i < kb.rules.size(); ++i) {
    const Rule& r = kb.rules[i];
    std::string text = r.id + " " + r.title + " " + r.category + " " + r.targets_bucket;
    for (const auto& s : r.symptoms) text += " " + s;
    for (const auto& [f, v] : r.transform) text += " " + f + " " + fmt_json(v);
    auto t = tokens(text);
    len[i] = static_cast<double>(t.size());
    for (const auto& w : t) tf[i][w]++;
    for (const auto& [w, n] : tf[i]) df[w]++;
  }
  double avg = 0;
  for (double l : len) avg += l;
  avg = kb.rules.empty() ? 1 : avg / static_cast<double>(kb.rules.size());
  const double N = static_cast<double>(kb.rules.size());
  std::map<size_t, KbHit> merged;
  for (const auto& q : queries) {
    auto qt = tokens(q);
    std::vector<std::pair<double, size_t>> scored;
    for (size_t i = 0; i < kb.rules.size(); ++i) {
      double s = 0;
      for (const auto& w : qt) {
        auto it = tf[i].find(w);
        if (it == tf[i].end()) continue;
        double idf = std::log(1 + (N - df[w] + 0.5) / (df[w] + 0.5));
        double f = it->second;
        s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len[i] / avg));
      }
      if (s > 0) scored.push_back({s, i});
    }
    std::sort(scored.begin(), scored.end(), [&](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : kb.rules[x.second].id < kb.rules[y.second].id;
    });
    for (size_t j = 0; j < scored.size() && static_cast<int>(j) < top_k; ++j) {
      auto& h = merged[scored[j].second];
      h.rule = &kb.rules[scored[j].second];
      h.score = std::max(h.score, scored[j].first);
      h.matched_queries.push_back(q);
    }
  }
  std::vector<KbHit> out;
  for (auto& [i, h] : merged) out.push_back(h);
  std::sort(out.begin(), out.end(), [](const KbHit& x, const KbHit& y) {
    return x.score != y.score ? x.score > y.score : x.rule->id < y.rule->id;
  });
  return out;
}

}  // namespace goblin::audit
