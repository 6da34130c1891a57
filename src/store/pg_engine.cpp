// The PostgreSQL engine (docs/store.md § Engines), through libpq. Every value is sent as a bound
// text parameter (PQexecParams), never spliced into the SQL; the store's `?` placeholders are
// renumbered to `$1..$n` here (the store's SQL has no `?` inside literals). Connection errors
// name the URL only in its redacted form.
#include <fmt/format.h>
#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

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

// How long goblin waits for a PostgreSQL server. libpq waits for ever by default: for a connection
// (an address that accepts and never answers the startup) and for every answer. The connection's
// limit is libpq's connect_timeout, which a URL may set itself (?connect_timeout=N); each
// statement is limited on the server (statement_timeout) and, for a server that stops answering
// altogether, by waiting on the socket here with a deadline a little past it.
constexpr int kConnectSeconds = 10;
constexpr int kStatementSeconds = 60;
constexpr int kAnswerSeconds = kStatementSeconds + 10;

class PgEngine final : public Engine {
 public:
  PgEngine(PGconn* c, std::string where) : c_(c), where_(std::move(where)) {}
  ~PgEngine() override { PQfinish(c_); }
  EngineKind kind() const override { return EngineKind::Postgres; }

  Result<std::vector<Row>> query(const std::string& sql, const std::vector<Value>& params) override {
    if (broken_) return make_error(ErrorKind::Io, "store: the PostgreSQL connection stopped answering", where_);
    PGresult* r = nullptr;
    if (params.empty() && sql.find(';') != std::string::npos) {
      r = exec(PQsendQuery(c_, sql.c_str()));  // a script (schema steps): several statements
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
      r = exec(PQsendQueryParams(c_, renumber(sql).c_str(), static_cast<int>(params.size()), nullptr, ptrs.data(),
                                 nullptr, nullptr, 0));
    }
    if (broken_)
      return make_error(ErrorKind::Io, fmt::format("store: PostgreSQL did not answer within {} s", kAnswerSeconds),
                        where_);
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
    if (broken_) return false;
    if (PQstatus(c_) != CONNECTION_OK || PQtransactionStatus(c_) != PQTRANS_IDLE) return false;
    PGresult* r = exec(PQsendQuery(c_, "SELECT 1"));
    const bool ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
    return ok && PQstatus(c_) == CONNECTION_OK;
  }
  std::string session() const override { return fmt::format("{}", PQbackendPID(c_)); }

 private:
  // PQexec's result (the last one, or the first error) of a query just sent, read with a deadline:
  // past it the connection is marked broken (its state is unknown) and nullptr returned.
  PGresult* exec(int sent) {
    if (!sent) return nullptr;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kAnswerSeconds);
    PGresult* kept = nullptr;
    for (;;) {
      while (PQisBusy(c_)) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        pollfd p{PQsocket(c_), POLLIN, 0};
        if (left <= 0 || p.fd < 0 ||
            (::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000))) < 0 && errno != EINTR)) {
          broken_ = true;
          PQclear(kept);
          return nullptr;
        }
        if (p.revents != 0 && !PQconsumeInput(c_)) break;  // the connection failed: PQgetResult says how
      }
      PGresult* r = PQgetResult(c_);
      if (!r) break;
      // The last result, unless an earlier one failed (a script stops at its first error).
      const ExecStatusType was = kept ? PQresultStatus(kept) : PGRES_COMMAND_OK;
      if (was == PGRES_COMMAND_OK || was == PGRES_TUPLES_OK || was == PGRES_EMPTY_QUERY) {
        PQclear(kept);
        kept = r;
      } else {
        PQclear(r);
      }
      if (PQstatus(c_) == CONNECTION_BAD) break;
    }
    return kept;
  }

  PGconn* c_;
  bool broken_ = false;
  std::string where_;
  bool in_tx_ = false;
};

}  // namespace

Result<std::unique_ptr<Engine>> open_postgres(const std::string& conninfo, const std::string& redacted) {
  // connect_timeout first: keywords the URL itself sets (expanded from dbname) come later and win.
  const std::string connect = fmt::format("{}", kConnectSeconds);
  const char* keys[] = {"connect_timeout", "dbname", nullptr};
  const char* values[] = {connect.c_str(), conninfo.c_str(), nullptr};
  PGconn* c = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
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
  RETURN_IF_ERROR(eng->query(fmt::format("SET statement_timeout = {}", kStatementSeconds * 1000), {}));
  return std::unique_ptr<Engine>(std::move(eng));
}

}  // namespace goblin::store
