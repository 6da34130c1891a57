// The run store's verbs the dashboard reads besides ls/show/trend/calibration (docs/store.md,
// docs/dashboard.md): store experiments|compare|artifact|tag. Like every verb they are declared
// once here, so the CLI, Python and goblin serve's JSON API (serve/api.cpp, a thin adapter calling
// app::run_verb with door kHttp) all get the same request fields and the same result.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "app/analysis_context.h"
#include "app/diff_run.h"
#include "app/registry.h"
#include "app/store_access.h"
#include "core/io.h"
#include "store/import.h"

namespace goblin::app {
namespace {

VerbResult fail(Error e) { return VerbResult{nullptr, std::move(e), ""}; }

Json obj_schema(std::initializer_list<std::pair<const char*, const char*>> props) {
  Json p = Json::object();
  for (const auto& [k, d] : props) p[k] = {{"description", d}};
  return Json{{"type", "object"}, {"properties", p}};
}

Verb base_verb(const std::string& word, const std::string& title, const std::string& summary) {
  Verb v;
  v.cli_path = {"store", word};
  // Not an MCP tool: the store is the operator's (GOBLIN_STORE), not an MCP caller's to choose.
  v.title = title;
  v.summary = summary;
  v.records = false;
  return v;
}

Field required_positional(Field f) {
  f.required = f.positional = true;
  return f;
}

VerbResult do_experiments(const Request& rq, const Context& ctx) {
  auto ref = open_store(rq, ctx);
  if (!ref) return fail(ref.error());
  auto e = (**ref).experiments();
  if (!e) return fail(e.error());
  std::string h;
  for (const auto& x : *e)
    h += fmt::format("{:<32} {:>6} trial(s) {:>6} run(s)  {}\n", x.value("experiment_id", ""), x.value("trials", 0),
                     x.value("runs", 0), x.value("created", ""));
  return VerbResult{Json{{"experiments", *e}}, std::nullopt, h};
}

// The trace each run read, when it is still on disk with the hash the store recorded: only then
// can the diff verb re-read it. The path comes from the store, never from the request.
std::string diffable_input(const store::RunRecord& r) {
  for (const auto& in : r.inputs) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(in.path, ec)) continue;
    auto h = store::hash_file(in.path);
    if (h && h->sha256 == in.sha256) return in.path;
  }
  return "";
}

// The store the request names is opened by open_store from the whole request (the door may
// override it: goblin serve's own store); `store` is here so the field is declared with the rest.
struct CompareRunsRequest {
  std::string a, b, store;
};

VerbResult do_compare(const CompareRunsRequest& q, const Request& rq, Context& ctx) {
  auto a = parse_run_id(q.a);
  if (!a) return fail(a.error());
  auto b = parse_run_id(q.b);
  if (!b) return fail(b.error());
  Json ja, jb;
  std::string pa, pb;
  {
    auto ref = open_store(rq, ctx);  // given back before the diff, which may take a while
    if (!ref) return fail(ref.error());
    auto ra = (**ref).get(*a);
    if (!ra) return fail(ra.error());
    auto rb = (**ref).get(*b);
    if (!rb) return fail(rb.error());
    ja = store::run_to_json(*ra, true);
    jb = store::run_to_json(*rb, true);
    pa = diffable_input(*ra);
    pb = diffable_input(*rb);
  }
  Json diffs = trust_differences(ja, jb), unchecked = trust_not_checked(ja, jb);
  Json out = {{"trusted", diffs.empty()}, {"differences", diffs}, {"not_checked", unchecked}, {"a", ja}, {"b", jb}};
  std::string h = diffs.empty() ? fmt::format("runs {} and {}: trusted comparison\n", *a, *b)
                                : fmt::format("runs {} and {}: UNTRUSTED comparison, they differ in:\n", *a, *b);
  for (const auto& d : diffs)
    h += fmt::format("  {}: {} vs {}\n", d["field"].get<std::string>(), d["a"].dump(), d["b"].dump());
  if (!unchecked.empty()) {
    h += "  not checked (unknown on either side):";
    for (const auto& d : unchecked) h += " " + d["field"].get<std::string>();
    h += "\n";
  }
  auto no_diff = [&](const std::string& why) {
    out["diff"] = nullptr;
    out["diff_note"] = why;
    h += fmt::format("no diff: {}\n", why);
    return VerbResult{out, std::nullopt, h};
  };
  if (pa.empty() || pb.empty())
    return no_diff("the diff verb needs both runs' traces on disk as recorded; compared from the stored tables");
  // The diff verb's own computation, called directly: a comparison is never recorded as a run,
  // and the outer call's redaction covers the whole result.
  auto kn = analysis_knowledge_of(ctx);
  if (!kn) return no_diff(kn.error().describe());
  VerbResult d = run_diff(**kn, pa, pb);
  if (d.error) return no_diff(d.error->describe());
  out["diff"] = d.result;
  out["diff_note"] = nullptr;
  h += d.human;
  return VerbResult{out, std::nullopt, h};
}

bool valid_sha256(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](unsigned char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

struct ArtifactRequest {
  std::string sha256, store;
  std::optional<std::string> out;
};

VerbResult do_artifact(const ArtifactRequest& q, const Request& rq, const Context& ctx) {
  const std::string& hash = q.sha256;
  if (!valid_sha256(hash))
    return fail(make_error(ErrorKind::Usage, "artifact: a SHA-256 in lowercase hex (64 characters)"));
  auto ref = open_store(rq, ctx);
  if (!ref) return fail(ref.error());
  auto a = (**ref).artifact(hash);
  if (!a) return fail(a.error());
  if (!*a)
    return fail(make_error(ErrorKind::NotFound,
                           "artifact: recorded by hash only (binary or over 8 MiB); its content is not in the store"));
  Json r = {{"sha256", hash}, {"bytes", (*a)->size()}};
  if (q.out) {
    RETURN_IF_ERROR(write_file(*q.out, **a));
    r["written_to"] = *q.out;
    return VerbResult{r, std::nullopt, fmt::format("wrote {} bytes to {}\n", (*a)->size(), *q.out)};
  }
  r["content"] = **a;
  return VerbResult{r, std::nullopt, **a};
}

// Tags are free text bound as SQL parameters; they are only bounded and kept printable.
bool valid_tag(const std::string& s) {
  return !s.empty() && s.size() <= 256 &&
         std::none_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

struct TagRequest {
  std::string run, store;
  std::vector<std::string> tag;
};

VerbResult do_tag(const TagRequest& q, const Request& rq, const Context& ctx) {
  auto id = parse_run_id(q.run);
  if (!id) return fail(id.error());
  const std::vector<std::string>& tags = q.tag;
  if (tags.size() > 64) return fail(make_error(ErrorKind::Usage, "tags: at most 64"));
  for (const auto& t : tags)
    if (!valid_tag(t))
      return fail(make_error(ErrorKind::Usage, "tags: non-empty, at most 256 characters, no control characters"));
  auto ref = open_store(rq, ctx);
  if (!ref) return fail(ref.error());
  if (auto st = (**ref).set_tags(*id, tags); !st) return fail(st.error());
  std::string h = fmt::format("run {} tags:", *id);
  for (const auto& t : tags) h += fmt::format(" {}", t);
  return VerbResult{Json{{"id", *id}, {"tags", tags}}, std::nullopt, h + "\n"};
}

}  // namespace

void add_store_web_verbs(std::vector<Verb>& out) {
  {
    Verb v = base_verb("experiments", "List experiments", "The store's experiments with their trial and run counts");
    v.request = {store_field()};
    v.result_schema = obj_schema({{"experiments", "{experiment_id, created, trials, runs} each, newest first"}});
    v.run = [](const Request& rq, Context& ctx) { return do_experiments(rq, ctx); };
    out.push_back(std::move(v));
  }
  {
    Verb v = base_verb("compare", "Compare two runs",
                       "Two stored runs side by side: the trust check first (base image, resource class, devices, "
                       "server flags, benchmark config, GPU, driver and framework versions), then the diff verb "
                       "over their traces when both are still on disk as recorded");
    v.examples = "  goblin store compare 12 17 --json\n";
    using C = CompareRunsRequest;
    typed_request<C>(v, do_compare,
                     param(&C::a, required_positional(Field{"a", FieldKind::String, "The first run id (before)"})),
                     param(&C::b, required_positional(Field{"b", FieldKind::String, "The second run id (after)"})),
                     param(&C::store, store_field()));
    v.result_schema = obj_schema({{"trusted", "false when any trust field differs"},
                                  {"differences", "{field, a, b} for each trust field that differs"},
                                  {"not_checked", "{field, a, b} for each trust field unknown on either side"},
                                  {"a", "the first run with its tables"},
                                  {"b", "the second run with its tables"},
                                  {"diff", "the diff verb's result over the two traces, or null"},
                                  {"diff_note", "why there is no diff, or null"}});
    out.push_back(std::move(v));
  }
  {
    Verb v = base_verb("artifact", "Get a stored artifact",
                       "A stored artifact's content by its SHA-256 (the hashes `goblin store show` lists)");
    v.examples = "  goblin store artifact 3f2a...e1 -o trace.json\n";
    Field o{"out", FieldKind::OutputFile, "Write the artifact here instead of printing it"};
    o.cli = "-o,--out";
    o.doors = kCli | kPython;
    using A = ArtifactRequest;
    typed_request<A>(v, do_artifact,
                     param(&A::sha256, required_positional(Field{"sha256", FieldKind::String,
                                                                 "The artifact's SHA-256, lowercase hex"})),
                     param(&A::store, store_field()), param(&A::out, o));
    v.result_schema = obj_schema({{"sha256", "the hash"},
                                  {"bytes", "its size"},
                                  {"content", "the artifact's text (without --out)"},
                                  {"written_to", "the file written (with --out)"}});
    out.push_back(std::move(v));
  }
  {
    Verb v = base_verb("tag", "Tag a run", "Set a run's tags (replacing the ones it had)");
    v.writes_store = true;
    v.examples = "  goblin store tag 12 golden nightly\n";
    Field tags{"tag", FieldKind::StringList, "The run's tags (none: remove them all)"};
    tags.positional = true;
    typed_request<TagRequest>(v, do_tag,
                              param(&TagRequest::run, required_positional(Field{"run", FieldKind::String, "Run id"})),
                              param(&TagRequest::tag, tags), param(&TagRequest::store, store_field()));
    v.result_schema = obj_schema({{"id", "the run id"}, {"tags", "its tags now"}});
    v.writes = true;
    out.push_back(std::move(v));
  }
}

}  // namespace goblin::app
