// Cost models of every op and kernel class beyond GEMM / attention / convolution (those stay in
// op_cost, which MFU shares): elementwise, activations, norms, softmax, reductions, embedding,
// cross-entropy, copies/casts, scaled and grouped GEMMs, varlen attention, optimizer and foreach
// kernels, collectives and the kernel-grid estimates. The knowledge — which op is which class,
// which arguments are read and written, FLOPs per element, the sources — is data/op_models.yaml;
// this file only evaluates it.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "model/timeline.h"

namespace goblin::hw {

struct OpClassRule {
  std::string cls, model, formula, source;
  bool read_all = true;
  std::vector<int> read;           // argument indices read (when !read_all)
  std::vector<std::string> write;  // largest | self | arg:N | rows:N | none
  double flops_per_element = 0;
  // varlen_attention
  int q_arg = 0, k_arg = 1, kv_tokens_arg = -1, max_seqlen_k_concrete = -1, causal_concrete = -1;
};

struct OpModels {
  std::map<std::string, std::string> documents;   // id → "title <url>"
  std::unordered_map<std::string, size_t> by_op;  // op name → rules index
  std::vector<OpClassRule> rules;
  struct DtypeToken {
    std::string token, dtype;
    int bytes = 0;
  };
  std::vector<DtypeToken> dtype_tokens;
  struct Functor {
    std::string token, cls, formula, source;
    double accesses = 0, flops_per_element = 0;
  };
  std::string multi_tensor_token, multi_tensor_source;
  double chunk_elements = 0;
  std::vector<Functor> functors;
  struct Collective {
    std::vector<std::string> names;
    std::string size, factor;
  };
  std::vector<Collective> collectives;
  std::string collectives_source;
  // NCCL/RCCL kernels without collective metadata: the c10d op whose call launched them names the
  // collective, and its tensor arguments give the message (data/op_models.yaml c10d_ops).
  struct C10dOp {
    std::string op, collective;
    int input_arg = -1, output_arg = -1;
    std::string ranks;  // output_over_input | input_over_output | "" (group size not in the op)
  };
  std::vector<C10dOp> c10d_ops;
  std::string c10d_source;
  const C10dOp* c10d_op(std::string_view op) const;
  // NCCL/RCCL kernels without either: the "nccl:<collective>" user annotation around the launch
  // holds the collective's input tensors (data/op_models.yaml nccl_annotations).
  struct NcclAnnotation {
    std::string title, collective;
    bool output_n_x_input = false;  // the message is the output, n x the input (all_gather)
  };
  std::vector<NcclAnnotation> nccl_annotations;
  std::string nccl_annotations_source, param_comms_source;
  const NcclAnnotation* nccl_annotation(std::string_view title) const;
  struct GridClass {
    std::string category, formula, source;
    double accesses = 0;
  };
  std::vector<GridClass> grid_classes;

  const OpClassRule* rule(std::string_view op) const;
  // "title <url>" of a document id (the id itself when unknown).
  std::string cite(const std::string& id) const;
};

Result<OpModels> parse_op_models(const std::string& yaml_text);

// The cost of one op instance or one kernel. `estimate`: "" (the model is exact on its inputs),
// "lower_bound" or "upper_bound" (bytes/FLOPs bound the real ones, as the tier says).
struct ModelCost {
  std::string cls;  // op class (elementwise, norm, ...)
  double flops = 0, bytes = 0;
  std::string dtype;
  int dtype_bytes = 0;
  std::string formula, source, estimate;
  std::string engine = "vector";
};

// Element size and dtype named by a kernel's name (data kernel_dtype_tokens); nullptr when none.
const OpModels::DtypeToken* kernel_dtype(const OpModels& m, std::string_view kernel_name);

// An op instance from its recorded shapes. fallback_dtype_bytes: the element size to use for
// arguments recorded without a dtype (TensorList), 0 for none. nullopt with `why` otherwise; a
// rule of model multi_tensor prices the op when its TensorList shapes were recorded (else its
// kernels are priced by their grid).
std::optional<ModelCost> model_op(const OpModels& m, const OpClassRule& rule, std::string_view input_dims,
                                  std::string_view input_types, std::string_view concrete_inputs,
                                  int fallback_dtype_bytes, std::string* why = nullptr);

// multi_tensor_apply kernels: elements <= blocks * chunk (upper bound). nullopt when the kernel is
// not one.
std::optional<ModelCost> model_multi_tensor_kernel(const OpModels& m, std::string_view kernel_name, Dim3 grid);

// A kernel of a taxonomy category with a grid class: elements >= launched threads (lower bound).
std::optional<ModelCost> model_grid_kernel(const OpModels& m, std::string_view category, std::string_view kernel_name,
                                           Dim3 grid, Dim3 block);

// NCCL bus-bandwidth factor and message size of a collective (name as PyTorch records it), nullopt
// when the collective is not in the data. in/out bytes are the recorded message sizes.
struct CollectiveModel {
  double size_bytes = 0, busbw_factor = 1;
  std::string formula;
};
std::optional<CollectiveModel> model_collective(const OpModels& m, std::string_view name, double in_bytes,
                                                double out_bytes, int64_t ranks);

}  // namespace goblin::hw
