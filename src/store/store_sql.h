// Shared by store.cpp and queries.cpp: the runs table's column list (built from fixed names only,
// never from user values) and the reading of one runs row.
#pragma once
#include <string>

#include "store/engine.h"
#include "store/record.h"

namespace goblin::store {

// The columns INSERT names (every column but id), in the order of Store::add's values.
std::string run_insert_columns();
// The columns SELECT reads: id, then run_insert_columns().
std::string run_select_columns(const std::string& prefix = "");
// One row read with run_select_columns() into a record (tables left empty).
RunRecord run_from_row(const Row& row);

std::optional<double> cell_double(const Cell& c);
int64_t cell_int(const Cell& c);

}  // namespace goblin::store
