// The warning catalogue (model/warnings.h): ids are the stable names scripts match on, so each
// must be present, unique and snake_case, and each entry must say what it means.
#include "model/warnings.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace goblin {
namespace {

TEST(WarningCatalogue, IdsAreUniqueNonEmptySnakeCase) {
  std::set<std::string_view> seen;
  ASSERT_FALSE(warning_catalogue().empty());
  for (const WarningInfo& w : warning_catalogue()) {
    ASSERT_FALSE(w.id.empty());
    EXPECT_TRUE(seen.insert(w.id).second) << "duplicate id " << w.id;
    for (char c : w.id) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << w.id;
    EXPECT_NE(w.id.front(), '_') << w.id;
    EXPECT_NE(w.id.back(), '_') << w.id;
    EXPECT_FALSE(w.description.empty()) << w.id;
    // One line: the doc's table and the CLI's list print it as a table cell.
    EXPECT_EQ(w.description.find('\n'), std::string_view::npos) << w.id;
    EXPECT_EQ(w.description.find('|'), std::string_view::npos) << w.id;
  }
}

TEST(WarningCatalogue, EnumIndexesTheTable) {
  EXPECT_EQ(warning_id_name(W::kineto_damaged_event), "kineto_damaged_event");
  EXPECT_EQ(warning_info(W::ncu_row_short).severity, Severity::data_loss);
  EXPECT_EQ(severity_name(Severity::info), "info");
  EXPECT_EQ(severity_name(Severity::warning), "warning");
  EXPECT_EQ(severity_name(Severity::data_loss), "data_loss");
}

}  // namespace
}  // namespace goblin
