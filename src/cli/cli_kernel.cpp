// goblin kernel init|bench|profile|plan|record|status|mask|unmask: the kernel
// optimization workspace. Each verb parses its options, calls one function of src/kernel and
// renders the result.
#include <fmt/format.h>

#include <sstream>

#include "cli/verb.h"
#include "cli/verbs.h"
#include "kernel/loop.h"
#include "kernel/memory.h"
#include "kernel/workspace.h"

namespace goblin::cli {

namespace {

struct KernelArgs {
  kernel::InitOptions init;
  kernel::RunOptions run;
  kernel::RecordOptions rec;
  std::string ws = ".", tags;
  int version = -1;
  bool json = false;
};

template <class T>
VerbResult from(Result<T> r, const std::function<std::string(const Json&)>& human) {
  VerbResult v;
  if (!r.ok()) {
    v.error = r.error();
    return v;
  }
  v.result = *r;
  v.human = human(v.result);
  return v;
}

CLI::App* sub(CLI::App* parent, const std::string& name, const std::string& desc, const std::string& examples,
              const std::shared_ptr<KernelArgs>& a) {
  auto* c = parent->add_subcommand(name, desc);
  c->footer(help_footer_with_examples(examples));
  c->add_flag("--json", a->json, "JSON envelope output");
  return c;
}

void add_run_options(CLI::App* c, const std::shared_ptr<KernelArgs>& a) {
  c->add_option("--python", a->run.python, "python interpreter with torch (default python3)");
  c->add_option("--harness", a->run.harness, "path of tools/kernel_harness.py (default: found beside goblin)");
  c->add_option("--timeout", a->run.timeout_s, "seconds before the run is killed (default 900)");
}

}  // namespace

void register_kernel(CLI::App& app) {
  auto a = std::make_shared<KernelArgs>();
  auto* k = app.add_subcommand("kernel",
                               "kernel optimization workspace: Step 0 roofline, bench, ncu diagnosis, record, plan");
  k->require_subcommand(1);
  k->footer(help_footer_with_examples(
      "  goblin kernel init softmax --kernel v0.py --platform H100 --shape M=32768,N=8192 --dtype bf16\n"
      "  goblin kernel bench /tmp/kernel_opt_softmax      correctness + do_bench timing\n"
      "  goblin kernel profile /tmp/kernel_opt_softmax    ncu on the kernel's launches + diagnosis\n"
      "  goblin kernel record /tmp/kernel_opt_softmax --summary \"single pass, row in registers\"\n"
      "  goblin kernel plan /tmp/kernel_opt_softmax       next candidates (plans/v<N>_plan.md)\n"
      "  goblin kernel status /tmp/kernel_opt_softmax     history, best version, Stop Condition\n"
      "Workflow and the kernel file's contract: docs/kernel.md\n"));

  auto* init = sub(k, "init", "create a workspace: kernel.py, memory/, plans/, profiles/, README.md, git",
                   "  goblin kernel init mm --kernel mm_v0.py --platform H100 --shape M=8192,N=8192,K=8192\n"
                   "  goblin kernel init sm --kernel softmax.py --platform MI300X --workspace ./ws --rtol 2e-2\n",
                   a);
  init->add_option("name", a->init.name, "workspace name (default directory /tmp/kernel_opt_NAME)")->required();
  init->add_option("--kernel", a->init.kernel_file,
                   "kernel file: make_inputs, kernel, reference, PROBLEM or flops/bytes_moved")
      ->required();
  init->add_option("--platform", a->init.platform, "GPU id (goblin specs --list): H100, H200, MI300X, MI355X, ...")
      ->required();
  init->add_option("--framework", a->init.framework, "triton | cuda | cutedsl | torch (default triton)");
  init->add_option("--shape", a->init.shape, "problem shape passed to make_inputs, e.g. M=8192,N=8192,K=8192");
  init->add_option("--dtype", a->init.dtype, "element type (default bf16)");
  init->add_option("--rtol", a->init.rtol, "correctness threshold: max relative error (default 0.01)");
  init->add_option("--workspace", a->init.workspace, "workspace directory (default /tmp/kernel_opt_NAME)");
  init->add_option("--notes", a->init.notes, "free text for the Task Context");
  init->add_option("--python", a->init.python, "python3 for the contract check (torch not needed)");
  init->add_option("--harness", a->init.harness, "path of tools/kernel_harness.py");
  // init's human output: the README sections that matter.
  init->callback([a] {
    run_verb(a->json, [a] {
      VerbResult v;
      auto c = kernel::init_workspace(a->init);
      if (!c.ok()) {
        v.error = c.error();
        return v;
      }
      v.result = kernel::config_to_json(*c);
      v.result["workspace"] = c->dir;
      v.human = fmt::format(
          "workspace {} (git initialised, first commit made)\n{}Stop Condition: {} >= {:.1f} (90 % of {:.6g} <- {})\n",
          c->dir, c->roof.text, c->roof.target_metric, c->roof.target, c->roof.ceiling, c->roof.ceiling_source);
      for (auto& p : c->pitfalls) v.human += "note: " + p + "\n";
      return v;
    });
  });

  auto* bench = sub(k, "bench", "check correctness and time the kernel on the GPU (triton.testing.do_bench)",
                    "  goblin kernel bench /tmp/kernel_opt_mm --rep-ms 1000\n", a);
  bench->add_option("workspace", a->ws, "workspace directory (default .)");
  bench->add_option("--rep-ms", a->run.rep_ms, "timing budget per kernel in ms (default 500)");
  bench->add_option("--warmup-ms", a->run.warmup_ms, "warm-up budget in ms (default 50)");
  add_run_options(bench, a);
  bench->callback([a] {
    run_verb(a->json, [a] {
      VerbResult v;
      auto r = kernel::run_bench(a->ws, a->run);
      if (!r.ok()) {
        v.error = r.error();
        return v;
      }
      auto cfg = kernel::load_config(a->ws);
      v.result = *r;
      v.human = cfg.ok() ? kernel::bench_human(*r, *cfg) : r->dump(2);
      v.human += "saved: " + (*r)["bench_file"].get<std::string>() + "\n";
      if (!(*r)["correctness"]["passed"].get<bool>())
        v.error = make_error(ErrorKind::Workload, "correctness failed: this version cannot be recorded", a->ws);
      return v;
    });
  });

  auto* prof = sub(k, "profile", "profile the kernel's launches (ncu / rocprofv3) and diagnose two bottlenecks",
                   "  goblin kernel profile /tmp/kernel_opt_mm --prompt     also write the LLM judge prompts\n", a);
  prof->add_option("workspace", a->ws, "workspace directory (default .)");
  prof->add_option("--launches", a->run.launches, "kernel launches to profile (default 1)");
  prof->add_option("--kernel-regex", a->run.kernel_regex, "only kernels whose name matches (ncu -k regex:)");
  prof->add_option("--ncu", a->run.ncu, "ncu executable (default ncu)");
  prof->add_option("--rocprof", a->run.rocprof, "rocprofv3 executable (default rocprofv3)");
  prof->add_flag("--prompt", a->run.prompt, "write the LLM-judge prompts beside the CSV");
  add_run_options(prof, a);
  prof->callback([a] {
    run_verb(a->json, [a] {
      return from(kernel::run_profile(a->ws, a->run), [](const Json& j) {
        return kernel::diagnosis_human(j) + "saved: " + j["profile"].get<std::string>() + "\n";
      });
    });
  });

  auto* plan = sub(k, "plan", "write plans/v<N>_plan.md: last diagnosis, roofline gap, candidate optimizations",
                   "  goblin kernel plan /tmp/kernel_opt_mm\n", a);
  plan->add_option("workspace", a->ws, "workspace directory (default .)");
  plan->callback([a] {
    run_verb(a->json, [a] {
      return from(kernel::write_plan(a->ws), [](const Json& j) {
        return j["markdown"].get<std::string>() + "\nwritten: " + j["path"].get<std::string>() + "\n";
      });
    });
  });

  auto* rec =
      sub(k, "record", "write memory/v<N>.json from the latest bench + profile and commit the iteration",
          "  goblin kernel record ws --summary \"grouped ordering\" --hypothesis \"L2 reuse\" --tags grouped_ordering\n"
          "  goblin kernel record ws --summary \"v3\" --bench bench.json --profile ncu.csv   measured elsewhere\n",
          a);
  rec->add_option("workspace", a->ws, "workspace directory (default .)");
  rec->add_option("--summary", a->rec.summary, "what this iteration changed")->required();
  rec->add_option("--hypothesis", a->rec.hypothesis, "why it should help");
  rec->add_option("--tags", a->tags, "ids from data/kernel/optimizations.yaml this iteration tried (comma-separated)");
  rec->add_option("--bench", a->rec.bench_file, "a bench JSON (kernel_harness.py bench output) measured elsewhere");
  rec->add_option("--profile", a->rec.profile_file, "an ncu --csv --page raw file measured elsewhere");
  rec->callback([a] {
    std::istringstream ss(a->tags);
    for (std::string t; std::getline(ss, t, ',');)
      if (!t.empty()) a->rec.tags.push_back(t);
    run_verb(a->json, [a] {
      return from(kernel::record_iteration(a->ws, a->rec), [](const Json& j) {
        return fmt::format("recorded v{} -> {} (commit {})\n", j["version"].get<int>(),
                           j["memory_file"].get<std::string>(), j["commit"].get<std::string>());
      });
    });
  });

  auto* st = sub(k, "status", "the unmasked history, the best version and the Stop Condition",
                 "  goblin kernel status /tmp/kernel_opt_mm --json\n", a);
  st->add_option("workspace", a->ws, "workspace directory (default .)");
  st->callback([a] {
    run_verb(a->json, [a] {
      VerbResult v;
      auto r = kernel::workspace_status(a->ws);
      if (!r.ok()) {
        v.error = r.error();
        return v;
      }
      v.result = r->json;
      v.human = r->human;
      return v;
    });
  });

  for (bool masked : {true, false}) {
    auto* m = sub(
        k, masked ? "mask" : "unmask",
        masked ? "hide iteration N from every read (status, best, plan)" : "make iteration N visible again",
        masked ? "  goblin kernel mask 3 /tmp/kernel_opt_mm\n" : "  goblin kernel unmask 3 /tmp/kernel_opt_mm\n", a);
    m->add_option("version", a->version, "iteration number N (memory/vN.json)")->required();
    m->add_option("workspace", a->ws, "workspace directory (default .)");
    m->callback([a, masked] {
      run_verb(a->json, [a, masked] {
        return from(kernel::set_masked(a->ws, a->version, masked), [](const Json& j) {
          return fmt::format("{} v{}{}\n", j["masked"].get<bool>() ? "masked" : "unmasked", j["version"].get<int>(),
                             j["changed"].get<bool>() ? "" : " (already)");
        });
      });
    });
  }
}

}  // namespace goblin::cli
