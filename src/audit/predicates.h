// The rule schema's config predicates (docs/audit.md § Rule schema) for data files beside the
// rules: data/audit_symptoms.yaml words its conditions in them and they are read and evaluated by
// the code that reads and evaluates the rules', so the two can never mean different things.
#pragma once
#include <string>
#include <vector>

#include "audit/rules.h"
#include "config/workload_config.h"
#include "core/status.h"

namespace YAML {
class Node;
}

namespace goblin::audit {

// A YAML list of predicates (each a mapping: field, op, value, if_unset, ...); each problem is a
// Malformed error naming `file` and the line, added to `problems` (`what` names the entry).
std::vector<Predicate> parse_predicates(const YAML::Node& list, const std::string& file, const std::string& what,
                                        std::vector<Error>& problems);

// Whether a config predicate holds on `c` (unset fields give the predicate's if_unset).
bool config_predicate_holds(const Predicate& p, const config::WorkloadConfig& c);

}  // namespace goblin::audit
