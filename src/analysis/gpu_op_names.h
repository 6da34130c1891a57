// The taxonomy category and canonical name of each distinct GPU-op name of a Timeline, worked out
// once per name (classifying is a series of regular expressions): rank_profile and goblin
// summarize's extras (analysis/rank_summary.h) both read it, so a rank's names are classified
// once. Apart from ranks.h, which analysis/knowledge.h (and so nearly every file) includes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/ranks.h"

namespace goblin::hw {
struct HwKnowledge;  // hw/knowledge.h
}

namespace goblin::analysis {

struct GpuOpNames {
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  struct Name {
    uint32_t cat = 0;  // index into `categories`
    std::string canonical;
  };
  std::vector<uint32_t> slot;           // per StrId of the Timeline's pool: index into `names`, or kNoSlot
  std::vector<Name> names;              // the distinct kernel names
  std::vector<std::string> categories;  // distinct categories, in first-seen order
  const Name& of(StrId id) const { return names[slot[id]]; }
};

// Every kernel name of `tl.gpu_ops` (memcpy and memset rows keep kNoSlot).
GpuOpNames gpu_op_names(const Timeline& tl, const Taxonomy& tax);
// rank_profile (ranks.h) over names already classified; the vendor from `hw`'s kernel markers
// (hw::vendor_of_timeline), so a caller with its own knowledge context loads no other.
RankProfile rank_profile(const Timeline& tl, const Taxonomy& tax, const CollectiveKnowledge& ck,
                         const GpuOpNames& names, const hw::HwKnowledge& hw);

}  // namespace goblin::analysis
