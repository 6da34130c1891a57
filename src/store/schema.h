// The store's schema as migration steps (docs/store.md § Schema, § Migrations). Step i takes a
// store from version i to i + 1; a shipped step is never edited, a change is a new step. Each step
// is written once in portable SQL with three type words that each engine spells its own way:
// {id} (an auto-increment primary key), {real} and {blob}.
#pragma once
#include <string>
#include <vector>

#include "store/engine.h"

namespace goblin::store {

const std::vector<std::string>& migrations();
// The names of the tables the migrations create (and kMetaTable), read from their CREATE TABLE
// statements: what a store may hold and a reader expects to be tables.
const std::vector<std::string>& table_names();
// One migration step in the engine's spelling.
std::string dialect(const std::string& sql, EngineKind k);

// The table that marks a database as a goblin run store and holds its schema version.
inline constexpr const char* kMetaTable = "goblin_store";
inline constexpr const char* kApplication = "goblin run store";

}  // namespace goblin::store
