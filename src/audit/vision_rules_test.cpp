// The convolution rules (data/rules/compute.yaml: layout.channels_last, conv.cudnn_benchmark,
// sync.log_every_step) on the repository's CNN workload, workloads/vision/train_cnn.sh (a launch
// line over an argparse ResNet-18 script), with the evidence of a real convolutional profile: the
// bundled ResNet-50 Kineto trace (tests/fixtures/kineto/kineto_2021_legacy_resnet50.json.gz), whose
// kernel time is mostly cuDNN convolutions.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/run_metrics.h"
#include "audit/patch.h"
#include "audit/rules.h"
#include "config/config_editor.h"
#include "config/workload_config.h"
#include "core/data.h"
#include "core/io.h"
#include "core/test_support.h"
#include "trace/readers.h"

using namespace goblin;
using namespace goblin::audit;
namespace fs = std::filesystem;

namespace {

std::string src(const std::string& rel) { return std::string(GOBLIN_SOURCE_DIR) + "/" + rel; }

analysis::RunMetrics resnet50_metrics() {
  set_data_dir(GOBLIN_DATA_DIR);
  Timeline tl;
  Status st = trace::read_path(std::string(GOBLIN_FIXTURES) + "/kineto/kineto_2021_legacy_resnet50.json.gz", tl);
  EXPECT_TRUE(st.ok()) << st.error().describe();
  auto m = analysis::compute_run_metrics(tl);
  EXPECT_TRUE(m.ok());
  return m.ok() ? *m : analysis::RunMetrics{};
}

// The workload's launch script and its Python script, copied side by side (the scanner reads the
// script's argparse declarations from beside the launch script).
std::string workload_copy() {
  static const fs::path dir = goblin::testing::private_tmp_dir("vision_rules");
  for (const char* f : {"train_cnn.sh", "train_cnn.py"})
    fs::copy_file(src(std::string("workloads/vision/") + f), dir / f, fs::copy_options::overwrite_existing);
  return (dir / "train_cnn.sh").string();
}

bool applied(const Patch& p, const std::string& id) {
  for (const auto& r : p.rationale)
    if (r.rule_id == id) return true;
  return false;
}

}  // namespace

TEST(VisionRules, ConvolutionProfilePatchesTheCnnLaunchLine) {
  const analysis::RunMetrics m = resnet50_metrics();
  auto kb = knowledge();
  ASSERT_TRUE(kb.ok());
  const std::string sh = workload_copy();
  auto cfg = config::parse_config_file(sh);
  ASSERT_TRUE(cfg.ok()) << cfg.error().describe();
  EXPECT_EQ(cfg->get("image_size"), 224);
  EXPECT_EQ(cfg->get("channels_last"), false);  // store_true, not given
  EXPECT_EQ(cfg->get("cudnn_benchmark"), false);
  EXPECT_EQ(cfg->get("log_interval"), 1);

  PatchOptions po;
  po.rule_ids = {"layout.channels_last", "conv.cudnn_benchmark", "sync.log_every_step"};
  po.metrics = &m;
  auto p = make_patch(sh, po, **kb);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  for (const char* id : {"layout.channels_last", "conv.cudnn_benchmark", "sync.log_every_step"})
    EXPECT_TRUE(applied(p->result, id)) << id << " did not apply";
  // Edited in place: the interval's value, and the two switches the script declares, appended
  // on continuation lines of their own.
  const std::string& out = p->patched_text;
  EXPECT_NE(out.find("--log-interval 50"), std::string::npos) << out;
  EXPECT_NE(out.find("--channels-last"), std::string::npos) << out;
  EXPECT_NE(out.find("--cudnn-benchmark"), std::string::npos) << out;
  EXPECT_TRUE(p->result.roundtrip_ok);
  EXPECT_EQ(p->result.new_config["channels_last"], true);
  EXPECT_EQ(p->result.new_config["cudnn_benchmark"], true);
  EXPECT_EQ(p->result.new_config["log_interval"], 50);
}

TEST(VisionRules, NoConvolutionsNoCnnRule) {
  // The same workload with an LLM's profile (GEMM kernels, no convolutions): conv_share is
  // observed and small, so neither layout rule fires.
  analysis::RunMetrics m;
  m.step_time_s = 0.2;
  m.gpu_name = "NVIDIA H100 80GB HBM3";
  m.waste_budget.useful_gpu = 0.15;
  m.top_kernels.push_back({"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", "gemm", "gemm", 90.0, 0.1, 10});
  auto kb = knowledge();
  ASSERT_TRUE(kb.ok());
  PatchOptions po;
  po.rule_ids = {"layout.channels_last", "conv.cudnn_benchmark"};
  po.metrics = &m;
  auto p = make_patch(workload_copy(), po, **kb);
  ASSERT_TRUE(p.ok()) << p.error().describe();
  EXPECT_FALSE(applied(p->result, "layout.channels_last"));
  EXPECT_FALSE(applied(p->result, "conv.cudnn_benchmark"));
}

TEST(VisionRules, PlainScriptGetsTheCudnnStatement) {
  // A plain script that sets the autotuner off: its assignment is the field, edited in place.
  const fs::path dir = goblin::testing::private_tmp_dir("vision_rules_py");
  const std::string py = (dir / "train.py").string();
  ASSERT_TRUE(write_file(py, "import torch\ntorch.backends.cudnn.benchmark = False\nmodel = Net()\n").ok());
  auto cfg = config::parse_config_file(py);
  ASSERT_TRUE(cfg.ok()) << cfg.error().describe();
  EXPECT_EQ(cfg->get("cudnn_benchmark"), false);
  EXPECT_EQ(cfg->origins.at("cudnn_benchmark").line, 2);
  std::vector<std::string> unplaced;
  auto out = config::edit_config_text("import torch\ntorch.backends.cudnn.benchmark = False\nmodel = Net()\n", *cfg,
                                      {{"cudnn_benchmark", true}, {"channels_last", true}}, &unplaced);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "import torch\ntorch.backends.cudnn.benchmark = True\nmodel = Net()\n");
  // channels_last converts the script's own model and inputs: advice, not an edit.
  EXPECT_EQ(unplaced, std::vector<std::string>{"channels_last"});
  // Without the assignment the statement goes after the imports.
  const std::string bare = "import torch\nmodel = Net()\n";
  ASSERT_TRUE(write_file(py, bare).ok());
  auto c2 = config::parse_config_file(py);
  ASSERT_TRUE(c2.ok());
  unplaced.clear();
  auto out2 = config::edit_config_text(bare, *c2, {{"cudnn_benchmark", true}}, &unplaced);
  ASSERT_TRUE(out2.ok());
  EXPECT_NE(out2->find("torch.backends.cudnn.benchmark = True\n"), std::string::npos) << *out2;
  EXPECT_TRUE(unplaced.empty());
}
