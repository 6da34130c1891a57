// The patch on hostile configs (issue 14): an edit that would not parse back is refused (never
// written), diff headers name the file as given, and what the patch shows is redacted while the
// patched text keeps the user's values.
#include <gtest/gtest.h>

#include "audit/patch.h"
#include "audit/rules.h"

using namespace goblin;
using namespace goblin::audit;

namespace {

PatchOptions tf32_nvidia() {
  PatchOptions o;
  o.rule_ids = {"precision.tf32_matmul_nvidia"};
  o.vendor = "nvidia";
  return o;
}

TEST(HostilePatch, AnEditThatWouldNotParseBackIsRefused) {
  auto kb = knowledge();
  ASSERT_TRUE(kb.ok()) << kb.error().describe();
  // A flow mapping at the top: a new key appended below it is not part of it.
  auto p =
      make_patch_text("{model_name_or_path: gpt2, per_device_train_batch_size: 4}\n", "flow.yaml", tf32_nvidia(), **kb);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  ASSERT_TRUE(p->unsafe.has_value());
  EXPECT_EQ(p->unsafe->kind, ErrorKind::Malformed);
  EXPECT_NE(p->unsafe->message.find("would not parse back"), std::string::npos) << p->unsafe->message;
  EXPECT_FALSE(p->result.roundtrip_ok);
  auto good = make_patch_text("model_name_or_path: gpt2\n", "ok.yaml", tf32_nvidia(), **kb);
  ASSERT_TRUE(good.ok());
  EXPECT_FALSE(good->unsafe.has_value());
  EXPECT_TRUE(good->result.roundtrip_ok);
}

TEST(HostilePatch, DiffHeadersNameTheFileAsGiven) {
  EXPECT_EQ(diff_display_path("/abs/path/train.yaml"), "train.yaml");
  EXPECT_EQ(diff_display_path("./configs/train.yaml"), "configs/train.yaml");
  EXPECT_EQ(diff_display_path("train.yaml"), "train.yaml");
  auto kb = knowledge();
  ASSERT_TRUE(kb.ok());
  auto p = make_patch_text("model_name_or_path: gpt2\n", "/abs/path/train.yaml", tf32_nvidia(), **kb);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->result.diff.rfind("--- a/train.yaml\n+++ b/train.yaml\n", 0), 0u) << p->result.diff;
}

TEST(HostilePatch, ShownTextIsRedactedTheWrittenTextIsNot) {
  auto kb = knowledge();
  ASSERT_TRUE(kb.ok());
  const std::string cfg =
      "model_name_or_path: gpt2\nwandb_api_key: 9f8e7d6c5b4a39281706f5e4d3c2b1a098765432\n"
      "env:\n  WANDB_API_KEY: 1a2b3c4d5e6f7a8b9c0d\n";
  auto p = make_patch_text(cfg, "s.yaml", tf32_nvidia(), **kb);
  ASSERT_TRUE(p.ok());
  const std::string shown = patch_to_json(p->result).dump();
  EXPECT_EQ(shown.find("9f8e7d6c5b4a"), std::string::npos);
  EXPECT_EQ(shown.find("1a2b3c4d5e6f"), std::string::npos);
  EXPECT_NE(p->patched_text.find("9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"), std::string::npos);
  EXPECT_NE(p->patched_text.find("1a2b3c4d5e6f7a8b9c0d"), std::string::npos);
}

}  // namespace
