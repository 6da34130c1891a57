// The Slurm and Kubernetes scripts of goblin slurm-script. docs/scale.md shows them in use.
#include "app/scale_scripts.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>

#include "analysis/ranks_scale.h"
#include "core/io.h"
#include "core/script_text.h"

namespace goblin::app {

namespace fs = std::filesystem;

namespace {

// Every value reaches a script through core/script_text.h: sh_word for a shell word, yaml_scalar
// for a YAML scalar; write_scale_scripts refuses first what neither can hold as one line.
std::string sh(const std::string& s) { return sh_word(s); }
std::string yq(const std::string& s) { return yaml_scalar(s); }

// The rank pattern for summarize, when the ranks are named by one.
std::string regex_arg(const ScaleScriptOptions& o) {
  return o.rank_regex.empty() ? std::string() : " --rank-regex " + sh(o.rank_regex);
}

std::string slurm_map(const ScaleScriptOptions& o, const std::string& dir, const std::string& summaries, size_t n) {
  std::string s = "#!/bin/bash\n";
  s += "# goblin map step (docs/scale.md): one array task per rank trace, listed in traces.txt; each writes\n";
  s += "# its rank's summary (goblin summarize) where the trace is read. reduce.sbatch runs after them.\n";
  s += "#SBATCH --job-name=goblin-summarize\n";
  fmt::format_to(std::back_inserter(s), "#SBATCH --array=0-{}{}\n", n - 1,
                 o.parallel > 0 ? fmt::format("%{}", o.parallel) : std::string());
  fmt::format_to(std::back_inserter(s), "#SBATCH --output={}/logs/summarize_%A_%a.out\n", dir);
  fmt::format_to(std::back_inserter(s), "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task={}\n", o.cpus);
  fmt::format_to(std::back_inserter(s), "#SBATCH --time={}\n", o.time);
  if (!o.partition.empty()) fmt::format_to(std::back_inserter(s), "#SBATCH --partition={}\n", o.partition);
  s += "set -euo pipefail\n";
  fmt::format_to(std::back_inserter(s), "TRACE=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {})\n",
                 sh(dir + "/traces.txt"));
  fmt::format_to(std::back_inserter(s), "exec {} summarize \"$TRACE\" -o {} --host \"$(hostname)\"{}\n", sh(o.goblin),
                 sh(summaries), regex_arg(o));
  return s;
}

// The middle level of a two-level reduce: array task g folds its share of the summaries (in
// version order of their names, rank2 before rank10, so a group holds consecutive ranks; by
// position, so every rank summary is in exactly one group whatever map tasks failed) into one
// group summary, in a folder of its own (GROUPS/group<g>: two tasks never write one file; goblin
// ranks reads the folders). A task left without summaries (failed map tasks) has nothing to fold
// and succeeds: the final reduce reports the missing ranks.
std::string slurm_group(const ScaleScriptOptions& o, const std::string& dir, const std::string& summaries,
                        const std::string& groups, size_t n_groups) {
  std::string s = "#!/bin/bash\n";
  s += "# goblin group reduce (docs/scale.md, two-level reduce): array task g folds rank summaries\n";
  fmt::format_to(std::back_inserter(s),
                 "# g*{0}+1 .. g*{0}+{0} (names in version order) into one group summary; reduce.sbatch reads them.\n",
                 o.group_size);
  s += "#SBATCH --job-name=goblin-group\n";
  fmt::format_to(std::back_inserter(s), "#SBATCH --array=0-{}{}\n", n_groups - 1,
                 o.parallel > 0 ? fmt::format("%{}", o.parallel) : std::string());
  fmt::format_to(std::back_inserter(s), "#SBATCH --output={}/logs/group_%A_%a.out\n", dir);
  fmt::format_to(std::back_inserter(s), "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task={}\n", o.cpus);
  fmt::format_to(std::back_inserter(s), "#SBATCH --time={}\n", o.time);
  if (!o.partition.empty()) fmt::format_to(std::back_inserter(s), "#SBATCH --partition={}\n", o.partition);
  s += "set -euo pipefail\n";
  fmt::format_to(std::back_inserter(s), "FIRST=$((SLURM_ARRAY_TASK_ID * {} + 1))\n", o.group_size);
  fmt::format_to(std::back_inserter(s),
                 "mapfile -t S < <(find {} -maxdepth 1 -type f -name '*.summary.json.gz' | LC_ALL=C sort -V | "
                 "sed -n \"${{FIRST}},$((FIRST + {} - 1))p\")\n",
                 sh(summaries), o.group_size);
  s += "if [ ${#S[@]} -eq 0 ]; then echo \"group $SLURM_ARRAY_TASK_ID: no summaries to fold\"; exit 0; fi\n";
  fmt::format_to(std::back_inserter(s), "exec {} summarize --merge \"${{S[@]}}\" -o {}/group\"$SLURM_ARRAY_TASK_ID\"\n",
                 sh(o.goblin), sh(groups));
  return s;
}

std::string slurm_reduce(const ScaleScriptOptions& o, const std::string& dir, const std::string& summaries) {
  std::string s = "#!/bin/bash\n";
  s += "# goblin reduce step (docs/scale.md): goblin ranks over the summaries the array wrote. Started after\n";
  s += "# every map task ended (afterany: a rank that failed is reported missing, not silently dropped).\n";
  s += "#SBATCH --job-name=goblin-reduce\n";
  fmt::format_to(std::back_inserter(s), "#SBATCH --output={}/logs/reduce_%j.out\n", dir);
  fmt::format_to(std::back_inserter(s), "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task={}\n", o.cpus);
  fmt::format_to(std::back_inserter(s), "#SBATCH --time={}\n", o.time);
  if (!o.partition.empty()) fmt::format_to(std::back_inserter(s), "#SBATCH --partition={}\n", o.partition);
  s += "set -uo pipefail\n";
  fmt::format_to(std::back_inserter(s), "{} ranks {} > {}\n", sh(o.goblin), sh(summaries), sh(dir + "/ranks.txt"));
  fmt::format_to(std::back_inserter(s), "{} ranks {} --json > {}.part\nstatus=$?\nmv {}.part {}\nexit $status\n",
                 sh(o.goblin), sh(summaries), sh(dir + "/ranks.json"), sh(dir + "/ranks.json"),
                 sh(dir + "/ranks.json"));
  return s;
}

std::string slurm_submit(const std::string& dir, bool two_level) {
  std::string s =
      two_level ? "#!/bin/bash\n# Submits the map array, the group array depending on it, then the reduce job "
                  "depending on the groups.\nset -euo pipefail\n"
                : "#!/bin/bash\n# Submits the map array, then the reduce job depending on it.\nset -euo pipefail\n";
  fmt::format_to(std::back_inserter(s), "mkdir -p {}\n", sh(dir + "/logs"));
  fmt::format_to(std::back_inserter(s), "MAP=$(sbatch --parsable {})\n", sh(dir + "/summarize.sbatch"));
  if (two_level) {
    fmt::format_to(std::back_inserter(s), "GROUP=$(sbatch --parsable --dependency=afterany:${{MAP%%;*}} {})\n",
                   sh(dir + "/group.sbatch"));
    fmt::format_to(std::back_inserter(s), "REDUCE=$(sbatch --parsable --dependency=afterany:${{GROUP%%;*}} {})\n",
                   sh(dir + "/reduce.sbatch"));
    s += "echo \"map job ${MAP%%;*}, group job ${GROUP%%;*}, reduce job ${REDUCE%%;*}\"\n";
    return s;
  }
  fmt::format_to(std::back_inserter(s), "REDUCE=$(sbatch --parsable --dependency=afterany:${{MAP%%;*}} {})\n",
                 sh(dir + "/reduce.sbatch"));
  s += "echo \"map job ${MAP%%;*}, reduce job ${REDUCE%%;*}\"\n";
  return s;
}

std::string k8s_map(const ScaleScriptOptions& o, const std::string& summaries, const std::vector<std::string>& traces) {
  std::string s = "# goblin map step (docs/scale.md): an Indexed Job, one completion per rank trace (traces.txt in\n";
  s += "# the ConfigMap, line JOB_COMPLETION_INDEX + 1); each pod writes its rank's summary to the volume.\n";
  s += "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: goblin-traces\ndata:\n";
  // One quoted scalar, not a literal block: a name's leading spaces cannot change the block's
  // indentation and nothing in a name can end the block.
  std::string list;
  for (const auto& t : traces) list += t + "\n";
  fmt::format_to(std::back_inserter(s), "  traces.txt: {}\n", yq(list));
  s += "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: goblin-summarize\nspec:\n";
  s += "  completionMode: Indexed\n";
  fmt::format_to(std::back_inserter(s), "  completions: {}\n  parallelism: {}\n  backoffLimitPerIndex: 1\n",
                 traces.size(), o.parallel > 0 ? o.parallel : static_cast<int64_t>(traces.size()));
  s += "  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: summarize\n";
  fmt::format_to(std::back_inserter(s), "        image: {}\n", yq(o.image));
  s += "        command: [\"/bin/sh\", \"-c\"]\n        args:\n";
  const std::string cmd = fmt::format(
      "TRACE=$(sed -n \"$((JOB_COMPLETION_INDEX + 1))p\" /goblin/traces.txt) && exec {} summarize \"$TRACE\" -o "
      "{} --host \"$NODE_NAME\"{}",
      sh(o.goblin), sh(summaries), regex_arg(o));
  fmt::format_to(std::back_inserter(s), "        - {}\n", yq(cmd));
  s += "        env:\n        - name: NODE_NAME\n          valueFrom:\n            fieldRef:\n";
  s += "              fieldPath: spec.nodeName\n";
  fmt::format_to(std::back_inserter(s), "        resources:\n          requests:\n            cpu: \"{}\"\n", o.cpus);
  s += "        volumeMounts:\n        - name: data\n";
  fmt::format_to(std::back_inserter(s), "          mountPath: {}\n", yq(o.mount));
  s += "        - name: traces\n          mountPath: /goblin\n";
  s += "      volumes:\n      - name: data\n        persistentVolumeClaim:\n";
  fmt::format_to(std::back_inserter(s), "          claimName: {}\n", yq(o.claim));
  s += "      - name: traces\n        configMap:\n          name: goblin-traces\n";
  return s;
}

std::string k8s_reduce(const ScaleScriptOptions& o, const std::string& summaries, const std::string& dir) {
  std::string s = "# goblin reduce step (docs/scale.md): goblin ranks over the summaries; submit.sh applies it once\n";
  s += "# the map Job has finished.\n";
  s += "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: goblin-reduce\nspec:\n  backoffLimit: 0\n";
  s += "  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: reduce\n";
  fmt::format_to(std::back_inserter(s), "        image: {}\n", yq(o.image));
  s += "        command: [\"/bin/sh\", \"-c\"]\n        args:\n";
  const std::string cmd = fmt::format("{} ranks {} --json > {} ; {} ranks {}", sh(o.goblin), sh(summaries),
                                      sh(dir + "/ranks.json"), sh(o.goblin), sh(summaries));
  fmt::format_to(std::back_inserter(s), "        - {}\n", yq(cmd));
  s += "        volumeMounts:\n        - name: data\n";
  fmt::format_to(std::back_inserter(s), "          mountPath: {}\n", yq(o.mount));
  s += "      volumes:\n      - name: data\n        persistentVolumeClaim:\n";
  fmt::format_to(std::back_inserter(s), "          claimName: {}\n", yq(o.claim));
  return s;
}

std::string k8s_submit(const std::string& dir) {
  std::string s = "#!/bin/bash\n# Applies the map Job, waits for it, then applies the reduce Job.\nset -euo pipefail\n";
  fmt::format_to(std::back_inserter(s), "kubectl apply -f {}\n", sh(dir + "/summarize-job.yaml"));
  s += "kubectl wait --for=condition=complete --timeout=24h job/goblin-summarize || true\n";
  fmt::format_to(std::back_inserter(s), "kubectl apply -f {}\n", sh(dir + "/reduce-job.yaml"));
  s += "kubectl wait --for=condition=complete --timeout=1h job/goblin-reduce\n";
  s += "kubectl logs job/goblin-reduce\n";
  return s;
}

// What the options put into the scripts, checked before anything is written: values in #SBATCH
// directives must be one directive word, everything else one line.
Status check_options(const ScaleScriptOptions& o) {
  if (!o.partition.empty()) RETURN_IF_ERROR(sbatch_value("--partition", o.partition));
  RETURN_IF_ERROR(sbatch_value("--time", o.time));
  RETURN_IF_ERROR(script_line("output directory", o.out_dir));
  RETURN_IF_ERROR(script_line("--goblin command", o.goblin));
  RETURN_IF_ERROR(script_line("--rank-regex", o.rank_regex));
  RETURN_IF_ERROR(script_line("--summaries directory", o.summaries));
  RETURN_IF_ERROR(script_line("--groups directory", o.groups));
  RETURN_IF_ERROR(script_line("--image", o.image));
  RETURN_IF_ERROR(script_line("--claim", o.claim));
  RETURN_IF_ERROR(script_line("--mount", o.mount));
  return Status::Ok();
}

}  // namespace

Result<ScaleScripts> write_scale_scripts(const std::vector<std::string>& paths, const ScaleScriptOptions& opt) {
  if (opt.out_dir.empty()) return make_error(ErrorKind::Usage, "slurm-script needs an output directory (-o DIR)");
  if (opt.k8s && opt.group_size > 0)
    return make_error(ErrorKind::Usage,
                      "--group-size (the two-level reduce) is written for Slurm only: the Kubernetes manifests have "
                      "one reduce level");
  RETURN_IF_ERROR(check_options(opt));
  std::vector<std::string> notes;
  ASSIGN_OR_RETURN(auto inputs, analysis::enumerate_ranks(paths, &notes, analysis::RankDiscovery{opt.rank_regex}));
  ScaleScripts r;
  for (const analysis::RankInput& in : inputs) {
    if (in.files.size() != 1)
      return make_error(ErrorKind::Usage,
                        "a rank made of several files (rocprofv3 per-process output) cannot be one map task yet: give "
                        "one trace file per rank",
                        in.label);
    std::error_code ec;
    const fs::path a = opt.k8s ? fs::path(in.files.front()) : fs::absolute(in.files.front(), ec);
    r.traces.push_back(a.lexically_normal().string());
    // traces.txt is one line per map task: a newline in a name would shift every later rank.
    RETURN_IF_ERROR(script_line("trace file name", r.traces.back()));
  }
  std::error_code ec;
  if (!opt.k8s)
    RETURN_IF_ERROR(sbatch_value("output directory (it names the #SBATCH --output logs)",
                                 fs::absolute(opt.out_dir, ec).lexically_normal().string()));
  fs::create_directories(fs::path(opt.out_dir) / "logs", ec);
  if (ec) return make_error(ErrorKind::Io, "cannot create the output directory: " + ec.message(), opt.out_dir);
  const std::string dir = opt.k8s ? opt.out_dir : fs::absolute(opt.out_dir, ec).lexically_normal().string();
  // Kubernetes pods see the claim at `mount`: the summaries go there unless told otherwise.
  std::string summaries = !opt.summaries.empty() ? opt.summaries : (opt.k8s ? opt.mount : dir) + "/summaries";
  if (!opt.k8s) summaries = fs::absolute(summaries, ec).lexically_normal().string();
  RETURN_IF_ERROR(script_line("summaries directory", summaries));
  auto put = [&](const std::string& name, const std::string& text) -> Status {
    const std::string p = (fs::path(opt.out_dir) / name).string();
    RETURN_IF_ERROR(write_file(p, text));
    r.files.push_back(p);
    return Status::Ok();
  };
  std::string list;
  for (const auto& t : r.traces) list += t + "\n";
  RETURN_IF_ERROR(put("traces.txt", list));
  if (opt.k8s) {
    RETURN_IF_ERROR(put("summarize-job.yaml", k8s_map(opt, summaries, r.traces)));
    RETURN_IF_ERROR(put("reduce-job.yaml", k8s_reduce(opt, summaries, opt.mount)));
    RETURN_IF_ERROR(put("submit.sh", k8s_submit(dir)));
  } else {
    RETURN_IF_ERROR(put("summarize.sbatch", slurm_map(opt, dir, summaries, r.traces.size())));
    const bool two_level = opt.group_size > 0;
    std::string groups;
    if (two_level) {
      groups = fs::absolute(!opt.groups.empty() ? opt.groups : dir + "/groups", ec).lexically_normal().string();
      const size_t g = static_cast<size_t>(opt.group_size);
      RETURN_IF_ERROR(put("group.sbatch", slurm_group(opt, dir, summaries, groups, (r.traces.size() + g - 1) / g)));
    }
    RETURN_IF_ERROR(put("reduce.sbatch", slurm_reduce(opt, dir, two_level ? groups : summaries)));
    RETURN_IF_ERROR(put("submit.sh", slurm_submit(dir, two_level)));
  }
  r.submit = "bash " + sh(dir + "/submit.sh");
  return r;
}

}  // namespace goblin::app
