#include "app/per_rank.h"

#include <fmt/format.h>

#include <filesystem>

#include "analysis/ranks.h"

namespace goblin::app {

int64_t rank_hint(const std::string& path, size_t index) {
  const int64_t r = analysis::rank_from_name(std::filesystem::path(path).filename().string());
  return r >= 0 ? r : static_cast<int64_t>(index);
}

VerbResult for_each_rank(const std::vector<std::string>& paths, const std::string& key,
                         const std::function<RankOutcome(const std::string& path, size_t index)>& one) {
  VerbResult all;
  Json ranks = Json::array();
  for (size_t i = 0; i < paths.size(); ++i) {
    RankOutcome out = one(paths[i], i);
    std::string from;
    int64_t rank =
        out.timeline ? analysis::rank_of(*out.timeline, paths[i], &from) : analysis::rank_from_name(paths[i]);
    if (rank >= 0 && from.empty()) from = "file name";
    if (rank < 0) from = "order", rank = static_cast<int64_t>(i);
    const VerbResult& vr = out.result;
    Json entry;
    entry["rank"] = rank;
    entry["rank_from"] = from;
    entry["source"] = paths[i];
    entry[key] = vr.result.is_null() ? Json(nullptr) : vr.result;
    entry["error"] = vr.error ? error_to_json(*vr.error) : Json(nullptr);
    ranks.push_back(std::move(entry));
    all.human += "== rank " + fmt::to_string(rank) + " (" + paths[i] + ") ==\n" +
                 (vr.human.empty() && vr.error ? "error: " + vr.error->describe() + "\n" : vr.human) + "\n";
    if (vr.error && !all.error) all.error = vr.error;
  }
  all.result = Json{{"ranks", std::move(ranks)}};
  return all;
}

}  // namespace goblin::app
