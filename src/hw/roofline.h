// Roofline analysis: FLOPs and bytes of PyTorch ops from their recorded shapes (Kineto
// record_shapes), kernel time attributed to ops, achieved TFLOPS / bandwidth against the trace
// GPU's cited peaks; plus counter-based rooflines (Nsight Compute, rocprof) and an SVG plot.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "hw/ceiling.h"
#include "hw/gpu_specs.h"
#include "hw/op_models.h"
#include "hw/roofline_signature.h"
#include "model/timeline.h"

namespace goblin::hw {

// Cost model of one op instance. Bytes are the minimum traffic: every input and output tensor
// read or written once (a lower bound; caches can only make real traffic larger or equal).
struct OpCost {
  std::string kind;  // "gemm" | "attention" | "conv"
  double flops = 0;
  double bytes = 0;
  std::string dtype;  // normalised: fp32, bf16, fp16, fp64, fp8, int8
  int dtype_bytes = 0;
  std::string formula;  // human-readable, e.g. "2*M*N*K, M=8192 N=1024 K=32000"
  bool causal = false;
  // "" when every input came from the op's own record; "inferred" when a shape or the dtype came
  // from elsewhere in the trace (OpCostHints); "upper_bound" when a convolution backward's
  // output_mask was not recorded and both gradients are counted.
  std::string estimate;
};

// What the trace tells about an op beyond its own record, for traces that recorded less (Kineto
// before PyTorch 1.10: no Input type, no Concrete Inputs; int-list arguments as []). Filled by
// select_flop_ops (shapes) and the roofline (dtype from the op's kernel names); every use marks
// the cost `estimate: inferred` and says where the value came from in its formula.
struct OpCostHints {
  // A convolution's output dims when stride/padding/dilation were not recorded: the grad_output
  // of its backward (same input and weight dims) or the input of the next op on its thread.
  std::vector<int64_t> output;
  std::string output_from;
  // cudnn/miopen_convolution_backward_input/_weight: argument 0 is an int list (the input or the
  // weight size) that Kineto records as []; the enclosing *_convolution_backward op's tensor.
  std::vector<int64_t> arg0;
  // The dtype when Input type was not recorded: named by the op's kernels (data/op_models.yaml
  // kernel_dtype_tokens), else by every other FLOP op's kernels in the trace.
  std::string dtype, dtype_from;
  int dtype_bytes = 0;
  bool empty() const { return output.empty() && arg0.empty() && dtype.empty(); }
};

// Element size of a PyTorch "Input type" string ("float" → 4, "c10::BFloat16" → 2); 0 if unknown.
int dtype_bytes(std::string_view torch_type);
std::string normalize_dtype(std::string_view torch_type);
// Parses Kineto's "Input Dims" JSON text ("[[8192, 1024], [], [3]]").
std::optional<std::vector<std::vector<int64_t>>> parse_input_dims(std::string_view text);
// Parses a JSON array of strings ("Input type", "Concrete Inputs").
std::optional<std::vector<std::string>> parse_string_list(std::string_view text);

// FLOPs/bytes for GEMM-family ops (aten::mm, addmm, bmm, baddbmm, matmul, linear), SDPA / flash /
// efficient / cuDNN attention forward and backward (causal halves the FLOPs; backward = 2.5x
// forward), convolutions when stride/padding/dilation/groups were recorded (or the output dims are
// known from `hints`), and convolution backward (grad_input and grad_weight passes, each
// 2*N*Cout*out_spatial*(Cin/groups)*kernel from grad_output and weight). nullopt (with `why` set)
// otherwise.
std::optional<OpCost> op_cost(std::string_view op_name, std::string_view input_dims, std::string_view input_types,
                              std::string_view concrete_inputs, std::string* why = nullptr);
std::optional<OpCost> op_cost(std::string_view op_name, std::string_view input_dims, std::string_view input_types,
                              std::string_view concrete_inputs, const OpCostHints& hints, std::string* why = nullptr);
// A convolution-backward op (convolution_backward, cudnn/miopen_convolution_backward and their
// _input/_weight halves of PyTorch <= 1.10): the argument indices of grad_output, input and
// weight, and the gradients it computes (a half's int-list argument 0 is the input or weight size).
struct ConvBackwardArgs {
  size_t go = 0, x = 0, w = 0;
  bool grad_input = false, grad_weight = false;
};
std::optional<ConvBackwardArgs> conv_backward_args(std::string_view op_name);
// A forward convolution op (aten::convolution, _convolution, cudnn/miopen_convolution, conv1d/2d/3d).
bool is_conv_forward_op(std::string_view op_name);
bool is_flop_op(std::string_view op_name);

// Which engine a GEMM/attention kernel ran on, from its name: "matrix" (tensor/matrix cores),
// "vector" (SIMT: sgemm, ffma), or "" when the name does not say. The knowledge is
// data/taxonomy.yaml § kernel_engines (Taxonomy::engine, a layer above): callers pass it in.
using KernelEngineFn = std::function<std::string(std::string_view kernel_name)>;
// A kernel's taxonomy category (data/taxonomy.yaml, a layer above): the kernel_grid tier's class.
using KernelCategoryFn = std::function<std::string(std::string_view kernel_name)>;

// What the roofline needs beyond the trace and the GPU. Without `models` only the GEMM /
// attention / convolution ops are priced (the roofline before issue #31).
struct RooflineInputs {
  KernelEngineFn engine_of;
  KernelCategoryFn category_of;
  const OpModels* models = nullptr;
  // The shape-priced kernels of a capture trace of the same workload (`--capture`): its
  // signatures price this trace's kernels that have no launching op (the capture tier).
  const KernelSignatures* capture = nullptr;
  // Fill RooflineReport::signatures (to serve as another trace's capture).
  bool export_signatures = false;
};

struct RooflinePoint {
  std::string label;  // op name + shapes, or kernel name
  std::string kind;   // gemm/attention/conv, or "kernel"
  std::string dtype;
  std::string shapes;
  std::string engine;  // matrix | vector | "" (unknown)
  int64_t count = 0;
  int64_t time_ns = 0;
  double flops = 0, bytes = 0;
  double achieved_tflops = 0, achieved_gbs = 0, intensity = 0;
  std::string peak_key;  // the dtype peak compared against (fp32 / tf32 / bf16 ...)
  std::optional<double> peak_tflops;
  std::optional<double> pct_of_peak;  // achieved / peak; null when above 100 %
  // The achieved / peak figure when it is above 100 %: physically impossible (wrong FLOPs, a
  // kernel time cut short, or the wrong peak), so not presented as achieved (bound "impossible").
  std::optional<double> above_peak_pct;
  std::optional<double> attainable_tflops;  // min(peak, intensity * bandwidth)
  std::string bound;                        // "compute" | "memory" | "unknown"
  std::string formula;
  std::vector<std::string> kernels;  // kernel names involved (ops), up to 4
  // Which model priced it (data/op_models.yaml tiers): shapes | gpu_op_bytes | collective |
  // kernel_grid; estimate: "" exact on its inputs, lower_bound / upper_bound otherwise.
  std::string source = "shapes", estimate, citation;
  // Roofline time / measured time: max(FLOPs / peak, bytes / bandwidth) / time, in %; null when
  // the point has no cited roof (collectives, host copies).
  std::optional<double> pct_of_roofline;
  std::optional<double> busbw_gbs;  // collectives: NCCL bus bandwidth
  // Above 100 % of its peak or of its roofline: flagged (hw/ceiling.h), never a plain figure.
  std::optional<AbovePeak> above_peak;
};

// GPU-op time by how it was priced: the share without a model is `unmodelled_share`.
struct RooflineCoverage {
  int64_t gpu_op_ns = 0;                         // Σ kernel, memcpy and memset time
  std::map<std::string, int64_t> modelled_ns;    // tier → time
  std::map<std::string, int64_t> unmodelled_ns;  // why (taxonomy category / reason) → time
  int64_t estimated_ns = 0;                      // of modelled: lower/upper-bound models
  int64_t inferred_ns = 0;                       // of modelled: priced by an identical launch
  int64_t inferred_shapes_ns = 0;                // of modelled: FLOP ops with a shape/dtype from elsewhere
  // The unmodelled kernels (and memcpys/memsets) with the most time, most first: what is left.
  struct Unmodelled {
    std::string kernel, why;
    int64_t ns = 0, count = 0;
  };
  std::vector<Unmodelled> top_unmodelled;
  double unmodelled_share() const;
};

struct RooflineReport {
  GpuSpec gpu;
  double bandwidth_gbs = 0;
  std::vector<std::pair<std::string, double>> ridges;  // peak_key → FLOP/byte
  std::vector<RooflinePoint> ops;                      // grouped by (op, shapes, dtype)
  std::vector<RooflinePoint> kernels;                  // grouped by kernel name (FLOPs apportioned by time)
  int64_t flop_op_instances = 0, instances_with_kernels = 0, instances_without_shapes = 0;
  std::vector<std::string> notes;
  bool all_ops = false;  // priced with the op models (every class), so coverage is meaningful
  RooflineCoverage coverage;
  // Per gpu_ops row (all_ops only): FLOPs and bytes the models gave it, -1 when unmodelled; the
  // triage kernel table sums them per row.
  std::vector<double> op_flops, op_bytes;
  // Per gpu_ops row (all_ops only): the compute roof its FLOPs are held to (TFLOP/s, the peak of
  // its dtype and engine; 0 when the point has no cited roof).
  std::vector<double> op_peak_tflops;
  // The shape-priced kernels by signature (RooflineInputs::export_signatures only).
  KernelSignatures signatures;
};

// Attributes each kernel to the innermost FLOP-family CPU op enclosing its launch (runtime call
// by correlation, on the same thread), falling back to the kernel's External id.
RooflineReport roofline_from_trace(const Timeline& tl, const GpuSpec& gpu, const KernelEngineFn& engine_of);
// Every op class: the FLOP ops as above, then every other GPU op by the tiers of
// data/op_models.yaml (hw/op_models.h), with the coverage of GPU-op time.
RooflineReport roofline_from_trace(const Timeline& tl, const GpuSpec& gpu, const RooflineInputs& in);

Json roofline_to_json(const RooflineReport& r);
std::string roofline_human(const RooflineReport& r, size_t top = 25);

// Log-log roofline SVG: one roof per peak used (and the bandwidth slope), ridge points marked,
// one dot per point. Self-contained <svg> text, embeddable in HTML reports.
struct SvgRoof {
  std::string label;
  double peak_tflops;
};
struct SvgPoint {
  std::string label;
  double intensity;  // FLOP/byte
  double tflops;
  std::string cls;  // css class / colour key: compute, memory, unknown
};
std::string roofline_svg(const std::string& title, double bandwidth_gbs, const std::vector<SvgRoof>& roofs,
                         const std::vector<SvgPoint>& points);
std::string roofline_svg(const RooflineReport& r);

}  // namespace goblin::hw
