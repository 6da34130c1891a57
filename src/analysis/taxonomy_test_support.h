// Test-only helpers of the taxonomy tests (taxonomy_test.cpp, taxonomy_corpus_test.cpp,
// serving_taxonomy_test.cpp and the analyses' tests; header-only, not part of the library): the embedded
// data/taxonomy.yaml parsed once, and the check of kernel names against the category and family they must get.
#pragma once
#include <gtest/gtest.h>

#include <span>

#include "analysis/taxonomy.h"

namespace goblin::testing {

// data/taxonomy.yaml, parsed on first use (a failed load fails the calling test and classifies
// with an empty taxonomy).
inline const analysis::Taxonomy& taxonomy() {
  static const analysis::Taxonomy t = [] {
    auto r = analysis::Taxonomy::load();
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().describe());
    return r.ok() ? r.value() : analysis::Taxonomy{};
  }();
  return t;
}

struct ExpectedClass {
  const char* name;
  const char* category;
  const char* family;
  const char* rule = "";  // the deciding rule's id; "" = not checked
};

// Each name must be classified into its category and family by a rule (by `rule` where given; the
// rule id is named on a mismatch).
inline void expect_classes(std::span<const ExpectedClass> cases) {
  for (const ExpectedClass& e : cases) {
    const analysis::KernelClass k = taxonomy().classify(e.name);
    EXPECT_EQ(k.category, e.category) << e.name << " (rule " << k.rule_id << ")";
    EXPECT_EQ(k.family, e.family) << e.name << " (rule " << k.rule_id << ")";
    EXPECT_FALSE(k.rule_id.empty()) << e.name;
    if (*e.rule) EXPECT_EQ(k.rule_id, e.rule) << e.name;
  }
}

}  // namespace goblin::testing
