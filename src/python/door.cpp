#include "python/door.h"

#include <fmt/format.h>

#include <filesystem>

#include "app/analysis_context.h"
#include "app/registry.h"
#include "core/temp_dir.h"

namespace goblin::python {

namespace {

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Where a verb writes when the caller names no output (an export without out=): a fresh
// directory under $TMPDIR, as the MCP door gives each call a folder of its session.
Result<std::string> fresh_output_dir(const std::string& kind) { return make_temp_dir(fmt::format("goblin-{}-", kind)); }

// A statement's rows, column by column (query::ColumnBuilder types each column as SQLite typed
// its values).
class ColumnSink : public query::RowSink {
 public:
  void columns(const std::vector<std::string>& names) override {
    builders_.clear();
    for (const auto& n : names) builders_.emplace_back(n);
    rows_ = 0;
  }
  bool row(const std::vector<query::Value>& values) override {
    for (size_t c = 0; c < values.size() && c < builders_.size(); ++c) {
      const query::Value& v = values[c];
      if (const auto* i = std::get_if<int64_t>(&v))
        builders_[c].integer(*i);
      else if (const auto* d = std::get_if<double>(&v))
        builders_[c].real(*d);
      else if (const auto* t = std::get_if<std::string>(&v))
        builders_[c].text(*t, false);
      else
        builders_[c].null();
    }
    ++rows_;
    return true;
  }
  Columns take() {
    Columns out;
    for (auto& b : builders_) out.columns.push_back(b.finish());
    out.rows = rows_;
    return out;
  }

 private:
  std::vector<query::ColumnBuilder> builders_;
  size_t rows_ = 0;
};

}  // namespace

Outcome call_verb(const std::string& name, const std::string& args_json) {
  // By value, so the envelope takes the result without a copy (app::run_verb's is a temporary).
  auto finish = [](VerbResult r) {
    return Outcome{dump(r.error ? envelope_error(*r.error, std::move(r.result)) : envelope_ok(std::move(r.result))),
                   std::move(r.human)};
  };
  auto args = parse_json_text(args_json, "", "arguments are not valid JSON");
  if (!args) return finish(VerbResult{nullptr, args.error(), ""});
  app::Context ctx;
  ctx.output_dir = fresh_output_dir;
  return finish(app::call(name, *args, app::kPython, ctx));
}

std::string verbs_json() { return call_verb("verbs", "{}").envelope; }

std::vector<std::string> table_names() {
  std::vector<std::string> out;
  for (const query::TableInfo& t : query::table_infos()) out.push_back(t.name);
  return out;
}

Result<std::unique_ptr<Trace>> Trace::open(const std::vector<std::string>& paths) {
  if (paths.empty()) return make_error(ErrorKind::Usage, "give one or more traces");
  app::Context ctx;
  ctx.door = app::kPython;
  ASSIGN_OR_RETURN(auto kn, app::analysis_knowledge_of(ctx));
  std::unique_ptr<Trace> t(new Trace);
  t->paths_ = paths;
  t->traces_ = std::make_unique<app::QueryTraces>();
  RETURN_IF_ERROR(app::load_query_traces(paths, *t->traces_));
  ASSIGN_OR_RETURN(t->db_, query::Database::open(t->traces_->refs, kn));
  return t;
}

Result<Columns> Trace::sql(const std::string& text, double timeout_s) {
  std::lock_guard lock(mu_);
  query::RunOptions opt;
  if (timeout_s > 0) opt.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  ColumnSink sink;
  RETURN_IF_ERROR(db_->run(text, sink, opt));
  return sink.take();
}

Result<Columns> Trace::table(const std::string& name) {
  std::lock_guard lock(mu_);
  ASSIGN_OR_RETURN(std::vector<query::ColumnData> cols, db_->scan_table(name));
  Columns out;
  out.rows = cols.empty() ? 0 : cols.front().size();
  out.columns = std::move(cols);
  return out;
}

std::vector<int64_t> Trace::ranks() const {
  std::vector<int64_t> out;
  for (const auto& r : traces_->refs) out.push_back(r.rank);
  return out;
}

}  // namespace goblin::python
