// The analysis part of a call's knowledge context (app/verb.h Context::knowledge), for the trace
// verbs: they read only the taxonomy, advice, collectives and specs, so a broken rule or
// speedup-model file does not stop them.
#pragma once
#include <memory>

#include "analysis/knowledge.h"
#include "app/verb.h"
#include "core/status.h"
#include "kernel/knowledge.h"

namespace goblin::app {

// ctx.knowledge's analysis part when the door set one, else the process's (analysis_knowledge()).
Result<std::shared_ptr<const analysis::AnalysisKnowledge>> analysis_knowledge_of(Context& ctx);
// The hardware part (hw/knowledge.h) for the verbs that read only it (specs, diagnose): ctx's when
// the door set one, else the process's (hw::hw_knowledge()). Never fails: a broken GPU database
// or NCU rule file is reported by the part that needs it.
std::shared_ptr<const hw::HwKnowledge> hw_knowledge_of(Context& ctx);
// The kernel workspace's context (kernel/knowledge.h) for the kernel verbs: the process's
// data/kernel/ files (kernel::knowledge()) beside hw_knowledge_of(ctx). Its error names the file.
Result<std::shared_ptr<const kernel::Knowledge>> kernel_knowledge_of(Context& ctx);

}  // namespace goblin::app
