// The data verbs in the registry: `query` (SQL over the trace tables, query/database.h) and
// `export` (a window of traces as one Kineto file a viewer can open, query/slice.h; or the query
// tables as CSV files or an SQLite database). docs/query.md.
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "app/analysis_context.h"
#include "app/per_rank.h"
#include "app/query_traces.h"
#include "app/registry.h"
#include "app/store_query.h"
#include "core/atomic_file.h"
#include "query/database.h"
#include "query/output.h"
#include "query/slice.h"
#include "trace/kineto_header.h"
#include "trace/load.h"

namespace goblin::app {

Status load_query_traces(const std::vector<std::string>& paths, QueryTraces& out) {
  out.traces.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    ASSIGN_OR_RETURN(auto t,
                     trace::load_trace(paths[i], trace::kNeedGpuOps | trace::kNeedSamples | trace::kNeedCounters));
    if (t.damage && !out.damage) out.damage = t.damage;
    out.traces.push_back(std::move(t));
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    const Timeline& tl = out.traces[i].timeline;
    const int64_t rank = tl.meta.distributed.rank != kNone ? tl.meta.distributed.rank : rank_hint(paths[i], i);
    out.refs.push_back({&tl, rank, paths[i]});
  }
  return {};
}

namespace {

// The traces, read and kept alive while the database reads them.
Result<std::unique_ptr<QueryTraces>> load_all(const std::vector<std::string>& paths) {
  auto l = std::make_unique<QueryTraces>();
  if (Status s = load_query_traces(paths, *l); !s) return s.error();
  return l;
}

Json schema_json() {
  Json tables = Json::array();
  for (const query::TableInfo& t : query::table_infos()) {
    Json cols = Json::array();
    for (const query::ColumnInfo& c : t.columns)
      cols.push_back({{"name", c.name}, {"type", query::sql_type_name(c.type)}, {"doc", c.doc}});
    tables.push_back({{"name", t.name}, {"doc", t.doc}, {"analysis", t.analysis}, {"columns", cols}});
  }
  return Json{{"tables", tables}};
}

Status write_file(const std::string& path, std::string_view bytes) {
  ASSIGN_OR_RETURN(auto f, AtomicFile::create(path));
  if (!f.write(bytes)) return make_error(ErrorKind::Io, "failed writing " + path, path);
  return f.commit();
}

// This process's user + system CPU seconds so far (--timer).
double cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// SQL text from stdin (not a terminal): the whole of it, bounded.
Result<std::string> read_stdin_sql() {
  std::string sql;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0) return make_error(ErrorKind::Io, "cannot read SQL from standard input");
    if (n == 0) break;
    sql.append(buf, static_cast<size_t>(n));
    if (sql.size() > static_cast<size_t>(query::kMaxQuerySqlBytes))
      return make_error(ErrorKind::Usage, fmt::format("SQL longer than {} bytes", query::kMaxQuerySqlBytes));
  }
  return sql;
}

struct QueryRequest {
  std::vector<std::string> path;
  std::string sql, format, db, store;
  bool schema = false, timer = false, progress = false;
  std::optional<double> timeout;
  int64_t max_rows = 0;
};

VerbResult query_verb(const QueryRequest& rq, Context& ctx) {
  VerbResult vr;
  if (rq.schema) {
    vr.result = schema_json();
    vr.human = query::schema_markdown();
    return vr;
  }
  std::vector<std::string> paths = rq.path;
  std::string sql = rq.sql;  // "" when absent
  // CLI: `goblin query TRACE... "SQL"` — the last word is the statement when it names no file.
  std::error_code ec;
  if (sql.empty() && ctx.door == kCli && paths.size() > 1 && !std::filesystem::exists(paths.back(), ec)) {
    sql = paths.back();
    paths.pop_back();
  }
  const std::string& store_url = rq.store;
  const std::string& db_path = rq.db;
  // `goblin query --store URL "SQL"`: the one positional word is the statement.
  if (!store_url.empty() && sql.empty() && ctx.door == kCli && paths.size() == 1) {
    sql = paths.back();
    paths.clear();
  }
  if (!store_url.empty() && (!paths.empty() || !db_path.empty())) {
    vr.error = make_error(ErrorKind::Usage, "--store queries the run store: give no traces and no --db with it");
    return vr;
  }
  if (paths.empty() && store_url.empty()) {
    vr.error = make_error(ErrorKind::Usage, "give one or more traces, or --store URL (or --schema for the tables)");
    return vr;
  }
  // Checked before the traces are read: --db must never replace a file goblin did not write.
  if (!db_path.empty()) RETURN_IF_ERROR(query::check_replaceable_query_database(db_path));
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<QueryTraces> loaded;
  Result<std::unique_ptr<query::Database>> db = make_error(ErrorKind::Internal, "no database");
  if (!store_url.empty()) {
    db = open_store_database(store_url);
  } else {
    ASSIGN_OR_RETURN(auto kn, analysis_knowledge_of(ctx));
    ASSIGN_OR_RETURN(loaded, load_all(paths));
    db = query::Database::open(loaded->refs, kn);
  }
  if (!db) return db.error();
  if (!db_path.empty()) RETURN_IF_ERROR((*db)->materialize());
  query::RunOptions opt;
  if (rq.timeout) opt.timeout = std::chrono::milliseconds(static_cast<int64_t>(*rq.timeout * 1000));
  // The progress line of a long statement: stderr only (never in a result), on the CLI, when
  // stderr is a terminal (redrawn in place) or --progress asks for it (a line per report).
  const bool tty_err = ::isatty(2) != 0;
  bool progress_shown = false;
  if (ctx.door == kCli && (tty_err || rq.progress))
    opt.progress = [&progress_shown, tty_err](uint64_t rows, double seconds) {
      std::cerr << fmt::format("{}query: {} rows read, {:.1f} s{}", tty_err ? "\r\x1b[K" : "", rows, seconds,
                               tty_err ? "" : "\n")
                << std::flush;
      progress_shown = true;
    };
  const auto clear_progress = [&] {
    if (progress_shown && tty_err) std::cerr << "\r\x1b[K" << std::flush;
    progress_shown = false;
  };
  const std::string& format = rq.format;
  const int64_t cap = rq.max_rows;
  const bool stream = static_cast<bool>(ctx.text_out) && format != "json";
  // Rows on stdout first clear a progress line drawn on the same terminal.
  const auto emit = [&](std::string_view t) {
    clear_progress();
    ctx.text_out(t);
  };
  auto run_statement = [&](const std::string& text, Json* result) -> Status {
    if (stream) {
      if (format == "csv") {
        query::CsvSink sink(emit);
        return (*db)->run(text, sink, opt, !db_path.empty());
      }
      query::TableSink sink(emit);
      Status s = (*db)->run(text, sink, opt, !db_path.empty());
      sink.finish();
      if (result) *result = Json{{"row_count", sink.rows()}};
      return s;
    }
    query::JsonSink sink(cap, ctx.door == kMcp ? query::kMaxQueryMcpJsonBytes : query::kMaxQueryJsonBytes);
    Status s = (*db)->run(text, sink, opt, !db_path.empty());
    if (result) *result = sink.result();
    return s;
  };
  auto run_one = [&](const std::string& text, Json* result) -> Status {
    Status s = run_statement(text, result);
    clear_progress();
    return s;
  };
  if (sql.empty()) {
    if (ctx.door != kCli) {
      vr.error = make_error(ErrorKind::Usage, "missing sql");
      return vr;
    }
    if (::isatty(0) && ctx.text_out) {
      query::run_shell(
          [&](const std::string& text) {
            if (Status s = run_one(text, nullptr); !s) std::cerr << fmt::format("error: {}\n", s.error().message);
          },
          ctx.text_out);
      vr.result = Json{{"shell", true}};
    } else {
      ASSIGN_OR_RETURN(sql, read_stdin_sql());
    }
  }
  if (!sql.empty()) {
    Json res;
    const auto t1 = std::chrono::steady_clock::now();
    const double cpu1 = cpu_seconds();
    Status st = run_one(sql, &res);
    if (rq.timer) {
      // CPU time beside wall time: on a shared machine the wall time of one statement says more
      // about the neighbours than about the statement.
      const auto t2 = std::chrono::steady_clock::now();
      std::cerr << fmt::format("time: read + open {:.3f} s, statement {:.3f} s wall, {:.3f} s CPU\n",
                               std::chrono::duration<double>(t1 - t0).count(),
                               std::chrono::duration<double>(t2 - t1).count(), cpu_seconds() - cpu1);
    }
    if (Status s = st; !s) {
      vr.error = s.error();
      return vr;
    }
    vr.result = std::move(res);
    if (!stream && ctx.text_out) vr.human = vr.result.dump(2) + "\n";  // --format json on the CLI
  }
  if (!db_path.empty()) {
    ASSIGN_OR_RETURN(const auto image, (*db)->image());
    RETURN_IF_ERROR(write_file(db_path, image));
    vr.result["db"] = db_path;
  }
  if (loaded && loaded->damage) vr.error = loaded->damage;  // partial input: the tables hold what was read
  return vr;
}

// --ranks: "0,2" or "0-3" entries → the set of ranks kept (empty: all).
Result<std::vector<std::pair<int64_t, int64_t>>> parse_ranks(const std::vector<std::string>& items) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const std::string& s : items) {
    ASSIGN_OR_RETURN(auto r, query::parse_step_range(s));
    out.push_back(r);
  }
  return out;
}

struct ExportRequest {
  std::vector<std::string> path, ranks;
  std::string out, format;
  std::optional<std::string> steps;
  std::optional<double> from, to;
};

VerbResult export_verb(const ExportRequest& rq, Context& ctx) {
  VerbResult vr;
  std::string out = rq.out;
  const std::string& format = rq.format;
  if (out.empty()) {
    ASSIGN_OR_RETURN(const std::string d, ctx.output_dir("export"));
    out = (std::filesystem::path(d) / (format == "kineto"   ? "slice.json.gz"
                                       : format == "sqlite" ? "trace.db"
                                                            : "tables"))
              .string();
  }
  ASSIGN_OR_RETURN(auto kn, analysis_knowledge_of(ctx));
  ASSIGN_OR_RETURN(const auto ranks, parse_ranks(rq.ranks));
  ASSIGN_OR_RETURN(auto loaded, load_all(rq.path));
  // Keep the ranks asked for.
  std::vector<query::TraceRef> refs;
  for (const auto& r : loaded->refs) {
    bool keep = ranks.empty();
    for (const auto& [a, b] : ranks) keep = keep || (r.rank >= a && r.rank <= b);
    if (keep) refs.push_back(r);
  }
  if (refs.empty()) return VerbResult{nullptr, make_error(ErrorKind::NotFound, "no trace of the ranks asked for"), ""};
  Json res{{"written_to", out}, {"format", format}, {"traces", refs.size()}};
  if (format == "kineto") {
    query::SliceSpec spec;
    if (rq.steps) {
      ASSIGN_OR_RETURN(spec.steps, query::parse_step_range(*rq.steps));
    }
    spec.from_ms = rq.from;
    spec.to_ms = rq.to;
    if (spec.steps && (spec.from_ms || spec.to_ms))
      return VerbResult{nullptr, make_error(ErrorKind::Usage, "give --steps or --from/--to, not both"), ""};
    std::vector<query::SliceInput> inputs;
    Json windows = Json::array();
    for (const auto& r : refs) {
      auto w = query::slice_window(*r.timeline, spec);
      if (!w) {
        Error e = w.error();
        e.file = r.path;
        return VerbResult{nullptr, e, ""};
      }
      windows.push_back(
          {{"rank", r.rank}, {"trace", r.path}, {"start_ns", w->start_ns}, {"end_ns", w->end_ns}, {"steps", w->steps}});
      inputs.push_back({r.timeline, r.rank, std::move(*w), {}, {}});
    }
    // One Kineto trace: its metadata events and top-level keys go back with the slice, so a viewer
    // shows the tracks by name (one more pass of the splitter over the file).
    const auto& fmts = inputs.front().timeline->meta.formats;
    if (inputs.size() == 1 && fmts.size() == 1 && fmts.front() == Format::Kineto) {
      auto h = trace::read_kineto_header(refs.front().path);
      if (!h) return VerbResult{nullptr, h.error(), ""};
      inputs.front().top_level = std::move(h->top_level);
      inputs.front().metadata_events = std::move(h->metadata_events);
    }
    auto st = query::write_kineto_slice(inputs, out);
    if (!st) return VerbResult{nullptr, st.error(), ""};
    res["windows"] = windows;
    res["events"] = st->events;
    res["gpu_ops"] = st->gpu_ops;
    res["flows"] = st->flows;
    res["clocks_aligned"] = st->clocks_aligned;
    vr.human = fmt::format("wrote {}: {} events ({} GPU ops, {} flows) from {} trace{}{}\n", out, st->events,
                           st->gpu_ops, st->flows, refs.size(), refs.size() == 1 ? "" : "s",
                           st->clocks_aligned ? "" : " (clocks not aligned: a trace has no epoch base)");
  } else {
    auto db = query::Database::open(refs, kn);
    if (!db) return VerbResult{nullptr, db.error(), ""};
    if (format == "sqlite") {
      // As query --db: never replace a file goblin did not write as a query database.
      if (Status s = query::check_replaceable_query_database(out); !s) return VerbResult{nullptr, s.error(), ""};
      if (Status s = (*db)->materialize(); !s) return VerbResult{nullptr, s.error(), ""};
      auto image = (*db)->image();
      if (!image) return VerbResult{nullptr, image.error(), ""};
      if (Status s = write_file(out, *image); !s) return VerbResult{nullptr, s.error(), ""};
      vr.human = fmt::format("wrote {} ({} tables)\n", out, query::table_infos().size());
    } else {
      std::error_code ec;
      std::filesystem::create_directories(out, ec);
      if (ec)
        return VerbResult{nullptr, make_error(ErrorKind::Io, "cannot create " + out + ": " + ec.message(), out), ""};
      Json files = Json::array();
      for (const query::TableInfo& t : query::table_infos()) {
        const std::string file = (std::filesystem::path(out) / (t.name + ".csv")).string();
        auto f = AtomicFile::create(file);
        if (!f) return VerbResult{nullptr, f.error(), ""};
        bool ok = true;
        query::CsvSink sink([&](std::string_view b) { ok = f->write(b) && ok; });
        if (Status s = (*db)->run("SELECT * FROM " + t.name, sink); !s) return VerbResult{nullptr, s.error(), ""};
        if (!ok) return VerbResult{nullptr, make_error(ErrorKind::Io, "failed writing " + file, file), ""};
        if (Status s = f->commit(); !s) return VerbResult{nullptr, s.error(), ""};
        files.push_back(file);
      }
      res["files"] = files;
      vr.human = fmt::format("wrote {} CSV files into {}\n", files.size(), out);
    }
  }
  vr.result = std::move(res);
  if (ctx.on_written) ctx.on_written("export", {out});
  if (loaded->damage) vr.error = loaded->damage;
  return vr;
}

}  // namespace

void add_query_verbs(std::vector<Verb>& out) {
  {
    Verb v;
    v.cli_path = {"query"};
    v.tool = "query";
    v.title = "SQL over traces";
    v.summary =
        "SQL over traces: gpu_ops, cpu_ops, api_calls, annotations, steps, collectives, python_frames, devices, "
        "tracks, ranks and goblin's analyses (kernels, categories, step_metrics, waste_budget, modules, stages) as "
        "SQLite tables; read-only unless --db";
    v.description =
        "The result holds {columns, rows, row_count, truncated, truncated_note when cut} of the statement (max_rows "
        "caps the rows, and 32 MiB of values, 1 MiB for an agent, the bytes). Several "
        "traces: one per rank, every table has `rank` and `trace` columns. schema=true lists the tables and "
        "columns. A bad statement is an error with SQLite's message and the byte position.";
    v.examples =
        "  goblin query trace.json.gz \"SELECT category, sum(dur_ns)/1e6 AS ms FROM gpu_ops GROUP BY 1 ORDER BY 2 "
        "DESC\"\n"
        "  goblin query rank*.json.gz \"SELECT rank, avg(dur_ns) FROM steps GROUP BY rank\" --format csv\n"
        "  goblin query trace.json.gz --db trace.db \"SELECT count(*) FROM kernels\"   keep the tables in a file\n"
        "  goblin query trace.json.gz                          interactive shell (or SQL from stdin)\n"
        "  goblin query --schema                                the tables and their columns\n"
        "  goblin query --store sqlite:///runs.db \"SELECT verb, count(*) FROM runs GROUP BY 1\"   the run store\n";
    Field paths{"path", FieldKind::InputPaths, "Trace files or run directories (one per rank), then the SQL statement"};
    paths.positional = true;
    Field sql{"sql", FieldKind::String, "The SQL statement (CLI: also the last positional argument)"};
    Field fmt_f{"format", FieldKind::String, "table (aligned text), csv, or json", "table"};
    fmt_f.choices = {"table", "csv", "json"};
    Field db{"db", FieldKind::OutputFile,
             "Keep the tables in this SQLite file (the statement may then create and change its own tables)"};
    db.doors = kCli | kPython;
    Field schema{"schema", FieldKind::Boolean, "List the tables and their columns", false};
    Field timeout{"timeout", FieldKind::Number, "Stop the statement after this many seconds (default 600)"};
    timeout.min = 0.001;
    timeout.max = 86400;
    Field max_rows{"max_rows", FieldKind::Integer, "Rows in a JSON result at most (the result says when cut)",
                   query::kMaxQueryJsonRows};
    max_rows.min = 1;
    max_rows.max = static_cast<double>(query::kMaxQueryJsonRows);
    Field timer{"timer", FieldKind::Boolean, "Print the time to read the traces and to run the statement on stderr",
                false};
    timer.doors = kCli;
    Field progress{"progress", FieldKind::Boolean,
                   "Report rows read and seconds on stderr while a statement runs past 3 s (on by default when "
                   "stderr is a terminal)",
                   false};
    progress.doors = kCli;
    Field store{
        "store", FieldKind::String,
        "SQL over the run store at this URL instead of traces (sqlite:///path.db, postgresql://...), read-only"};
    store.doors = kCli | kPython;  // a URL names any file or server: not for the confined doors (MCP, HTTP)
    using Q = QueryRequest;
    typed_request<Q>(v, query_verb, param(&Q::path, paths), param(&Q::sql, sql), param(&Q::format, fmt_f),
                     param(&Q::db, db), param(&Q::schema, schema), param(&Q::timeout, timeout),
                     param(&Q::max_rows, max_rows), param(&Q::timer, timer), param(&Q::progress, progress),
                     param(&Q::store, store));
    // A query's answer is not a run: `store` names the store the SQL reads, never one to record in.
    v.records = false;
    v.result_schema = Json{{"type", "object"},
                           {"properties",
                            {{"columns", {{"description", "column names"}}},
                             {"rows", {{"description", "one array per row"}}},
                             {"row_count", {{"description", "rows returned"}}},
                             {"truncated", {{"description", "true when max_rows cut the result"}}},
                             {"tables", {{"description", "with schema: the tables and columns"}}}}}};
    out.push_back(std::move(v));
  }
  {
    Verb v;
    v.cli_path = {"export"};
    v.tool = "export";
    v.title = "A slice a viewer can open";
    v.summary =
        "A window of a trace (--steps 5-7, or --from/--to ms) as a Kineto trace Perfetto and chrome://tracing open: "
        "every event kind, flows and correlations kept; several ranks merged, one process per rank. --format "
        "csv|sqlite writes the query tables instead";
    v.description = "The result names the file written, the window of each trace and the events kept.";
    v.examples =
        "  goblin export trace.json.gz --steps 5-7 -o slice.json.gz\n"
        "  goblin export trace.json.gz --from 100 --to 250 -o window.json\n"
        "  goblin export rank*.json.gz --steps 3 --ranks 0-3 -o merged.json.gz   one process per rank\n"
        "  goblin export trace.json.gz --format sqlite -o trace.db              the query tables as a database\n";
    Field paths{"path", FieldKind::InputPaths, "Trace files or run directories (one per rank)"};
    paths.positional = true;
    paths.required = true;
    Field o{"out", FieldKind::OutputFile, "The file written (.json or .json.gz; a directory for --format csv)"};
    o.required = true;
    o.cli = "-o,--out";
    o.doors = kCli | kPython;
    Field steps{"steps", FieldKind::String, "Steps to keep: N or FIRST-LAST (the N of ProfilerStep#N)"};
    Field from{"from", FieldKind::Number, "Window start, ms after the trace's first event"};
    from.min = 0;
    Field to{"to", FieldKind::Number, "Window end, ms after the trace's first event"};
    to.min = 0;
    Field ranks{"ranks", FieldKind::StringList, "Ranks to keep: N or FIRST-LAST, comma-separated (default all)"};
    Field fmt_f{"format", FieldKind::String, "kineto (a slice), csv (one file per table) or sqlite", "kineto"};
    fmt_f.choices = {"kineto", "csv", "sqlite"};
    using E = ExportRequest;
    typed_request<E>(v, export_verb, param(&E::path, paths), param(&E::out, o), param(&E::steps, steps),
                     param(&E::from, from), param(&E::to, to), param(&E::ranks, ranks), param(&E::format, fmt_f));
    v.result_schema = Json{{"type", "object"},
                           {"properties",
                            {{"written_to", {{"description", "the file (or directory) written"}}},
                             {"windows", {{"description", "per trace: rank, window, steps"}}},
                             {"events", {{"description", "events written"}}}}}};
    v.writes = true;
    out.push_back(std::move(v));
  }
}

}  // namespace goblin::app
