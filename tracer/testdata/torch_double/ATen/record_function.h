// TEST DOUBLE of PyTorch's ATen/record_function.h (torch is not installed on the CPU machines):
// only the API goblin's operator observer (workloads/goblin_hook/goblin_ops.cpp) uses, with the
// same names and signatures, so tracer/observer_ext_test.cpp compiles the observer itself and
// drives its callbacks as PyTorch's dispatcher does (start at construction, end at destruction).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>
namespace c10 {
template <class T>
struct ArrayRef {
  const T* p;
  size_t n;
  const T* begin() const { return p; }
  const T* end() const { return p + n; }
  size_t size() const { return n; }
};
}  // namespace c10
namespace c10 {
enum class ScalarType : int8_t { Long = 4, Float = 6, BFloat16 = 15 };
struct TypeMeta {  // caffe2's names, as torch.profiler's Input type writes them
  ScalarType st;
  std::string_view name() const {
    return st == ScalarType::Float ? "float" : st == ScalarType::BFloat16 ? "c10::BFloat16" : "long int";
  }
};
}  // namespace c10
namespace at {
using IntArrayRef = c10::ArrayRef<int64_t>;
struct Tensor {
  std::vector<int64_t> s;
  bool def = true;
  c10::ScalarType st = c10::ScalarType::Float;
  bool defined() const { return def; }
  bool is_nested() const { return false; }
  IntArrayRef sizes() const { return {s.data(), s.size()}; }
  c10::ScalarType scalar_type() const { return st; }
  c10::TypeMeta dtype() const { return {st}; }
};
}  // namespace at
namespace c10 {
struct IValue {
  bool tensor = false, scalar = false, int_list = false, tensor_list = false;
  at::Tensor t;
  bool isTensor() const { return tensor; }
  bool isScalar() const { return scalar; }
  bool isIntList() const { return int_list; }
  bool isDoubleList() const { return false; }
  bool isBoolList() const { return false; }
  bool isTensorList() const { return tensor_list; }
  const at::Tensor& toTensor() const { return t; }
};
}  // namespace c10
namespace at {
enum class RecordScope : uint8_t {
  FUNCTION = 0,
  BACKWARD_FUNCTION,
  TORCHSCRIPT_FUNCTION,
  KERNEL_FUNCTION_DTYPE,
  CUSTOM_CLASS,
  BUILD_FEATURE,
  LITE_INTERPRETER,
  USER_SCOPE
};
}
namespace std {
template <>
struct hash<at::RecordScope> {
  size_t operator()(const at::RecordScope& s) const noexcept { return (size_t)s; }
};
}  // namespace std
namespace at {
struct ObserverContext {
  virtual ~ObserverContext() = default;
};
struct RecordFunction {
  std::string nm;
  int64_t seq = -1;
  std::vector<c10::IValue> in;
  bool needs = false;
  const char* name() const { return nm.c_str(); }
  int64_t seqNr() const { return seq; }
  c10::ArrayRef<const c10::IValue> inputs() const { return {in.data(), in.size()}; }
  bool needsInputs() const { return needs; }
};
using CallbackHandle = uint64_t;
struct RecordFunctionCallback {
  using StartCallback = std::unique_ptr<ObserverContext> (*)(const RecordFunction&);
  using EndCallback = void (*)(const RecordFunction&, ObserverContext*);
  StartCallback s;
  EndCallback e;
  bool ni = false;
  RecordFunctionCallback(StartCallback a, EndCallback b) : s(a), e(b) {}
  RecordFunctionCallback& needsInputs(bool v) {
    ni = v;
    return *this;
  }
  RecordFunctionCallback& scopes(const std::unordered_set<RecordScope, std::hash<RecordScope>>&) { return *this; }
};
inline std::vector<RecordFunctionCallback> g_cbs;
inline CallbackHandle addGlobalCallback(const RecordFunctionCallback& cb) {
  g_cbs.push_back(cb);
  return g_cbs.size();
}
inline void removeCallback(CallbackHandle) { g_cbs.clear(); }
}  // namespace at
