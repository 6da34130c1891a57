// Patches that would change what they do not say (issue #35): a config goblin cannot read
// completely is reported as unknown and left unedited, naming the line, and a byte-order mark
// neither hides the first key nor shifts an edit.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "config/config_editor.h"
#include "config/workload_config.h"

using namespace goblin;
using namespace goblin::config;

namespace {

struct Edited {
  std::string text;
  std::vector<std::string> unplaced;
  std::map<std::string, std::string> refused;
};

WorkloadConfig parse(const std::string& text, ConfigFormat fmt, const std::string& file = "train.py") {
  auto c = parse_config_text(text, fmt, file);
  EXPECT_TRUE(c.ok()) << c.error().describe();
  return c.ok() ? *c : WorkloadConfig{};
}

Edited edit(const std::string& text, ConfigFormat fmt, const std::map<std::string, Json>& edits,
            const std::string& file = "train.py") {
  Edited e;
  auto out = edit_config_text(text, parse(text, fmt, file), edits, &e.unplaced, &e.refused);
  EXPECT_TRUE(out.ok()) << out.error().describe();
  if (out.ok()) e.text = *out;
  return e;
}

bool has_warning(const WorkloadConfig& c, const std::string& part) {
  for (const auto& w : c.warnings)
    if (w.message.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(PatchSafety, KeywordsUnpackedFromADictAreNotDuplicated) {
  const std::string py =
      "from transformers import TrainingArguments\n"
      "common = dict(bf16=True, per_device_train_batch_size=8)\n"
      "args = TrainingArguments(output_dir=\"out\", **common)\n";
  WorkloadConfig c = parse(py, ConfigFormat::Python);
  // The dict may set bf16: the precision is unknown, not the HF default fp32.
  EXPECT_TRUE(c.get("precision").is_null());
  EXPECT_TRUE(has_warning(c, "**common"));
  Edited e = edit(py, ConfigFormat::Python, {{"precision", "bf16"}});
  EXPECT_EQ(e.text, py);  // nothing inserted: bf16= beside **common could raise TypeError
  ASSERT_EQ(e.unplaced, std::vector<std::string>{"precision"});
  EXPECT_NE(e.refused["precision"].find("line 3"), std::string::npos) << e.refused["precision"];
  EXPECT_NE(e.refused["precision"].find("**common"), std::string::npos);
}

TEST(PatchSafety, TwoTrainingArgumentsCallsAreNotGuessedBetween) {
  const std::string py =
      "from transformers import TrainingArguments\n"
      "debug_args = TrainingArguments(output_dir=\"dbg\", max_steps=1, dataloader_num_workers=0)\n"
      "args = TrainingArguments(output_dir=\"out\", dataloader_num_workers=0)\n";
  Edited e = edit(py, ConfigFormat::Python, {{"dataloader_workers", 4}, {"precision", "bf16"}});
  EXPECT_EQ(e.text, py);
  EXPECT_EQ(e.unplaced.size(), 2u);
  EXPECT_NE(e.refused["dataloader_workers"].find("lines 2, 3"), std::string::npos) << e.refused["dataloader_workers"];
  EXPECT_NE(e.refused["precision"].find("lines 2, 3"), std::string::npos);
}

TEST(PatchSafety, ALaterAttributeWriteIsTheValueAndWhatThePatchEdits) {
  const std::string py =
      "from transformers import TrainingArguments\n"
      "args = TrainingArguments(output_dir=\"out\", bf16=True, dataloader_num_workers=4)\n"
      "args.bf16 = False\n"
      "args.dataloader_num_workers = 0\n";
  WorkloadConfig c = parse(py, ConfigFormat::Python);
  EXPECT_EQ(c.get("precision"), "fp32");  // what the script runs with
  EXPECT_EQ(c.get("dataloader_workers"), 0);
  EXPECT_EQ(c.origins.at("dataloader_workers").line, 4);
  EXPECT_TRUE(has_warning(c, "overrides"));
  Edited e = edit(py, ConfigFormat::Python, {{"dataloader_workers", 8}, {"precision", "bf16"}});
  EXPECT_TRUE(e.unplaced.empty());
  EXPECT_NE(e.text.find("args.bf16 = True\n"), std::string::npos) << e.text;
  EXPECT_NE(e.text.find("args.dataloader_num_workers = 8\n"), std::string::npos) << e.text;
  WorkloadConfig after = parse(e.text, ConfigFormat::Python);
  EXPECT_EQ(after.get("precision"), "bf16");
  EXPECT_EQ(after.get("dataloader_workers"), 8);
}

TEST(PatchSafety, AnExpressionIsUnknownAndNeverOverwrittenWithALiteral) {
  const std::string py =
      "import os\n"
      "from transformers import TrainingArguments\n"
      "USE_BF16 = os.environ.get(\"BF16\") == \"1\"\n"
      "WORKERS = os.cpu_count() // 2\n"
      "args = TrainingArguments(output_dir=\"out\", bf16=USE_BF16, dataloader_num_workers=WORKERS)\n";
  WorkloadConfig c = parse(py, ConfigFormat::Python);
  EXPECT_TRUE(c.get("precision").is_null()) << c.get("precision");  // not "fp32, bf16/fp16 not set"
  EXPECT_TRUE(c.get("dataloader_workers").is_null());
  EXPECT_EQ(c.origins.at("precision.bf16").expression, "USE_BF16");
  EXPECT_TRUE(has_warning(c, "precision is unknown"));
  EXPECT_EQ(config_to_json(c)["origins"]["dataloader_workers"]["expression"], "WORKERS");
  Edited e = edit(py, ConfigFormat::Python, {{"dataloader_workers", 8}, {"precision", "bf16"}});
  EXPECT_EQ(e.text, py);
  EXPECT_NE(e.refused["dataloader_workers"].find("line 5"), std::string::npos) << e.refused["dataloader_workers"];
  EXPECT_NE(e.refused["dataloader_workers"].find("WORKERS"), std::string::npos);
  EXPECT_NE(e.refused["precision"].find("USE_BF16"), std::string::npos) << e.refused["precision"];
}

TEST(PatchSafety, AByteOrderMarkHidesNoKeyAndShiftsNoEdit) {
  const std::string bom = "\xEF\xBB\xBF";
  // JSON: read as the object it is (was: empty), and edited in place with the mark kept.
  const std::string json = bom + "{\"per_device_train_batch_size\": 8, \"dataloader_num_workers\": 0}\n";
  WorkloadConfig j = parse(json, ConfigFormat::Json, "args.json");
  EXPECT_EQ(j.get("batch_size"), 8);
  EXPECT_EQ(sniff_config_format("args", json), ConfigFormat::Json);
  Edited je = edit(json, ConfigFormat::Json, {{"dataloader_workers", 4}}, "args.json");
  EXPECT_EQ(je.text, bom + "{\"per_device_train_batch_size\": 8, \"dataloader_num_workers\": 4}\n");
  // env: the first variable is read (was: lost to the mark).
  const std::string env = bom + "NCCL_DEBUG=INFO\nPYTORCH_CUDA_ALLOC_CONF=expandable_segments:False\n";
  WorkloadConfig en = parse(env, ConfigFormat::Env, "run.env");
  EXPECT_EQ(en.env_vars.count("NCCL_DEBUG"), 1u);
  Edited ee = edit(env, ConfigFormat::Env, {{"env.PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}}, "run.env");
  EXPECT_EQ(ee.text, bom + "NCCL_DEBUG=INFO\nPYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n");
  // YAML: the edit lands on the value, not 3 bytes before it.
  const std::string yaml = bom + "per_device_train_batch_size: 8\ndataloader_num_workers: 0\n";
  Edited ye = edit(yaml, ConfigFormat::Yaml, {{"dataloader_workers", 4}}, "train.yaml");
  EXPECT_EQ(ye.text, bom + "per_device_train_batch_size: 8\ndataloader_num_workers: 4\n");
  EXPECT_EQ(parse(ye.text, ConfigFormat::Yaml, "train.yaml").get("dataloader_workers"), 4);
}
