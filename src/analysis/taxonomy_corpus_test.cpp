// Every taxonomy pattern against every kernel name of the fixtures and examples (issue #34): lists
// the surprising matches — a pattern that occurs only as a substring of a word, and a rule that
// decides a kernel's class only through its template/function arguments — and checks the known
// wrong ones stay gone. The public HTA/TraceLens traces are checked by tests/corpus/check_corpus.py.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <string>

#include "analysis/taxonomy.h"
#include "analysis/taxonomy_test_support.h"
#include "core/data.h"
#include "core/text.h"
#include "model/timeline.h"
#include "trace/readers.h"

namespace goblin::analysis {
namespace {

namespace fs = std::filesystem;

const Taxonomy& tax() { return testing::taxonomy(); }

// Kernel name -> summed duration (ns) over the fixtures' and examples' traces.
const std::map<std::string, int64_t>& corpus_names() {
  static const std::map<std::string, int64_t> names = [] {
    std::map<std::string, int64_t> out;
    std::vector<fs::path> files;
    for (const char* sub : {"kineto", "rocprof", "nsight"}) {
      const fs::path dir = fs::path(GOBLIN_FIXTURES) / sub;
      if (!fs::is_directory(dir)) continue;
      for (const auto& e : fs::directory_iterator(dir)) {
        const std::string f = e.path().filename().string();
        if (f.find(".json") != std::string::npos || f.find("kernel_trace") != std::string::npos ||
            f.ends_with(".sqlite") || f.ends_with("timestamps.csv"))
          files.push_back(e.path());
      }
    }
    for (const auto& e : fs::recursive_directory_iterator(fs::path(GOBLIN_SOURCE_DIR) / "examples"))
      if (e.path().string().ends_with(".json.gz")) files.push_back(e.path());
    for (const auto& f : files) {
      Timeline tl;
      (void)trace::read_path(f.string(), tl);  // a damaged fixture still lends the names it read
      const auto& g = tl.gpu_ops;
      for (size_t i = 0; i < g.size(); ++i)
        if (g.kind[i] == GpuOpKind::Kernel) out[std::string(tl.str(g.name[i]))] += g.dur_ns[i];
    }
    return out;
  }();
  return names;
}

// One rule of data/taxonomy.yaml, alone, three ways: as written (whole name components), with
// `scope: name` (its own name only), and by the substring matching used before issue #34.
struct RuleProbe {
  std::string id;
  Taxonomy whole, own;
  std::vector<std::string> any, prefix, none;
  std::optional<std::regex> regex;
  bool substring(const std::string& name) const {
    std::string n = ascii_lower(name);
    const size_t b = n.find_first_not_of(" \t");
    n.erase(0, b == std::string::npos ? n.size() : b);
    if (n.rfind("void ", 0) == 0) n.erase(0, 5);
    if (n.size() > 400) n.resize(400);
    auto in = [&](const std::string& s) { return n.find(s) != std::string::npos; };
    if (!any.empty() && std::none_of(any.begin(), any.end(), in)) return false;
    if (!prefix.empty() &&
        std::none_of(prefix.begin(), prefix.end(), [&](const std::string& s) { return n.rfind(s, 0) == 0; }))
      return false;
    if (std::any_of(none.begin(), none.end(), in)) return false;
    return !regex || std::regex_search(n, *regex);
  }
};

std::vector<std::string> lower_list(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n && n.IsScalar()) out.push_back(ascii_lower(n.as<std::string>()));
  if (n && n.IsSequence())
    for (const auto& x : n) out.push_back(ascii_lower(x.as<std::string>()));
  return out;
}

std::vector<RuleProbe> rule_probes() {
  std::vector<RuleProbe> out;
  auto text = load_data_file("taxonomy.yaml");
  EXPECT_TRUE(text.ok());
  if (!text.ok()) return out;
  const YAML::Node root = YAML::Load(text.value());
  for (const auto& r : root["rules"]) {
    if (r["cpu_op"] || (!r["any"] && !(r["regex"] && !r["regex"].as<std::string>().empty()))) continue;
    auto one = [&](const char* scope) {
      YAML::Node rule = YAML::Clone(r);
      rule["scope"] = scope;
      rule["category"] = "gemm";  // "matched": any category but the fallback's
      YAML::Node doc;
      doc["categories"].push_back("gemm");
      doc["categories"].push_back("other");
      doc["rules"].push_back(rule);
      YAML::Node fallback;
      fallback["id"] = "fallback";
      fallback["regex"] = "";
      fallback["category"] = "other";
      doc["rules"].push_back(fallback);
      YAML::Emitter e;
      e << doc;
      auto t = Taxonomy::parse(e.c_str(), "probe");
      EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().describe());
      return t.ok() ? t.value() : Taxonomy{};
    };
    RuleProbe p{r["id"].as<std::string>(), one(r["scope"] ? r["scope"].as<std::string>().c_str() : "full"),
                one("name")};
    p.any = lower_list(r["any"]);
    p.prefix = lower_list(r["prefix"]);
    p.none = lower_list(r["none"]);
    if (r["regex"] && !r["regex"].as<std::string>().empty()) {
      std::string re = r["regex"].as<std::string>(), lo;
      bool esc = false;
      for (char c : re) {
        lo.push_back(esc ? c : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        esc = !esc && c == '\\';
      }
      p.regex.emplace(lo);
    }
    out.push_back(std::move(p));
  }
  return out;
}

TEST(TaxonomyCorpus, ListsSurprisingMatches) {
  const auto& names = corpus_names();
  ASSERT_GT(names.size(), 500u) << "fixtures missing?";
  const auto probes = rule_probes();
  ASSERT_GT(probes.size(), 50u);
  int substring_only = 0, arguments_only = 0;
  for (const auto& [name, dur] : names) {
    const KernelClass kc = tax().classify(name);
    const std::string shown = name.substr(0, 120);
    for (const auto& p : probes) {
      const bool whole = p.whole.classify(name).category == "gemm";
      if (!whole && p.substring(name)) {
        ++substring_only;
        std::cout << fmt::format("substring only (no match): {:<30} {:>10.3f} ms  {}\n", p.id, dur / 1e6, shown);
      }
      if (whole && p.id == kc.rule_id && p.own.classify(name).category != "gemm") {
        ++arguments_only;
        std::cout << fmt::format("decided by arguments:      {:<30} {:>10.3f} ms  {}\n", p.id, dur / 1e6, shown);
        // A collective word in a template argument is never a collective (scope: name).
        EXPECT_NE(kc.category, "communication") << name;
      }
    }
  }
  std::cout << fmt::format("{} kernel names, {} substring-only pattern hits, {} classes decided in arguments\n",
                           names.size(), substring_only, arguments_only);
}

TEST(TaxonomyCorpus, KnownWrongMatchesAreGone) {
  const testing::ExpectedClass cases[] = {
      // ATen broadcasting multiply: "broadcast_kernel" sits inside a template argument.
      {"void at::native::elementwise_kernel_manual_unroll<128, 4, at::native::(anonymous "
       "namespace)::type_specialized_broadcast_kernel_launcher<1>::apply<at::native::BinaryFunctor<c10::BFloat16, "
       "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >",
       "elementwise", "ATen"},
      // torch symmetric memory's all-reduce stays a collective (its own name says so).
      {"void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long)",
       "communication", "ATen"},
      // "conv" inside cuDNN's convert_dq (mangled): an SDPA backward helper, not a convolution.
      {"_ZN5cudnn6fusion20convert_dq_to_16bitsILb1EEEvPKvPvjjjjjjjjjjPKfS6_S6_PfS3_S4_S4_bb", "attention", "cuDNN"},
      {"_ZN5cudnn6fusion28compute_dot_do_o_specializedILb1ELi64EEEvPKvS3_PvS4_jjjjjjjjjjjjjjjjjfS3_S3_S3_S3_S3_bS3_S4_"
       "S3_"
       "iiiiiiiii",
       "attention", "cuDNN"},
      // Families issue #34 found unknown on the public traces.
      {"void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float, float, float, float, float, "
       "float, adamMode_t, float, int>(long, int volatile*, TensorListMetadata<4>, AdamFunctor<float>)",
       "optimizer", "Apex"},
      {"sage_fwd", "attention", "AITER"},
      {"sage_quant_kernel", "quantization", "AITER"},
      {"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_tb1x8x2x1_1x4x1x64_"
       "gkgs",
       "convolution", "MIOpen"},
      {"igemm_wrw_gtcx2_nhwc_bf16_bx0_ex1_bt256x128x16_wt32x32x8_ws2x1_wr2x2", "convolution", "MIOpen"},
      {"batched_transpose_32x32_half", "elementwise", "MIOpen"},
      {"SubTensorOpWithScalar1d", "elementwise", "MIOpen"},
      {"SubTensorOpWithCastTensor1d", "elementwise", "MIOpen"},
      {"Im2d2Col_v2", "convolution", "MIOpen"},
      // Stems that reach to the end of their word.
      {"triton_tem_fused_convolution_2", "convolution", "Triton"},
      {"void tensorrt_llm::kernels::quantize_with_block_size<2, __nv_bfloat16, 32, true>(int, int)", "quantization",
       "unknown"},
      {"void permute_pooled_embs_kernel<float>(float const*, long const*, long const*, long const*, float*, long)",
       "elementwise", "FBGEMM_GPU"},
      // Whole words still reach across camelCase and digits.
      {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float>", "softmax", "ATen"},
      {"batched_matrix_multiplication(unsigned int, unsigned int, float const*, float*)", "gemm", "unknown"},
      {"void at::native::(anonymous namespace)::krn_partials_per_segment<long>(long*, long const*, long)",
       "elementwise", "ATen"},
  };
  testing::expect_classes(cases);
}

// A rejected whole-component match must not hide a later one, and `^` never matches after the
// name's start (libstdc++ honours match_prev_avail for `^`).
TEST(TaxonomyCorpus, WholeComponentSearchTriesEveryMatch) {
  const auto yaml = R"(
categories: [gemm, communication, other]
rules:
  - {id: a, regex: "reduce", category: communication}
  - {id: b, regex: "^gemm", category: gemm}
  - {id: z, regex: "", category: other}
)";
  auto t = Taxonomy::parse(yaml, "inline");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value().classify("allreducex_reduce_kernel").category, "communication");
  EXPECT_EQ(t.value().classify("reducex").category, "other");
  EXPECT_EQ(t.value().classify("xgemm_gemm").category, "other");
  EXPECT_EQ(t.value().classify("gemm_x").category, "gemm");
}

}  // namespace
}  // namespace goblin::analysis
