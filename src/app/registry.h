// Where the verbs are declared: each group of verbs adds its descriptors (app/verb.h) here, and
// verbs() lists them all once.
#pragma once
#include <vector>

#include "app/verb.h"
#include "store/import.h"
#include "store/record.h"

namespace goblin::app {

void add_trace_verbs(std::vector<Verb>& out);       // info, triage, breakdown, metrics, diff, ranks
void add_trace_tool_verbs(std::vector<Verb>& out);  // overlap, perfetto-fix
void add_run_verbs(std::vector<Verb>& out);         // profile, bench, trace (live runs)
void add_audit_run_verbs(std::vector<Verb>& out);   // audit (the whole flow)
void add_query_verbs(std::vector<Verb>& out);       // query, export
void add_audit_verbs(std::vector<Verb>& out);       // parse-config, kb, patch, compare
void add_hw_verbs(std::vector<Verb>& out);          // specs, roofline, diagnose
void add_kernel_verbs(std::vector<Verb>& out);      // kernel init|bench|profile|plan|record|status|mask|unmask|suite
void add_scale_verbs(std::vector<Verb>& out);       // summarize, slurm-script (docs/scale.md)
void add_meta_verbs(std::vector<Verb>& out);        // verbs (the registry itself)
void add_memory_verbs(std::vector<Verb>& out);      // memory
void add_server_verbs(std::vector<Verb>& out);      // profile-server
void add_store_verbs(std::vector<Verb>& out);       // store init|add|ls|show|rm|migrate|export|trend|calibration, gate
// store experiments|compare|artifact|tag: the dashboard's reads (verbs_store_web.cpp)
void add_store_web_verbs(std::vector<Verb>& out);

// The fields every recording verb gets (Verb::records) and the recording itself (store_record.cpp).
std::vector<Field> record_fields();
void record_result(const Verb& v, const Request& rq, VerbResult& r);
// The linkage fields of a recording verb's request (--experiment, --trial, --workload, --tag),
// read once: the store records them, triage writes experiment and trial into
// profile_metadata.json.
store::Linkage request_linkage(const Request& rq);
// Adds `rec` to the store at `url` and notes the run in r (`stored_run`, a line of text); a failure
// becomes r's error, credentials redacted. The recording step of record_result.
void store_run(const std::string& url, Result<store::RunRecord> rec, VerbResult& r);

}  // namespace goblin::app
