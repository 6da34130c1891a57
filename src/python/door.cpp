#include "python/door.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <unordered_map>

#include "app/analysis_context.h"
#include "app/registry.h"
#include "query/output.h"

namespace goblin::python {

namespace {

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// Where a verb writes when the caller names no output (an export without out=): a fresh
// directory under $TMPDIR, as the MCP door gives each call a folder of its session.
Result<std::string> fresh_output_dir(const std::string& kind) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string templ = (base / fmt::format("goblin-{}-XXXXXX", kind)).string();
  if (::mkdtemp(templ.data()) == nullptr)
    return make_error(ErrorKind::Io, fmt::format("cannot create a directory under {}", base.string()), base.string());
  return templ;
}

// Appends one value to a column, widening its kind when the value needs it.
class ColumnSink : public query::RowSink {
 public:
  void columns(const std::vector<std::string>& names) override {
    out_ = Columns{};
    dicts_.assign(names.size(), {});
    for (const auto& n : names) {
      Column col;
      col.name = n;
      out_.columns.push_back(std::move(col));
    }
  }
  bool row(const std::vector<query::Value>& values) override {
    for (size_t c = 0; c < values.size() && c < out_.columns.size(); ++c) add(c, values[c]);
    ++out_.rows;
    return true;
  }
  Columns take() { return std::move(out_); }

 private:
  void to_kind(size_t c, Column::Kind k) {
    Column& col = out_.columns[c];
    const size_t n = out_.rows;
    if (col.kind == Column::Kind::Null) {
      if (k == Column::Kind::Integer) col.ints.assign(n, 0);
      if (k == Column::Kind::Real) col.reals.assign(n, NAN);
      if (k == Column::Kind::Text) col.codes.assign(n, -1);
    } else if (col.kind == Column::Kind::Integer && k == Column::Kind::Real) {
      col.reals.assign(col.ints.begin(), col.ints.end());
      for (size_t i = 0; i < n; ++i)
        if (col.null[i]) col.reals[i] = NAN;
      col.ints = {};
    } else if (k == Column::Kind::Text) {  // numbers so far become their text
      col.codes.assign(n, -1);
      for (size_t i = 0; i < n; ++i) {
        if (col.null[i]) continue;
        const query::Value v =
            col.kind == Column::Kind::Integer ? query::Value(col.ints[i]) : query::Value(col.reals[i]);
        col.codes[i] = code(c, query::value_text(v));
      }
      col.ints = {};
      col.reals = {};
    }
    col.kind = k;
  }
  int32_t code(size_t c, const std::string& s) {
    auto [it, added] = dicts_[c].try_emplace(s, static_cast<int32_t>(out_.columns[c].dict.size()));
    if (added) out_.columns[c].dict.push_back(s);
    return it->second;
  }
  void add(size_t c, const query::Value& v) {
    Column& col = out_.columns[c];
    const bool is_null = std::holds_alternative<std::monostate>(v);
    col.null.push_back(is_null ? 1 : 0);
    col.any_null = col.any_null || is_null;
    if (!is_null) {
      if (std::holds_alternative<std::string>(v)) {
        if (col.kind != Column::Kind::Text) to_kind(c, Column::Kind::Text);
      } else if (std::holds_alternative<double>(v)) {
        if (col.kind == Column::Kind::Null || col.kind == Column::Kind::Integer) to_kind(c, Column::Kind::Real);
      } else if (col.kind == Column::Kind::Null) {
        to_kind(c, Column::Kind::Integer);
      }
    }
    switch (col.kind) {
      case Column::Kind::Null:
        break;
      case Column::Kind::Integer:
        col.ints.push_back(is_null ? 0 : std::get<int64_t>(v));
        break;
      case Column::Kind::Real:
        col.reals.push_back(is_null                              ? NAN
                            : std::holds_alternative<int64_t>(v) ? static_cast<double>(std::get<int64_t>(v))
                                                                 : std::get<double>(v));
        break;
      case Column::Kind::Text:
        col.codes.push_back(is_null                                  ? -1
                            : std::holds_alternative<std::string>(v) ? code(c, std::get<std::string>(v))
                                                                     : code(c, query::value_text(v)));
        break;
    }
  }
  Columns out_;
  std::vector<std::unordered_map<std::string, int32_t>> dicts_;
};

}  // namespace

Outcome call_verb(const std::string& name, const std::string& args_json) {
  auto finish = [](const VerbResult& r) {
    return Outcome{dump(r.error ? envelope_error(*r.error, r.result) : envelope_ok(r.result)), r.human};
  };
  const app::Verb* v = app::find_verb(name);
  if (!v) return finish(VerbResult{nullptr, make_error(ErrorKind::Usage, fmt::format("no verb named '{}'", name)), ""});
  auto args = parse_json_text(args_json, "", "arguments are not valid JSON");
  if (!args) return finish(VerbResult{nullptr, args.error(), ""});
  std::vector<std::string> missing;
  auto rq = app::make_request(*v, *args, app::kPython, &missing);
  if (!rq) return finish(VerbResult{nullptr, rq.error(), ""});
  if (!missing.empty())
    return finish(VerbResult{nullptr, make_error(ErrorKind::Usage, "missing " + missing.front()), ""});
  app::Context ctx;
  ctx.door = app::kPython;
  ctx.output_dir = fresh_output_dir;
  return finish(app::run_verb(*v, *rq, ctx));
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

std::vector<int64_t> Trace::ranks() const {
  std::vector<int64_t> out;
  for (const auto& r : traces_->refs) out.push_back(r.rank);
  return out;
}

}  // namespace goblin::python
