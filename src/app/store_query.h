// `goblin query --store URL "SQL"` (docs/query.md § The run store): the run store's tables as a
// query::Database under the same authorizer and limits as the trace tables. A SQLite store is its
// file opened read-only (query_only, no copy); a PostgreSQL store is copied, table by table inside
// one READ ONLY transaction, into an in-memory SQLite database — one SQL dialect, one authorizer
// and one set of limits for every store, and nothing a statement does can reach the server.
#pragma once
#include <memory>
#include <string>

#include "core/status.h"
#include "query/database.h"

namespace goblin::app {

Result<std::unique_ptr<query::Database>> open_store_database(const std::string& url);

}  // namespace goblin::app
