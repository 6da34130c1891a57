// Vendor-neutral kernel taxonomy: ordered rules from data/taxonomy.yaml classify a kernel name
// (and, where that helps, the launching CPU op) into a category and a library family.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace goblin {

struct KernelClass {
  std::string category;  // gemm, attention, communication, norm, softmax, elementwise, reduction,
                         // convolution, moe, quantization, optimizer, memcpy, memset, triton, other
  std::string family;    // cuBLAS, cuBLASLt, CUTLASS, hipBLASLt, rocBLAS/Tensile, CK, FlashAttention,
                         // cuDNN, AITER, MIOpen, NCCL, RCCL, Triton, ATen, ... ("unknown" if none)
  std::string rule_id;   // the taxonomy rule that matched (for explanations)
};

class Taxonomy {
 public:
  // Loads data/taxonomy.yaml (embedded, or the --data-dir override).
  static Result<Taxonomy> load();
  KernelClass classify(std::string_view kernel_name, std::string_view cpu_op_name = {}) const;
  const std::vector<std::string>& categories() const { return categories_; }

  struct Rule;  // defined in taxonomy.cpp

 private:
  std::vector<std::string> categories_;
  std::vector<Rule>* rules_ = nullptr;  // owned; see taxonomy.cpp
  std::shared_ptr<std::vector<Rule>> holder_;
};

}  // namespace goblin
