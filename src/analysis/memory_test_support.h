// Test-only helper of the memory tests (memory_test.cpp, memory_events_test.cpp and the audit's
// batch-rule tests; header-only, not part of the library): data/memory_categories.yaml parsed.
#pragma once
#include <gtest/gtest.h>

#include "analysis/memory.h"
#include "core/data.h"

namespace goblin::testing {

// The category rules every memory analysis takes (a failed load fails the calling test and
// categorises with empty rules).
inline analysis::MemoryCategoryRules memory_category_rules() {
  auto text = load_data_file("memory_categories.yaml");
  EXPECT_TRUE(text.ok()) << (text.ok() ? "" : text.error().describe());
  if (!text.ok()) return {};
  auto r = analysis::parse_memory_categories(*text, "memory_categories.yaml");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : analysis::MemoryCategoryRules{};
}

}  // namespace goblin::testing
