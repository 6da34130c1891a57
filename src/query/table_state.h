// The query tables' insides shared by tables.cpp (the table list, the getters, SQLite's rows)
// and table_scan.cpp (whole tables read column by column for the Python door): the per-trace
// state with its lazily computed analyses, and a table's declaration. Not an API: query only.
#pragma once
#include <sqlite3.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/category_breakdown.h"
#include "analysis/exposure.h"
#include "analysis/kernel_table.h"
#include "analysis/modules.h"
#include "analysis/ranks.h"
#include "analysis/run_metrics.h"
#include "analysis/stages.h"
#include "analysis/steps.h"
#include "query/columns.h"
#include "query/tables.h"

namespace goblin::query::detail {

// What a getter writes a value into: the SQLite call's result, or (TableData::scan) the column
// being read without SQLite.
struct Out {
  sqlite3_context* c = nullptr;
  ColumnBuilder* b = nullptr;
  void i(int64_t v) { b ? b->integer(v) : sqlite3_result_int64(c, v); }
  void opt(int64_t v) {  // kNone (-1) is "absent"
    if (v == kNone)
      null();
    else
      i(v);
  }
  void d(double v) { b ? b->real(v) : sqlite3_result_double(c, v); }
  void null() { b ? b->null() : sqlite3_result_null(c); }
  // Text that outlives the statement (the string pool, an analysis result kept in TableData).
  void s(std::string_view v) {
    b ? b->text(v, true) : sqlite3_result_text(c, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  void tmp(const std::string& v) {
    b ? b->text(v, false) : sqlite3_result_text(c, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void str(const Timeline& tl, StrId id) {
    if (id == kNoStr)
      null();
    else
      s(tl.str(id));
  }
};

// One trace and the analyses computed over it so far.
struct TraceState {
  TraceRef ref;
  const analysis::AnalysisKnowledge* k = nullptr;
  std::string* error = nullptr;  // TableData's first analysis error
  const Timeline& tl() const { return *ref.timeline; }

  // gpu_ops.category / family: breakdown's classification (taxonomy on the kernel name and the
  // launching CPU op found by External id; memcpy and memset rows by kind).
  std::vector<uint32_t> op_class;
  std::vector<std::pair<std::string, std::string>> classes;
  bool classified = false;
  const std::pair<std::string, std::string>& op_cls(size_t i) {
    if (!classified) classify();
    return classes[op_class[i]];
  }
  void classify() {
    classified = true;
    const GpuOpTable& g = tl().gpu_ops;
    op_class.assign(g.size(), 0);
    classes = {{"memcpy", "copy engine"}, {"memset", "runtime"}};
    std::unordered_map<uint64_t, uint32_t> cache;
    // A kernel launched by no CPU op known here (no External id, or none that matches) is looked
    // up by its name id alone, in front of the hash map: classes are per distinct (name, CPU op)
    // pair, so millions of rows cost one array read each and the taxonomy runs once per pair.
    constexpr uint32_t kUnset = UINT32_MAX;
    std::vector<uint32_t> by_name(tl().strings.size(), kUnset);
    for (size_t i = 0; i < g.size(); ++i) {
      if (g.kind[i] != GpuOpKind::Kernel) {
        op_class[i] = g.kind[i] == GpuOpKind::Memcpy ? 0 : 1;
        continue;
      }
      StrId cpu = kNoStr;
      if (g.external_id[i] != kNone)
        if (auto op = tl().cpu_op_by_external_id(g.external_id[i])) cpu = tl().cpu_ops.name[*op];
      uint32_t* fast = cpu == kNoStr && g.name[i] < by_name.size() ? &by_name[g.name[i]] : nullptr;
      if (fast && *fast != kUnset) {
        op_class[i] = *fast;
        continue;
      }
      const uint64_t key = (static_cast<uint64_t>(g.name[i]) << 32) | cpu;
      auto [it, fresh] = cache.try_emplace(key, static_cast<uint32_t>(classes.size()));
      if (fresh) {
        analysis::KernelClass kc = k->taxonomy.classify(tl().str(g.name[i]), tl().str(cpu));
        classes.emplace_back(std::move(kc.category), std::move(kc.family));
      }
      op_class[i] = it->second;
      if (fast) *fast = it->second;
    }
  }

  std::optional<analysis::StepDetection> steps_;
  std::vector<int64_t> step_numbers;  // ProfilerStep#N's N, else the step's index
  const analysis::StepDetection& steps() {
    if (!steps_) {
      steps_ = analysis::find_steps(tl());
      for (size_t i = 0; i < steps_->steps.size(); ++i) step_numbers.push_back(step_number(steps_->steps[i].name, i));
    }
    return *steps_;
  }

  // cpu_ops.parent_id / depth (kNone: no parent) and gpu_ops.step (kNone: outside every step),
  // computed on first read (table_index.cpp).
  std::vector<int64_t> cpu_parent, cpu_depth, gpu_step;
  bool nested = false, stepped = false;
  int64_t cpu_parent_of(size_t r) {
    if (!nested) nest_cpu_ops();
    return cpu_parent[r];
  }
  int64_t cpu_depth_of(size_t r) {
    if (!nested) nest_cpu_ops();
    return cpu_depth[r];
  }
  int64_t gpu_step_of(size_t r) {
    if (!stepped) step_gpu_ops();
    return gpu_step[r];
  }
  void nest_cpu_ops();
  void step_gpu_ops();

  std::optional<analysis::CategoryBreakdown> breakdown_;
  const analysis::CategoryBreakdown& breakdown() {
    if (!breakdown_) breakdown_ = analysis::category_breakdown(tl(), k->taxonomy);
    return *breakdown_;
  }

  std::optional<analysis::RunMetrics> metrics_;
  const analysis::RunMetrics& metrics() {
    if (!metrics_) {
      auto m = analysis::compute_run_metrics(tl(), *k);
      if (m) {
        metrics_ = std::move(*m);
      } else {
        if (error->empty()) *error = m.error().describe();
        metrics_ = analysis::RunMetrics{};
      }
    }
    return *metrics_;
  }

  // The triage analyses: exposure, launch attribution, kernel table, modules, stages.
  struct Triage {
    analysis::ExposureResult exposure;
    analysis::LaunchAttribution attribution;
    analysis::KernelTableResult kernels;
    analysis::ModuleTable modules;
    analysis::StageSplit stages;
  };
  std::unique_ptr<Triage> triage_;
  const Triage& triage() {
    if (!triage_) {
      triage_ = std::make_unique<Triage>();
      Triage& t = *triage_;
      t.exposure = analysis::compute_exposure(tl());
      t.attribution = analysis::attribute_launches(tl());
      t.kernels = analysis::build_kernel_table(tl(), t.exposure, t.attribution, &k->taxonomy);
      t.modules = analysis::build_module_table(tl(), t.attribution, analysis::attribute_modules(tl(), t.attribution),
                                               t.kernels);
      t.stages = analysis::split_stages(tl(), t.attribution, t.kernels, *k->stages);
    }
    return *triage_;
  }
};

using Getter = std::function<void(TraceState&, size_t, Out&)>;
struct Col {
  ColumnInfo info;
  Getter get;
};
// A text column whose values are small ids (string-pool ids, class indexes): rows can be handed
// to SQLite already in its order (TableData::order), so GROUP BY / ORDER BY on it need no sort of
// millions of strings.
struct SortKey {
  std::function<uint32_t(TraceState&, size_t)> id;              // the row's id (0: NULL)
  std::function<size_t(TraceState&)> ids;                       // ids are < this
  std::function<std::string_view(TraceState&, uint32_t)> text;  // an id's text
};
// A column TableData::scan reads a whole trace at a time from the Timeline's own arrays (the
// large tables' columns), instead of a getter call per row: append() adds every row of the
// trace. narrow: an id or small count, int32 in the frame while every value fits (times and byte
// amounts stay int64: a user's arithmetic on them must not overflow).
struct Bulk {
  std::function<void(TraceState&, ColumnBuilder&)> append;
  bool narrow = false;
};
struct Table {
  TableInfo info;
  std::function<size_t(TraceState&)> rows;
  std::vector<Getter> getters;
  std::map<int, SortKey> keys;  // by column index (rank and trace count)
  std::map<int, Bulk> bulk;     // by column index (rank and trace count)
};

// Every table, built once (tables.cpp).
const std::vector<Table>& tables();
// Adds gpu_ops' whole-column readers (table_scan.cpp).
void add_gpu_op_bulk(Table& t);

}  // namespace goblin::query::detail

namespace goblin::query {

struct TableData::Impl {
  std::vector<detail::TraceState> traces;
  std::shared_ptr<const analysis::AnalysisKnowledge> knowledge;
  std::string error;
  std::map<std::pair<size_t, int>, std::vector<uint64_t>> orders;
  std::map<std::pair<size_t, int>, TableData::ColumnIndex> indexes;
};

namespace detail {
void write(TableData::Impl& impl, size_t t, size_t trace, size_t row, int c, Out& o);
}  // namespace detail

}  // namespace goblin::query
