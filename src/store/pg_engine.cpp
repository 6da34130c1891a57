// The PostgreSQL engine (docs/store.md § Engines), through libpq. Every value is sent as a bound
// text parameter (PQexecParams), never spliced into the SQL; the store's `?` placeholders are
// renumbered to `$1..$n` here (the store's SQL has no `?` inside literals). Connection errors
// name the URL only in its redacted form.
#include <fmt/format.h>
#include <libpq-fe.h>

#include "store/engine.h"

namespace goblin::store {
namespace {

std::string renumber(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  for (char c : sql) {
    if (c == '?')
      fmt::format_to(std::back_inserter(out), "${}", ++n);
    else
      out += c;
  }
  return out;
}

class PgEngine final : public Engine {
 public:
  PgEngine(PGconn* c, std::string where) : c_(c), where_(std::move(where)) {}
  ~PgEngine() override { PQfinish(c_); }
  EngineKind kind() const override { return EngineKind::Postgres; }

  Result<std::vector<Row>> query(const std::string& sql, const std::vector<Value>& params) override {
    PGresult* r = nullptr;
    if (params.empty() && sql.find(';') != std::string::npos) {
      r = PQexec(c_, sql.c_str());  // a script (schema steps): several statements
    } else {
      std::vector<std::string> text(params.size());
      std::vector<const char*> ptrs(params.size(), nullptr);
      for (size_t i = 0; i < params.size(); ++i) {
        const Value& v = params[i];
        if (std::holds_alternative<int64_t>(v))
          text[i] = fmt::format("{}", std::get<int64_t>(v));
        else if (std::holds_alternative<double>(v))
          text[i] = fmt::format("{}", std::get<double>(v));
        else if (std::holds_alternative<std::string>(v))
          text[i] = std::get<std::string>(v);
        else
          continue;  // NULL
        ptrs[i] = text[i].c_str();
      }
      r = PQexecParams(c_, renumber(sql).c_str(), static_cast<int>(params.size()), nullptr, ptrs.data(), nullptr,
                       nullptr, 0);
    }
    const ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      std::string m = r ? PQresultErrorMessage(r) : PQerrorMessage(c_);
      PQclear(r);
      while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
      return make_error(ErrorKind::Io, "store: " + m, where_);
    }
    std::vector<Row> rows;
    const int nr = PQntuples(r), nc = PQnfields(r);
    rows.reserve(static_cast<size_t>(nr));
    for (int i = 0; i < nr; ++i) {
      Row row(static_cast<size_t>(nc));
      for (int c = 0; c < nc; ++c)
        if (!PQgetisnull(r, i, c))
          row[static_cast<size_t>(c)] = std::string(PQgetvalue(r, i, c), static_cast<size_t>(PQgetlength(r, i, c)));
      rows.push_back(std::move(row));
    }
    PQclear(r);
    return rows;
  }

  Status begin() override {
    // SERIALIZABLE is not needed: every write is an insert keyed by a unique content hash, and
    // ON CONFLICT makes a concurrent duplicate a no-op.
    RETURN_IF_ERROR(query("BEGIN", {}));
    in_tx_ = true;
    return {};
  }
  Status commit() override {
    auto r = query("COMMIT", {});
    in_tx_ = false;
    if (!r) return r.error();
    return {};
  }
  void rollback() override {
    if (in_tx_) (void)query("ROLLBACK", {});
    in_tx_ = false;
  }
  Result<bool> empty() override {
    ASSIGN_OR_RETURN(auto rows,
                     query("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()", {}));
    return rows.at(0).at(0).value_or("0") == "0";
  }
  Result<bool> has_table(const std::string& table) override {
    ASSIGN_OR_RETURN(auto rows, query("SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND "
                                      "tablename = ?",
                                      {table}));
    return !rows.empty();
  }
  bool alive() override {
    if (PQstatus(c_) != CONNECTION_OK || PQtransactionStatus(c_) != PQTRANS_IDLE) return false;
    PGresult* r = PQexec(c_, "SELECT 1");
    const bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
    return ok && PQstatus(c_) == CONNECTION_OK;
  }
  std::string session() const override { return fmt::format("{}", PQbackendPID(c_)); }

 private:
  PGconn* c_;
  std::string where_;
  bool in_tx_ = false;
};

}  // namespace

Result<std::unique_ptr<Engine>> open_postgres(const std::string& conninfo, const std::string& redacted) {
  PGconn* c = PQconnectdb(conninfo.c_str());
  if (!c) return make_error(ErrorKind::Io, "store: out of memory connecting to PostgreSQL", redacted);
  if (PQstatus(c) != CONNECTION_OK) {
    std::string m = PQerrorMessage(c);
    PQfinish(c);
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    return make_error(ErrorKind::Io, "store: cannot connect to PostgreSQL: " + m, redacted);
  }
  auto eng = std::make_unique<PgEngine>(c, redacted);
  // Quiet NOTICEs ("relation already exists, skipping") and keep one time zone for created stamps.
  RETURN_IF_ERROR(eng->query("SET client_min_messages = warning", {}));
  return std::unique_ptr<Engine>(std::move(eng));
}

}  // namespace goblin::store
