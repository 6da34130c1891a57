// Hostile configs (issue 14, docs/robustness.md): limits instead of crashes and hangs, secrets
// redacted by key name as well as by shape, multi-document YAML, the Python statement insertion
// that once glued two lines together, and the Myers diff.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <iterator>
#include <string>

#include "config/config_editor.h"
#include "config/unified_diff.h"
#include "config/workload_config.h"
#include "core/limits.h"

using namespace goblin;
using namespace goblin::config;

namespace {

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::string yaml_bomb(int levels) {
  std::string y = "batch_size: 8\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  for (int i = 1; i <= levels; ++i) {
    fmt::format_to(std::back_inserter(y), "a{}: &a{} [", i, i);
    for (int k = 0; k < 9; ++k) fmt::format_to(std::back_inserter(y), "{}{}", k ? ",*a" : "*a", i - 1);
    y += "]\n";
  }
  return y;
}

TEST(HostileConfig, JsonNestedPastTheLimitIsMalformedNotACrash) {
  const std::string prefix = "{\"per_device_train_batch_size\": 8, \"x\": ";
  const std::string deep = prefix + repeat("[", 30000) + repeat("]", 30000) + "}";
  auto c = parse_config_text(deep, ConfigFormat::Json, "deep.json");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::Malformed);
  EXPECT_NE(c.error().message.find("nested deeper than 128 levels"), std::string::npos) << c.error().message;
  // The bracket past the limit: the object is level 1, so the 128th '[' is level 129.
  EXPECT_EQ(c.error().byte_offset, static_cast<int64_t>(prefix.size()) + limits::kMaxConfigDepth - 1);
  // Within the limit the same shape parses.
  const std::string ok = "{\"per_device_train_batch_size\": 8, \"x\": " + repeat("[", 100) + repeat("]", 100) + "}";
  auto c2 = parse_config_text(ok, ConfigFormat::Json, "ok.json");
  ASSERT_TRUE(c2.ok()) << c2.error().describe();
  EXPECT_EQ(c2->get("batch_size"), 8);
}

TEST(HostileConfig, YamlAliasBombStopsAtTheNodeLimit) {
  for (int levels : {5, 9}) {
    auto c = parse_config_text(yaml_bomb(levels), ConfigFormat::Yaml, "bomb.yaml");
    ASSERT_FALSE(c.ok()) << levels;
    EXPECT_EQ(c.error().kind, ErrorKind::Malformed);
    EXPECT_NE(c.error().message.find("aliases (*name) are followed"), std::string::npos) << c.error().message;
  }
  // A few aliases are fine: 3 levels of 9 expand to about a thousand nodes.
  auto small = parse_config_text(yaml_bomb(3), ConfigFormat::Yaml, "small.yaml");
  ASSERT_TRUE(small.ok()) << small.error().describe();
  EXPECT_EQ(small->get("batch_size"), 8);
}

TEST(HostileConfig, YamlBlocksNestedPastTheLimit) {
  std::string y;
  for (int i = 0; i < 200; ++i) y += std::string(2 * i, ' ') + fmt::format("k{}:\n", i);

  y += std::string(400, ' ') + "v: 1\n";
  auto c = parse_config_text(y, ConfigFormat::Yaml, "deep.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("nested deeper than 128 levels"), std::string::npos) << c.error().message;
}

TEST(HostileConfig, PythonNestedCallsAreLinearAndEnvLinesAreCapped) {
  // 100,000 nested calls: the scanner matches brackets once (it used to rescan each call).
  const std::string py = "import torch\nx = " + repeat("DataLoader(", 100000) + "1" + repeat(")", 100000) + "\n";
  auto c = parse_config_text(py, ConfigFormat::Python, "train.py");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  std::string env;
  for (size_t i = 0; i <= limits::kMaxConfigNodes; ++i) fmt::format_to(std::back_inserter(env), "V{}=1\n", i);
  auto e = parse_config_text(env, ConfigFormat::Env, "big.env");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("more than 200000 variables"), std::string::npos);
}

TEST(HostileConfig, MultiDocumentYamlIsReadAndPatchedInTheFirstDocument) {
  const std::string y =
      "---\nmodel_name_or_path: gpt2\nper_device_train_batch_size: 4\n---\nmodel_name_or_path: other\n";
  auto c = parse_config_text(y, ConfigFormat::Yaml, "multi.yaml");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->get("model_name"), "gpt2");
  ASSERT_FALSE(c->warnings.empty());
  EXPECT_NE(c->warnings[0].message.find("more than one YAML document"), std::string::npos);
  EXPECT_EQ(c->warnings[0].id, W::config_several_yaml_documents);
  auto patched = edit_config_text(y, *c, {{"tf32", true}, {"env.NCCL_DEBUG", "INFO"}}, nullptr);
  ASSERT_TRUE(patched.ok());
  const size_t second = patched->find("---\nmodel_name_or_path: other");
  ASSERT_NE(second, std::string::npos) << *patched;
  EXPECT_LT(patched->find("tf32: true"), second) << *patched;
  EXPECT_LT(patched->find("NCCL_DEBUG"), second) << *patched;
  auto back = parse_config_text(*patched, ConfigFormat::Yaml, "multi.yaml");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->get("tf32"), true);
  EXPECT_EQ(back->get("env.NCCL_DEBUG"), "INFO");
}

TEST(HostileConfig, PythonStatementsGoOnTheirOwnLinesImportsFirst) {
  // The TF32 line used to be inserted without its newline: "allow_tf32 = Truebatch_size = 8".
  const std::string py = "import sys\nbatch_size = 8\nmodel = build()\n";
  auto c = parse_config_text(py, ConfigFormat::Python, "train.py");
  ASSERT_TRUE(c.ok());
  auto patched = edit_config_text(py, *c, {{"tf32", true}, {"env.NCCL_DEBUG", "INFO"}}, nullptr);
  ASSERT_TRUE(patched.ok());
  EXPECT_NE(patched->find("\nimport os\n"), std::string::npos) << *patched;
  EXPECT_NE(patched->find("\nimport torch\n"), std::string::npos) << *patched;
  EXPECT_LT(patched->find("import os"), patched->find("os.environ[")) << *patched;
  EXPECT_LT(patched->find("import torch"), patched->find("torch.backends")) << *patched;
  EXPECT_NE(patched->find("torch.backends.cuda.matmul.allow_tf32 = True\nbatch_size = 8\n"), std::string::npos)
      << *patched;
  auto back = parse_config_text(*patched, ConfigFormat::Python, "train.py");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->get("tf32"), true);
  EXPECT_EQ(back->get("batch_size"), Json());  // a plain module constant is not a field
}

// Found by fuzz_config_python: an f-string key (os.environ[f"..."] = ...) has no known name; the
// scan threw an uncaught JSON type error on it. Now the line is not a config entry.
TEST(PythonScan, EnvironWithAnFStringKeyIsSkippedNotACrash) {
  const std::string py =
      "import os\nos.environ[fr\"HF_{name}\"] = \"1\"\nos.environ[\"NCCL_DEBUG\"] = \"INFO\"\nbatch_size = 8\n";
  auto c = parse_config_text(py, ConfigFormat::Python, "train.py");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->get("env.NCCL_DEBUG"), "INFO");
}

// Two TrainingArguments calls, a debug one first: the debug call's batch size was reported as the
// run's. Now the call passed to the trainer is read (else the last), and a warning says which.
TEST(PythonScan, SeveralTrainingArgumentsCallsReadTheTrainersOne) {
  const std::string trained =
      "from transformers import Trainer, TrainingArguments\n"
      "debug_args = TrainingArguments(output_dir='dbg', per_device_train_batch_size=1, max_steps=2)\n"
      "args = TrainingArguments(output_dir='out', per_device_train_batch_size=32, bf16=True)\n"
      "smoke = TrainingArguments(output_dir='smoke', per_device_train_batch_size=2)\n"
      "trainer = Trainer(model=model, args=args, train_dataset=ds)\n";
  auto c = parse_config_text(trained, ConfigFormat::Python, "train.py");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->get("batch_size"), 32);
  EXPECT_EQ(c->origins.at("batch_size").line, 3);
  bool said = false;
  for (const auto& w : c->warnings)
    if (w.id == W::config_value_overridden) {
      said = true;
      EXPECT_NE(w.message.find("lines 2, 3, 4"), std::string::npos) << w.message;
      EXPECT_NE(w.message.find("line 3 because it builds `args`, the arguments the trainer is given on line 5"),
                std::string::npos)
          << w.message;
    }
  EXPECT_TRUE(said);
  // Positional: SFTTrainer(model, real_args).
  auto p = parse_config_text(
      "a = TrainingArguments(per_device_train_batch_size=1)\nreal_args = TrainingArguments(per_device_train_batch_"
      "size=16)\nt = SFTTrainer(model, real_args)\n",
      ConfigFormat::Python, "sft.py");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->get("batch_size"), 16);
  // No trainer call: the last call is read, and the warning says so.
  auto l = parse_config_text(
      "debug = TrainingArguments(per_device_train_batch_size=1)\nreal = TrainingArguments(per_device_train_batch_"
      "size=8)\n",
      ConfigFormat::Python, "t.py");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->get("batch_size"), 8);
  ASSERT_FALSE(l->warnings.empty());
  EXPECT_NE(l->warnings.back().message.find("the last one built is read"), std::string::npos);
}

TEST(SecretKeys, NamesThatHoldCredentialsAndNamesThatDoNot) {
  for (const char* k : {"wandb_api_key", "WANDB_API_KEY", "aws_secret_access_key", "api_key", "apiKey", "password",
                        "db_password", "hub_token", "HF_TOKEN", "token", "access_token", "client_secret", "private_key",
                        "OPENAI_API_KEY", "credentials", "authToken"})
    EXPECT_TRUE(is_secret_key(k)) << k;
  for (const char* k : {"pad_token", "eos_token", "max_tokens", "max_new_tokens", "tokenizer_name", "num_tokens",
                        "model_name_or_path", "dataloader_num_workers", "output_dir", "sort_key", "PWD"})
    EXPECT_FALSE(is_secret_key(k)) << k;
  for (const char* v :
       {"true", "False", "", "null", "<your-key>", "${WANDB_API_KEY}", "$HF_TOKEN", "hf_<redacted>", "os.environ['X']"})
    EXPECT_FALSE(is_redactable_secret_value(v)) << v;
  EXPECT_TRUE(is_redactable_secret_value("9f8e7d6c5b4a39281706f5e4d3c2b1a098765432"));
  EXPECT_TRUE(is_redactable_secret_value("hunter2"));
}

TEST(SecretKeys, ParseConfigRedactsByKeyNameAndUrlCredentials) {
  const std::string y =
      "model_name_or_path: gpt2\n"
      "wandb_api_key: 9f8e7d6c5b4a39281706f5e4d3c2b1a098765432\n"
      "aws_secret_access_key: wJalrXUtnFEMIK7MDENGbPxRfiCYSECRETKEY01\n"
      "password: hunter2\n"
      "pad_token: \"<pad>\"\n"
      "report_url: https://trainer:Sup3rS3cretPw@metrics.example.com/push\n"
      "use_auth_token: true\n";
  auto c = parse_config_text(y, ConfigFormat::Yaml, "s.yaml");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->extras.at("wandb_api_key"), "<redacted>");
  EXPECT_EQ(c->extras.at("aws_secret_access_key"), "<redacted>");
  EXPECT_EQ(c->extras.at("password"), "<redacted>");
  EXPECT_EQ(c->extras.at("pad_token"), "<pad>");
  EXPECT_EQ(c->extras.at("report_url"), "https://<redacted>@metrics.example.com/push");
  EXPECT_EQ(c->extras.at("use_auth_token"), "true");
  const std::string out = config_to_json(*c).dump() + config_to_text(*c);
  for (const char* s : {"9f8e7d6c5b4a", "wJalrXUtnFEMI", "hunter2", "Sup3rS3cretPw"})
    EXPECT_EQ(out.find(s), std::string::npos) << s;
}

// The kinds parse-config still printed: a MySQL password, an SSH key, an auth value, a cookie,
// a Slack webhook URL, a SendGrid key, and URL passwords holding ; ' , " < # ? or a space.
TEST(SecretKeys, RemainingKindsAndUrlPasswordsWithAnyCharacter) {
  for (const char* k : {"mysql_pwd", "MYSQL_PWD", "ssh_key", "SSH_PRIVATE_KEY", "auth", "http_auth", "cookie",
                        "session_cookie", "SLACK_WEBHOOK_URL", "webhook", "sendgrid_key"})
    EXPECT_TRUE(is_secret_key(k)) << k;
  for (const char* k : {"PWD", "OLDPWD", "author", "authors", "cookie_cutter_template"})
    EXPECT_FALSE(is_secret_key(k)) << k;
  const std::string y =
      "mysql_pwd: Myp4ssw0rdValue\n"
      "ssh_key: AAAAB3NzaC1yc2EAAAADAQABAAABAQ\n"
      "auth: dXNlcjpTM2NyZXRBdXRo\n"
      "cookie: sessionid=Co0kieSecretValue\n"
      "notify: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX\n"
      "mail: SG.abcdefghijklmnopqrstuv.ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq\n";
  auto c = parse_config_text(y, ConfigFormat::Yaml, "s.yaml");
  ASSERT_TRUE(c.ok()) << c.error().describe();
  const std::string out = config_to_json(*c).dump() + config_to_text(*c) + redact_text(y);
  for (const char* s : {"Myp4ssw0rd", "AAAAB3NzaC1yc2E", "dXNlcjpTM2NyZXRBdXRo", "Co0kieSecret", "XXXXXXXXXXXXXXXX",
                        "abcdefghijklmnopqrstuv.ABCDEF"})
    EXPECT_EQ(out.find(s), std::string::npos) << s << "\n" << out;
  for (const std::string pw : {"p;w", "p'w", "p,w", "p\"w", "p<w", "p#w", "p?w", "p w", "a;b'c,d\"e<f#g?h i"}) {
    const std::string url = "postgresql://goblin:Zx9" + pw + "Secret@db.example.com:5432/runs";
    for (const std::string& text : {url, "cannot connect to " + url + ": timeout", "{\"store\": \"" + url + "\"}"}) {
      const std::string r = redact_credentials(text);
      EXPECT_EQ(r.find("Secret"), std::string::npos) << r;
      EXPECT_EQ(r.find("Zx9"), std::string::npos) << r;
      EXPECT_NE(r.find("postgresql://<redacted>@db.example.com:5432/runs"), std::string::npos) << r;
    }
  }
}

TEST(SecretKeys, RawLinesOfEveryFormat) {
  const std::string text =
      "+wandb_api_key: 9f8e7d6c5b4a39281706\n"
      "     \"aws_secret_access_key\": \"wJalrXUtnFEMIK7MDENG\",\n"
      "+os.environ[\"WANDB_API_KEY\"] = \"1a2b3c4d5e6f7a8b9c0d\"\n"
      " os.environ.setdefault(\"DB_PASSWORD\", \"pw-Env-Only-42\")\n"
      " args = TrainingArguments(output_dir=\"x\", hub_token=\"abc123def456\")\n"
      "-export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENG\n"
      " pad_token: <pad>\n"
      " url: postgres://u:Sup3rS3cretPw@db/x\n";
  const std::string r = redact_text(text);
  for (const char* s :
       {"9f8e7d6c5b4a", "wJalrXUtnFEMI", "1a2b3c4d5e6f", "pw-Env-Only", "abc123def456", "Sup3rS3cretPw"})
    EXPECT_EQ(r.find(s), std::string::npos) << s << "\n" << r;
  EXPECT_NE(r.find("output_dir=\"x\""), std::string::npos) << r;
  EXPECT_NE(r.find(" pad_token: <pad>\n"), std::string::npos) << r;
  EXPECT_NE(r.find("+wandb_api_key: <redacted>\n"), std::string::npos) << r;
}

TEST(SecretShapes, LinearOnLongInputsAndEveryShape) {
  // std::regex recursed once per character here and overflowed the stack on long values.
  const std::string long_value = "s3://" + repeat("a", 4 << 20);
  EXPECT_EQ(redact(long_value, -1, nullptr), "s3://<redacted>");
  std::vector<Redaction> red;
  const std::string r = redact(
      "hf_abcdefghijklmnopqrstuvwxyz sk-abcdefghijklmnopqrstuvwx glpat-abcdefghijklmnopqrst AKIAABCDEFGHIJKLMNOP "
      "Bearer abcdefghijk https://u:p4ss@h/x -----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY----- "
      "/home/alice/x",
      3, &red);
  EXPECT_EQ(r,
            "hf_<redacted> sk-<redacted> glpat-<redacted> AKIA<redacted> Bearer <redacted> https://<redacted>@h/x "
            "<redacted private key> /home/<user>/x");
  EXPECT_EQ(red.size(), 8u);
}

TEST(Diff, MyersDiffOfScatteredEditsInALargeFile) {
  // The old LCS table was n x m cells; a patch touching the first and last lines of a large file
  // needed gigabytes.
  std::string a, b;
  for (int i = 0; i < 200000; ++i) {
    fmt::format_to(std::back_inserter(a), "k{}: {}\n", i, i);
    b += (i == 0        ? std::string("k0: changed")
          : i == 199999 ? std::string("k199999: changed")
                        : fmt::format("k{}: {}", i, i)) +
         "\n";
  }
  b += "added: 1\n";
  const std::string d = unified_diff(a, b, "a/x.yaml", "b/x.yaml");
  EXPECT_EQ(d,
            "--- a/x.yaml\n+++ b/x.yaml\n@@ -1,4 +1,4 @@\n-k0: 0\n+k0: changed\n k1: 1\n k2: 2\n k3: 3\n"
            "@@ -199997,4 +199997,5 @@\n k199996: 199996\n k199997: 199997\n k199998: 199998\n-k199999: 199999\n"
            "+k199999: changed\n+added: 1\n");
}

}  // namespace
