// goblin profile-server: profile a running SGLang or vLLM server through its own HTTP profiling
// endpoints, wait for the trace it writes, and triage it at once (seed 002's live path).
//
// The endpoints as the projects document them:
// - SGLang (python/sglang/srt/entrypoints/http_server.py, ProfileReqInput in
//   srt/managers/io_struct.py; docs "Profile a server with HTTP API endpoints"): POST
//   /start_profile with a JSON body {output_dir, start_step, num_steps, activities ["CPU","GPU",
//   "MEM","RPD"], profile_by_stage, with_stack, record_shapes, merge_profiles, profile_prefix};
//   with num_steps it stops by itself after that many forward steps, else POST /stop_profile.
//   Traces: <output_dir>/<profile_id>-TP-<tp>[-<stage>].trace.json.gz, the stage EXTEND (prefill)
//   or DECODE with profile_by_stage.
// - vLLM (vllm/entrypoints/openai/api_server.py): POST /start_profile and /stop_profile, no body;
//   the routes exist only when the server was started with profiling on
//   (VLLM_TORCH_PROFILER_DIR, or --profiler-config in newer releases), and the traces go to that
//   directory (<name>.pt.trace.json.gz), so -o must name it.
// No SGLang or vLLM server was reachable where goblin is developed: the verb is tested against a
// small server of our own that implements these endpoints (src/app/profile_server_test.py).
#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "app/registry.h"
#include "app/trace_verbs.h"
#include "core/dir_walk.h"
#include "core/text.h"

namespace goblin::app {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Json obj_schema(std::initializer_list<std::pair<const char*, const char*>> props) {
  Json p = Json::object();
  for (const auto& [k, d] : props) p[k] = Json{{"description", d}};
  return Json{{"type", "object"}, {"properties", p}};
}

// "http://host:port[/prefix]" → the scheme://host:port part and the path prefix.
Result<std::pair<std::string, std::string>> split_url(const std::string& url) {
  const bool http = url.starts_with("http://"), https = url.starts_with("https://");
  if (!http && !https) return make_error(ErrorKind::Usage, "the server URL must start with http:// or https://", url);
  const size_t host_at = http ? 7 : 8, slash = url.find('/', host_at);
  const std::string base = url.substr(0, slash);
  std::string prefix = slash == std::string::npos ? std::string() : url.substr(slash);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (base.size() <= host_at) return make_error(ErrorKind::Usage, "the server URL names no host", url);
  return std::pair{base, prefix};
}

// Trace files in `dir` (two levels down) with their sizes: what the server writes.
std::map<std::string, uintmax_t> trace_files(const fs::path& dir) {
  std::map<std::string, uintmax_t> out;
  for (const fs::path& p : regular_files_under(dir)) {
    const std::string n = p.filename().string();
    std::error_code ec;
    if (n.ends_with(".json.gz") || n.ends_with(".json")) out[p.string()] = fs::file_size(p, ec);
  }
  return out;
}

bool stage_file(const std::string& path, const std::string& stage) {
  const std::string n = ascii_lower(fs::path(path).filename().string());
  if (stage == "prefill") return n.find("extend") != std::string::npos || n.find("prefill") != std::string::npos;
  return n.find("decode") != std::string::npos;
}

// The most of a server's answer kept (its text is shown, 300 characters of it): an endless body
// is cut off here instead of growing until the process aborts.
constexpr size_t kMaxReply = 1u << 20;

struct Server {
  httplib::Client client;
  std::string url, prefix;
  std::chrono::milliseconds limit;

  // `timeout_s` bounds each exchange as a whole: connecting, the answer's head and its body.
  // cpp-httplib's own timeouts restart with every byte (a server sending a byte every few seconds
  // is never timed out), so a watchdog stops the exchange at the deadline.
  Server(const std::string& base, std::string u, std::string p, double timeout_s)
      : client(base),
        url(std::move(u)),
        prefix(std::move(p)),
        limit(std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000))) {
    const auto secs = std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::seconds>(limit).count());
    client.set_connection_timeout(std::min<int64_t>(5, secs), 0);
    client.set_read_timeout(secs, 0);
    client.set_write_timeout(std::min<int64_t>(10, secs), 0);
  }

  // POST prefix + path; the server's reply text, or an error a user can act on.
  Result<std::string> post(const std::string& path, const std::string& body) {
    httplib::Request req;
    req.method = "POST";
    req.path = prefix + path;
    req.body = body;
    req.set_header("Content-Type", "application/json");
    std::string got;
    bool too_big = false;
    req.content_receiver = [&](const char* d, size_t n, uint64_t, uint64_t) {
      if (got.size() + n > kMaxReply) {
        too_big = true;
        return false;
      }
      got.append(d, n);
      return true;
    };
    std::mutex mu;
    std::condition_variable cv;
    bool done = false, expired = false;
    std::thread watchdog([&] {
      std::unique_lock<std::mutex> lk(mu);
      if (!cv.wait_for(lk, limit, [&] { return done; })) {
        expired = true;
        client.stop();
      }
    });
    auto res = client.send(req);
    {
      std::lock_guard<std::mutex> lk(mu);
      done = true;
    }
    cv.notify_all();
    watchdog.join();
    if (expired)
      return make_error(ErrorKind::Io,
                        fmt::format("the server at {} did not answer {} within {:g} s (--timeout)", url, path,
                                    std::chrono::duration<double>(limit).count()),
                        url);
    if (too_big)
      return make_error(ErrorKind::Malformed,
                        fmt::format("the server's answer to {} is larger than {} bytes", path, kMaxReply), url);
    if (!res)
      return make_error(ErrorKind::Io,
                        fmt::format("cannot reach the server at {} ({} {}): is it running, and is the URL its HTTP "
                                    "address?",
                                    url, path, httplib::to_string(res.error())),
                        url);
    const std::string reply = got.substr(0, 300);
    if (res->status == 404 || res->status == 405)
      return make_error(ErrorKind::Environment,
                        fmt::format("the server has no {} endpoint (HTTP {}): profiling is not enabled. vLLM offers it "
                                    "only when started with VLLM_TORCH_PROFILER_DIR=DIR (or --profiler-config); SGLang "
                                    "always does",
                                    path, res->status),
                        url);
    if (res->status < 200 || res->status >= 300)
      return make_error(ErrorKind::Environment,
                        fmt::format("the server refused {} (HTTP {}): {}", path, res->status, reply), url);
    return reply;
  }
};

bool cancelled(const Context& ctx) { return ctx.cancelled && ctx.cancelled->load(); }

// Waits until `seconds` have passed (false when cancelled first).
bool wait_for(const Context& ctx, double seconds) {
  const auto until = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  while (Clock::now() < until) {
    if (cancelled(ctx)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

// New trace files (absent before, or changed) whose size held still over one poll: written whole.
std::vector<std::string> settled_new_traces(const fs::path& dir, const std::map<std::string, uintmax_t>& before,
                                            std::map<std::string, uintmax_t>& last) {
  std::vector<std::string> out;
  auto now = trace_files(dir);
  for (const auto& [p, size] : now) {
    auto b = before.find(p);
    if (b != before.end() && b->second == size) continue;
    auto l = last.find(p);
    if (size > 0 && l != last.end() && l->second == size) out.push_back(p);
  }
  last = std::move(now);
  return out;
}

struct ProfileServerRequest {
  std::string url;
  std::optional<double> duration;
  std::optional<int64_t> steps;
  std::string stage, out, target_arch;
  double timeout = 120.0;
};

VerbResult profile_server_verb(const ProfileServerRequest& rq, const Request& whole, Context& ctx) {
  VerbResult vr;
  auto fail = [&](Error e) {
    vr.error = std::move(e);
    return vr;
  };
  const std::string& url = rq.url;
  auto parts = split_url(url);
  if (!parts) return fail(parts.error());
  if (rq.duration && rq.steps) return fail(make_error(ErrorKind::Usage, "give --duration or --steps, not both"));
  const double wait_s = rq.timeout;
  const std::string& stage = rq.stage;
  const double duration = rq.duration.value_or(10.0);
  std::error_code ec;
  const fs::path out = fs::absolute(rq.out, ec).lexically_normal();
  fs::create_directories(out, ec);
  if (ec) return fail(make_error(ErrorKind::Io, "cannot create the output directory: " + ec.message(), out.string()));

  Json body = {{"output_dir", out.string()}, {"activities", {"CPU", "GPU"}}, {"record_shapes", true}};
  if (rq.steps) body["num_steps"] = *rq.steps;
  if (!stage.empty()) body["profile_by_stage"] = true;
  const auto before = trace_files(out);
  Server server(parts->first, url, parts->second, wait_s);
  const auto t0 = Clock::now();
  auto started = server.post("/start_profile", body.dump());
  if (!started) return fail(started.error());

  Json res;
  res["url"] = url;
  res["request"] = body;
  res["start_reply"] = *started;
  bool stopped = false;
  if (!rq.steps) {
    // A profile of a time window: the server records until told to stop.
    if (!wait_for(ctx, duration))
      return fail(make_error(ErrorKind::Usage,
                             "cancelled while profiling (the server is still recording: POST /stop_profile to end it)",
                             url));
    auto s = server.post("/stop_profile", "{}");
    if (!s) return fail(s.error());
    res["stop_reply"] = *s;
    stopped = true;
  }

  // The trace appears once the server has exported it (SGLang's stop_profile exports before it
  // answers; with --steps it exports after the last step). Poll until a new file holds still.
  // With --stage, SGLang writes the EXTEND and the DECODE trace one after the other: wait for the
  // stage's own file, and take another only when the time is up.
  std::vector<std::string> traces;
  std::map<std::string, uintmax_t> last;
  auto has_stage = [&] {
    return std::any_of(traces.begin(), traces.end(), [&](const std::string& t) { return stage_file(t, stage); });
  };
  const auto wait = std::chrono::milliseconds(static_cast<int64_t>(wait_s * 1000));
  auto deadline = Clock::now() + wait;
  for (;;) {
    if (cancelled(ctx)) return fail(make_error(ErrorKind::Usage, "cancelled while waiting for the trace", url));
    for (auto& t : settled_new_traces(out, before, last))
      if (std::find(traces.begin(), traces.end(), t) == traces.end()) traces.push_back(t);
    if (!traces.empty() && (stage.empty() || has_stage())) break;
    if (Clock::now() >= deadline) {
      if (!stopped) {
        // --steps on a server that does not stop by itself (vLLM has no num_steps): stop it now.
        auto s = server.post("/stop_profile", "{}");
        stopped = true;
        if (s) {
          res["stop_reply"] = *s;
          deadline = Clock::now() + wait;
          continue;
        }
      }
      if (!traces.empty()) break;  // no file of the stage: the trace there is
      return fail(make_error(ErrorKind::Io,
                             fmt::format("no trace appeared in {} within {:.0f} s after profiling ended. The server "
                                         "writes traces where it runs: -o must be a directory its process writes to "
                                         "(the same machine or a shared mount; vLLM writes to its "
                                         "VLLM_TORCH_PROFILER_DIR)",
                                         out.string(), wait_s),
                             out.string()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  std::sort(traces.begin(), traces.end());
  res["traces"] = traces;
  std::string trace = traces.front();
  if (!stage.empty()) {
    for (const auto& t : traces)
      if (stage_file(t, stage)) {
        trace = t;
        break;
      }
  }
  res["trace"] = trace;
  res["waited_s"] = std::chrono::duration<double>(Clock::now() - t0).count();

  // Triage at once, with the triage verb's own function (same artifacts, same result). The
  // architecture the results are for, and the run's linkage, mean what they mean to triage.
  TriageRequest treq;
  treq.path = {trace};
  treq.out = (out / "triage").string();
  treq.stage = stage;
  treq.target_arch = rq.target_arch;
  VerbResult tr = triage(treq, request_linkage(whole), ctx);
  res["triage"] = tr.result;
  vr.result = std::move(res);
  vr.error = tr.error;
  vr.human =
      fmt::format("profiled {} ({}); trace {}\n\n{}", url,
                  rq.steps ? fmt::format("{} steps", *rq.steps) : fmt::format("{:g} s", duration), trace, tr.human);
  return vr;
}

}  // namespace

void add_server_verbs(std::vector<Verb>& out) {
  Verb v;
  v.cli_path = {"profile-server"};
  // Not an MCP tool nor an HTTP route: it makes HTTP requests to any URL it is given, which an
  // untrusted caller must not be able to direct.
  v.doors = kCli | kPython;
  v.title = "Profile a running SGLang/vLLM server";
  v.summary =
      "Profile a running SGLang or vLLM server through its /start_profile and /stop_profile endpoints, "
      "then triage the trace at once";
  v.description =
      "The result holds the request sent, the server's replies, the trace files that appeared in out and the "
      "triage result of the trace analysed (artifacts in out/triage).";
  v.examples =
      "  goblin profile-server http://localhost:30000 --steps 5 -o /shared/prof      SGLang: 5 forward steps\n"
      "  goblin profile-server http://localhost:8000 --duration 10 -o $VLLM_TORCH_PROFILER_DIR   vLLM\n"
      "  goblin profile-server http://localhost:30000 --steps 3 --stage decode -o prof   decode steps only\n"
      "  goblin profile-server http://localhost:30000 --steps 5 -o prof --target-arch gfx942   arch_match vs MI300X\n";
  v.writes = true;
  Field url{"url", FieldKind::String, "The server's HTTP address (http://host:port)"};
  url.required = true;
  url.positional = true;
  Field dur{"duration", FieldKind::Number, "Seconds to profile before /stop_profile (default 10)"};
  dur.min = 0.1;
  dur.max = 3600;
  Field steps{"steps", FieldKind::Integer, "Forward steps to profile (SGLang's num_steps: it stops by itself)"};
  steps.min = 1;
  steps.max = 100000;
  Field stage{"stage", FieldKind::String, "Profile prefill or decode steps apart (SGLang's profile_by_stage)"};
  stage.choices = {"prefill", "decode"};
  Field o{"out", FieldKind::OutputDir,
          "Directory the server writes the trace into (it must be able to) and goblin "
          "writes triage/ into"};
  o.required = true;
  o.cli = "-o,--out";
  Field to{"timeout", FieldKind::Number,
           "Seconds each exchange with the server may take in all, and to wait for the trace after profiling ends",
           120.0};
  to.min = 1;
  to.max = 3600;
  Field arch{"target_arch", FieldKind::String,
             "Architecture the results are for (sm_90, gfx942, gfx950): sets arch_match"};
  using R = ProfileServerRequest;
  typed_request<R>(v, profile_server_verb, param(&R::url, url), param(&R::duration, dur), param(&R::steps, steps),
                   param(&R::stage, stage), param(&R::out, o), param(&R::timeout, to), param(&R::target_arch, arch));
  v.result_schema = obj_schema({{"trace", "the trace analysed"}, {"triage", "the triage result of it"}});
  out.push_back(std::move(v));
}

}  // namespace goblin::app
