// --store on the CLI verbs that are not registry verbs yet (profile, bench, trace; docs/store.md
// § Recording): the same --store, --experiment, --trial, --tag as the registry's record_fields
// (app/store_record.cpp), and the same recording: the result (or the run folder it wrote) becomes
// a run of the store named by --store or $GOBLIN_STORE; a store that cannot take it is the call's
// error, the result still printed.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/verb_result.h"

namespace goblin::cli {

struct RecordOptions {
  std::string store, experiment, trial, workload;
  std::vector<std::string> tags;
};

// Adds --store, --experiment, --trial, --tag, and --workload unless the command already has it
// (profile and bench keep --workload as the old spelling of --harness: their runs are named by
// the workload the run folder or the result names, else the config's file name).
void add_record_options(CLI::App* cmd, RecordOptions& o, bool with_workload);

// After a successful call: records `folder` (a run folder, store::record_from_path) when given,
// else the result JSON of `verb` with the files it read (`inputs`, hashed now). Adds stored_run
// {id, added, store} to the result and a line to the text, like the registry's verbs.
void record_cli_result(const RecordOptions& o, const std::string& verb, const std::vector<std::string>& inputs,
                       const std::string& folder, VerbResult& r);

}  // namespace goblin::cli
