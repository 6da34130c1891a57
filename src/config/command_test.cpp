// Command lines as a config (scan_command.cpp, command_editor.cpp, shell_words.cpp): launch lines
// in shell scripts, Slurm batch scripts, Makefiles and README code blocks, flags mapped to fields,
// argparse defaults of the launched script, in-place patches that keep quoting and continuations,
// DeepSpeed JSON and accelerate YAML keys, and hostile input (unterminated quotes, huge lines, NUL
// bytes) failing with the line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "config/command_line.h"
#include "config/config_editor.h"
#include "config/shell_words.h"
#include "config/workload_config.h"
#include "core/io.h"

using namespace goblin;
using namespace goblin::config;
namespace fs = std::filesystem;

namespace {

std::string patch(const std::string& text, const std::string& file, const std::map<std::string, Json>& edits,
                  std::vector<std::string>* unplaced = nullptr, std::map<std::string, std::string>* refused = nullptr) {
  auto c = parse_config_text(text, kCommandFormat, file);
  EXPECT_TRUE(c.ok()) << c.error().describe();
  if (!c.ok()) return "";
  std::vector<std::string> u;
  auto out = edit_config_text(text, *c, edits, unplaced ? unplaced : &u, refused);
  EXPECT_TRUE(out.ok()) << out.error().describe();
  return out.ok() ? *out : "";
}

// A temporary folder holding the launched script, removed after the test.
struct TempDir {
  fs::path p;
  TempDir() {
    p = fs::temp_directory_path() / fs::path(fmt::format("goblin_cmd_{}_", ::getpid()) +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(p);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(p, ec);
  }
};

const char* kRunClm =
    "#!/bin/bash\n"
    "#SBATCH --gres=gpu:8   # a directive is a comment to the shell\n"
    "export NCCL_DEBUG=INFO\n"
    "python run_clm.py \\\n"
    "    --model_name_or_path 'gpt2' \\\n"
    "    --per_device_train_batch_size 2 \\\n"
    "    --gradient_accumulation_steps=4 \\\n"
    "    --output_dir \"/tmp/out dir\" 2>&1 | tee log.txt\n";

}  // namespace

TEST(CommandLine, HfFlagsOfAShellScriptAreFields) {
  auto c = parse_config_text(kRunClm, kCommandFormat, "train.sh");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->get("batch_size"), 2);
  EXPECT_EQ(c->get("grad_accum_steps"), 4);
  EXPECT_EQ(c->get("model_name"), "gpt2");
  EXPECT_EQ(c->get("precision"), "fp32");  // HF default: neither --bf16 nor --fp16
  EXPECT_EQ(c->env_vars.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(c->origins.at("batch_size").line, 6);
  EXPECT_EQ(c->extras.at("output_dir"), "/tmp/out dir");
  EXPECT_EQ(sniff_config_format("train.sh", kRunClm), kCommandFormat);
  EXPECT_EQ(sniff_config_format("vars.sh", "export A=1\n"), ConfigFormat::Env);  // no launch line: env file
}

TEST(CommandLine, PatchEditsInPlaceAndKeepsContinuations) {
  const std::string out = patch(kRunClm, "train.sh",
                                {{"batch_size", 8},
                                 {"grad_accum_steps", 2},
                                 {"precision", "bf16"},
                                 {"dataloader_workers", 4},
                                 {"env.NCCL_DEBUG", "WARN"}});
  EXPECT_NE(out.find("    --per_device_train_batch_size 8 \\\n"), std::string::npos) << out;
  EXPECT_NE(out.find("--gradient_accumulation_steps=2 \\\n"), std::string::npos) << out;
  // New flags go after the last word, each on a continuation line, before the redirection and pipe.
  EXPECT_NE(out.find("--output_dir \"/tmp/out dir\" \\\n    --dataloader_num_workers 4 \\\n    --bf16 2>&1 | tee "
                     "log.txt\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("export NCCL_DEBUG=WARN\n"), std::string::npos) << out;
  auto back = parse_config_text(out, kCommandFormat, "train.sh");
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->get("batch_size"), 8);
  EXPECT_EQ(back->get("precision"), "bf16");
  EXPECT_EQ(back->get("dataloader_workers"), 4);
  EXPECT_EQ(back->extras.at("output_dir"), "/tmp/out dir");
}

TEST(CommandLine, BareSwitchesFlipAndLaunchersAreRead) {
  const std::string line = "torchrun --nproc_per_node 8 --standalone train.py --bf16 --torch_compile\n";
  auto c = parse_config_text(line, kCommandFormat, "launch.sh");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->get("world_size"), 8);
  EXPECT_EQ(c->get("precision"), "bf16");
  EXPECT_EQ(c->get("torch_compile"), true);
  const std::string out = patch(line, "launch.sh", {{"precision", "fp16"}, {"torch_compile", false}});
  EXPECT_EQ(out, "torchrun --nproc_per_node 8 --standalone train.py --fp16\n");
  auto acc = parse_config_text("accelerate launch --mixed_precision bf16 --num_processes 4 train.py --lr 3e-4\n",
                               kCommandFormat, "a.sh");
  ASSERT_TRUE(acc.ok()) << acc.error().describe();
  EXPECT_EQ(acc->get("precision"), "bf16");
  EXPECT_EQ(acc->get("world_size"), 4);
  EXPECT_DOUBLE_EQ(acc->get("lr").get<double>(), 3e-4);
  auto ds = parse_config_text("deepspeed --num_gpus 2 train.py --deepspeed ds.json\n", kCommandFormat, "d.sh");
  ASSERT_TRUE(ds.ok()) << ds.error().describe();
  EXPECT_EQ(ds->get("world_size"), 2);
  EXPECT_EQ(ds->extras.at("deepspeed"), "ds.json");
}

TEST(CommandLine, ArgparseDefaultsAndOnlyDeclaredFlags) {
  TempDir d;
  ASSERT_TRUE(write_file((d.p / "train.py").string(),
                         "import argparse\n"
                         "p = argparse.ArgumentParser()\n"
                         "p.add_argument('--batch-size', type=int, default=16)\n"
                         "p.add_argument(\"--bf16\", action=\"store_true\")\n"
                         "p.add_argument('--num_workers', type=int, default=0, help='loader workers')\n")
                  .ok());
  const std::string sh = "python3 train.py --batch-size 4\n";
  const std::string file = (d.p / "run.sh").string();
  auto c = parse_config_text(sh, kCommandFormat, file);
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->get("batch_size"), 4);
  EXPECT_EQ(c->get("dataloader_workers"), 0);  // the script's default
  EXPECT_EQ(c->origins.at("dataloader_workers").file, (d.p / "train.py").lexically_normal().string());
  EXPECT_EQ(c->origins.at("dataloader_workers").line, 5);
  EXPECT_EQ(c->get("precision"), "fp32");  // store_true --bf16 not given
  auto bare = parse_config_text("python3 train.py\n", kCommandFormat, file);
  ASSERT_TRUE(bare.ok()) << bare.error().describe();
  EXPECT_EQ(bare->get("batch_size"), 16);  // the first add_argument's default
  std::vector<std::string> unplaced;
  std::map<std::string, std::string> refused;
  const std::string out =
      patch(sh, file, {{"precision", "bf16"}, {"dataloader_workers", 8}, {"torch_compile", true}}, &unplaced, &refused);
  EXPECT_EQ(out, "python3 train.py --batch-size 4 --num_workers 8 --bf16\n");
  ASSERT_EQ(unplaced, std::vector<std::string>{"torch_compile"});
  EXPECT_NE(refused["torch_compile"].find("declares no flag for torch_compile"), std::string::npos);
}

TEST(CommandLine, MakefileAndReadmeBlocks) {
  const std::string mk = "train:\n\t@python train.py --per_device_train_batch_size=$(BS) --fp16\n";
  auto m = parse_config_text(mk, kCommandFormat, "Makefile");
  ASSERT_TRUE(m.ok()) << m.error().describe();
  EXPECT_TRUE(m->get("batch_size").is_null());  // $(BS): make expands it, goblin does not
  EXPECT_EQ(m->get("precision"), "fp16");
  const std::string md =
      "# Train\nDon't forget the data.\n\n```bash\n$ python run_clm.py --per_device_train_batch_size 2 --bf16\n```\n"
      "```python\nx = 'unterminated\n```\n";
  auto r = parse_config_text(md, kCommandFormat, "README.md");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->get("batch_size"), 2);
  EXPECT_EQ(r->origins.at("batch_size").line, 5);
  EXPECT_EQ(sniff_config_format("README.md", md), kCommandFormat);
}

TEST(CommandLine, DeepSpeedJsonAndAccelerateYaml) {
  auto ds = parse_config_text(
      "{\"train_micro_batch_size_per_gpu\": 4, \"gradient_accumulation_steps\": 8, \"bf16\": {\"enabled\": true},"
      " \"zero_optimization\": {\"stage\": 2}}",
      ConfigFormat::Json, "ds.json");
  ASSERT_TRUE(ds.ok()) << ds.error().describe();
  EXPECT_EQ(ds->get("batch_size"), 4);
  EXPECT_EQ(ds->get("grad_accum_steps"), 8);
  EXPECT_EQ(ds->get("precision"), "bf16");
  EXPECT_EQ(ds->extras.at("zero_optimization.stage"), "2");
  auto acc = parse_config_text("compute_environment: LOCAL_MACHINE\nmixed_precision: fp16\nnum_processes: 8\n",
                               ConfigFormat::Yaml, "default_config.yaml");
  ASSERT_TRUE(acc.ok()) << acc.error().describe();
  EXPECT_EQ(acc->get("precision"), "fp16");
  EXPECT_EQ(acc->get("world_size"), 8);
}

TEST(CommandLine, SeveralLaunchLinesTheTrainingOneIsTheConfig) {
  // A data step, the training run and an evaluation: all three are read, the one with the most
  // training fields is the config, and a warning names it and the others.
  const std::string sh =
      "python prepare_data.py --dataset_name wikitext\n"
      "torchrun --nproc_per_node 8 train.py --per_device_train_batch_size 4 --bf16 \\\n"
      "    --gradient_accumulation_steps 2\n"
      "python eval.py --per_device_train_batch_size 16\n";
  auto c = parse_config_text(sh, kCommandFormat, "run.sh");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->get("batch_size"), 4);
  EXPECT_EQ(c->get("world_size"), 8);
  EXPECT_EQ(c->origins.at("batch_size").line, 2);
  bool named = false;
  for (const auto& w : c->warnings)
    if (w.message.find("3 launch commands") != std::string::npos) {
      named = true;
      EXPECT_EQ(w.line, 2);
      EXPECT_NE(w.message.find("line 2 (torchrun train.py"), std::string::npos) << w.message;
      EXPECT_NE(w.message.find("line 1 (0 training fields)"), std::string::npos) << w.message;
      EXPECT_NE(w.message.find("line 4 (1 training field)"), std::string::npos) << w.message;
    }
  EXPECT_TRUE(named);
  // The patch edits the chosen line only.
  const std::string out = patch(sh, "run.sh", {{"batch_size", 8}});
  EXPECT_EQ(out,
            "python prepare_data.py --dataset_name wikitext\n"
            "torchrun --nproc_per_node 8 train.py --per_device_train_batch_size 8 --bf16 \\\n"
            "    --gradient_accumulation_steps 2\n"
            "python eval.py --per_device_train_batch_size 16\n");
  // One launch line: no warning about others.
  auto one = parse_config_text("python train.py --per_device_train_batch_size 4\n", kCommandFormat, "one.sh");
  ASSERT_TRUE(one.ok());
  for (const auto& w : one->warnings) EXPECT_EQ(w.message.find("launch commands"), std::string::npos);
}

TEST(CommandLine, DeepSpeedJsonOfTheLineIsMerged) {
  TempDir d;
  const std::string ds_text =
      "{\n  \"train_batch_size\": 64,\n  \"train_micro_batch_size_per_gpu\": 4,\n"
      "  \"gradient_accumulation_steps\": \"auto\",\n  \"bf16\": {\"enabled\": true},\n"
      "  \"zero_optimization\": {\"stage\": 3}\n}\n";
  ASSERT_TRUE(write_file((d.p / "ds.json").string(), ds_text).ok());
  const std::string sh = "deepspeed --num_gpus 2 train.py --deepspeed ds.json --gradient_accumulation_steps 2\n";
  const std::string file = (d.p / "run.sh").string();
  auto c = parse_config_text(sh, kCommandFormat, file);
  ASSERT_TRUE(c.ok()) << c.error().describe();
  const std::string ds = (d.p / "ds.json").lexically_normal().string();
  EXPECT_EQ(c->get("batch_size"), 4);  // the micro batch, not the global train_batch_size
  EXPECT_EQ(c->origins.at("batch_size").file, ds);
  EXPECT_EQ(c->origins.at("batch_size").line, 3);
  EXPECT_EQ(c->get("grad_accum_steps"), 2);  // "auto" in the JSON: the line's flag
  EXPECT_EQ(c->get("precision"), "bf16");
  EXPECT_EQ(c->extras.at("zero_optimization.stage"), "3");
  EXPECT_EQ(c->get("world_size"), 2);
  // A field the JSON sets is not added to the line (HF refuses a differing TrainingArguments value).
  std::vector<std::string> unplaced;
  std::map<std::string, std::string> refused;
  EXPECT_EQ(patch(sh, file, {{"batch_size", 8}}, &unplaced, &refused), sh);
  ASSERT_EQ(unplaced, std::vector<std::string>{"batch_size"});
  EXPECT_NE(refused["batch_size"].find("ds.json sets train_micro_batch_size_per_gpu on line 3"), std::string::npos)
      << refused["batch_size"];
  // A DeepSpeed JSON that does not parse is an error naming it.
  ASSERT_TRUE(write_file((d.p / "ds.json").string(), "{\"bf16\": {\"enabled\": tru").ok());
  auto bad = parse_config_text(sh, kCommandFormat, file);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().describe().find("ds.json"), std::string::npos) << bad.error().describe();
}

TEST(CommandLineHostile, ErrorsNameTheLine) {
  auto q = parse_config_text("echo ok\npython train.py --output_dir 'oops\n", kCommandFormat, "t.sh");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(q.error().line, 2);
  EXPECT_NE(q.error().message.find("unterminated single quote"), std::string::npos) << q.error().message;
  auto dq = parse_config_text("python train.py --x \"a\n\nb\n", kCommandFormat, "t.sh");
  ASSERT_FALSE(dq.ok());
  EXPECT_EQ(dq.error().line, 1);
  auto nul = parse_config_text(std::string("python train.py\n--x 1\0\n", 23), kCommandFormat, "t.sh");
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.error().line, 2);
  auto none = parse_config_text("echo hello\n", kCommandFormat, "t.sh");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no launch command"), std::string::npos);
}

TEST(CommandLineHostile, MegabyteLinesStayLinear) {
  // 1 MB of short flags on one line parses; one 1 MB word is refused with its line.
  std::string many = "python train.py";
  while (many.size() < (1u << 20)) many += " --per_device_train_batch_size 2";
  auto c = parse_config_text(many + "\n", kCommandFormat, "big.sh");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->get("batch_size"), 2);
  auto w = parse_config_text("\n\npython train.py --x " + std::string(1u << 20, 'a') + "\n", kCommandFormat, "big.sh");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().line, 3);
  EXPECT_NE(w.error().message.find("shell word longer"), std::string::npos) << w.error().message;
  // Heredoc bodies are not shell: an apostrophe there is text.
  auto h = parse_config_text("cat <<EOF > notes\nit's fine\nEOF\npython train.py --fp16\n", kCommandFormat, "h.sh");
  ASSERT_TRUE(h.ok()) << h.error().describe();
  EXPECT_EQ(h->get("precision"), "fp16");
}

TEST(ShellWords, QuotingAndSpans) {
  const std::string s = "A=1 python x.py --a 'b c' --d=\"e\\\"f\" $(echo g) # tail\n";
  auto cmds = shell_commands(s, ShellDialect::Shell, "s.sh");
  ASSERT_TRUE(cmds.ok());
  ASSERT_EQ(cmds->size(), 1u);
  const auto& w = (*cmds)[0].words;
  ASSERT_EQ(w.size(), 7u);
  EXPECT_EQ(w[4].text, "b c");
  EXPECT_EQ(s.substr(w[4].begin, w[4].end - w[4].begin), "'b c'");
  EXPECT_EQ(w[5].text, "--d=e\"f");
  EXPECT_TRUE(w[6].expands);
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("bf16"), "bf16");
}

TEST(ThroughputUnit, ChosenFromTheConfig) {
  auto img = parse_config_text("python3 train_images.py --img-size 224 --batch-size 16\n", kCommandFormat, "i.sh");
  ASSERT_TRUE(img.ok()) << img.error().describe();
  EXPECT_EQ(throughput_unit(*img), "images");
  EXPECT_EQ(items_per_step(*img), 16.0);
  auto clm = parse_config_text(
      "python run_clm.py --per_device_train_batch_size 2 --gradient_accumulation_steps 4 --block_size 1024\n",
      kCommandFormat, "c.sh");
  ASSERT_TRUE(clm.ok()) << clm.error().describe();
  EXPECT_EQ(throughput_unit(*clm), "tokens");
  EXPECT_EQ(items_per_step(*clm), 2.0 * 4 * 1024);
  auto only_batch = parse_config_text("batch_size: 8\n", ConfigFormat::Yaml, "b.yaml");
  ASSERT_TRUE(only_batch.ok());
  EXPECT_EQ(throughput_unit(*only_batch), "samples");
  EXPECT_EQ(items_per_step(*only_batch), 8.0);
}
