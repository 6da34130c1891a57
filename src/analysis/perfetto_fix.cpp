#include "analysis/perfetto_fix.h"

#include <fmt/format.h>
#include <simdjson.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <vector>

#include "core/atomic_file.h"
#include "core/decimal.h"
#include "core/io.h"

namespace goblin::analysis {

namespace {

std::string_view trim_token(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t' ||
                        t.back() == ',' || t.back() == '}' || t.back() == ']'))
    t.remove_suffix(1);
  return t;
}

struct TokenRef {
  size_t off = 0, len = 0;  // in the input text
  bool present = false;
};

struct GpuEv {
  uint32_t track;
  int64_t start, end;
  TokenRef tid;
  int lane = 0;
};

struct FlowEv {
  uint32_t track;
  int64_t ts;
  TokenRef tid;
};

bool is_gpu_cat(std::string_view c) {
  return c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset" || c == "Kernel" || c == "Memcpy" || c == "Memset";
}

std::string unquote(std::string_view tok) {
  if (tok.size() >= 2 && tok.front() == '"' && tok.back() == '"') return std::string(tok.substr(1, tok.size() - 2));
  return std::string(tok);
}

std::string json_escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o.push_back('\\');
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o.push_back(c);
  }
  return o;
}

}  // namespace

namespace {
struct Edit {
  size_t off, len;
  std::string repl;
};

// The GPU events and ac2g flows of a trace, each on its (pid, tid) track.
struct Scan {
  std::vector<std::pair<std::string, std::string>> tracks;  // (pid token, tid token)
  std::vector<GpuEv> gpu;
  std::vector<FlowEv> flows;
  size_t first_event_off = std::string::npos;
};

// Parses `text` (must have SIMDJSON_PADDING spare capacity) into `sc`.
Status scan_events(const std::string& text, size_t n, Scan& sc, PerfettoFixStats& st) {
  simdjson::padded_string_view psv(text.data(), n, text.capacity());
  const char* base = text.data();

  std::map<std::pair<std::string, std::string>, uint32_t> track_ids;  // (pid token, tid token) → id
  auto& tracks = sc.tracks;
  auto track_of = [&](std::string_view pid, std::string_view tid) {
    auto key = std::make_pair(std::string(pid), std::string(tid));
    auto [it, ins] = track_ids.emplace(key, static_cast<uint32_t>(tracks.size()));
    if (ins) tracks.push_back(key);
    return it->second;
  };
  auto& gpu = sc.gpu;
  auto& flows = sc.flows;
  size_t& first_event_off = sc.first_event_off;

  try {
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc = parser.iterate(psv);
    auto handle_array = [&](simdjson::ondemand::array arr) {
      for (auto elem : arr) {
        simdjson::ondemand::value v = elem.value();
        ++st.events;
        if (v.type() != simdjson::ondemand::json_type::object) continue;
        std::string_view tok = v.raw_json_token();
        if (first_event_off == std::string::npos) first_event_off = static_cast<size_t>(tok.data() - base);
        std::string_view ph, cat, pid_tok = "null";
        std::optional<int64_t> ts, dur;
        TokenRef tid;
        for (auto field : v.get_object()) {
          std::string_view key = field.unescaped_key();
          simdjson::ondemand::value fv = field.value();
          if (key == "ph") {
            ph = fv.get_string();
          } else if (key == "cat") {
            if (fv.type() == simdjson::ondemand::json_type::string) cat = fv.get_string();
          } else if (key == "pid") {
            pid_tok = trim_token(fv.raw_json_token());
          } else if (key == "tid") {
            std::string_view t = trim_token(fv.raw_json_token());
            tid = {static_cast<size_t>(t.data() - base), t.size(), true};
          } else if (key == "ts") {
            ts = parse_us_to_ns(trim_token(fv.raw_json_token()));
          } else if (key == "dur") {
            dur = parse_us_to_ns(trim_token(fv.raw_json_token()));
          }
        }
        std::string_view tid_tok = tid.present ? std::string_view(base + tid.off, tid.len) : std::string_view("null");
        if (ph == "X" && is_gpu_cat(cat) && ts) {
          ++st.gpu_events;
          int64_t d = dur && *dur > 0 ? *dur : 0;
          gpu.push_back({track_of(pid_tok, tid_tok), *ts, *ts + d, tid, 0});
        } else if ((ph == "f" || ph == "t" || ph == "s") && cat == "ac2g" && ts && tid.present) {
          flows.push_back({track_of(pid_tok, tid_tok), *ts, tid});
        }
      }
    };
    simdjson::ondemand::json_type t = doc.type();
    if (t == simdjson::ondemand::json_type::array) {
      handle_array(doc.get_array());
    } else if (t == simdjson::ondemand::json_type::object) {
      for (auto field : doc.get_object()) {
        std::string_view key = field.unescaped_key();
        if (key == "traceEvents") handle_array(field.value().get_array());
      }
    } else {
      return make_error(ErrorKind::Malformed, "trace JSON is neither an object with traceEvents nor an array");
    }
  } catch (const simdjson::simdjson_error& e) {
    return make_error(ErrorKind::Malformed, std::string("invalid trace JSON: ") + e.what());
  }

  return Status::Ok();
}

// First-fit lanes per track: each GPU event gets the lowest lane free at its start (lane 0 is the
// track itself); `per_track` receives each track's events sorted by start, the result each
// track's lane count.
std::vector<int> assign_lanes(Scan& sc, std::vector<std::vector<uint32_t>>& per_track, PerfettoFixStats& st) {
  auto& gpu = sc.gpu;
  const auto& tracks = sc.tracks;
  per_track.assign(tracks.size(), {});
  for (uint32_t i = 0; i < gpu.size(); ++i) per_track[gpu[i].track].push_back(i);
  std::vector<int> lanes_of_track(tracks.size(), 1);
  for (size_t tr = 0; tr < per_track.size(); ++tr) {
    auto& v = per_track[tr];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) {
      if (gpu[a].start != gpu[b].start) return gpu[a].start < gpu[b].start;
      if (gpu[a].end != gpu[b].end) return gpu[a].end > gpu[b].end;
      return a < b;
    });
    std::vector<int64_t> lane_end;
    for (uint32_t i : v) {
      GpuEv& e = gpu[i];
      int lane = -1;
      for (size_t l = 0; l < lane_end.size(); ++l)
        if (lane_end[l] <= e.start) {
          lane = static_cast<int>(l);
          break;
        }
      if (lane > 0 && !e.tid.present) lane = -1;
      if (lane < 0) {
        if (!e.tid.present && !lane_end.empty()) {
          ++st.unmovable;  // cannot rewrite a missing tid: leave it on its track
          lane_end[0] = std::max(lane_end[0], e.end);
          continue;
        }
        lane = static_cast<int>(lane_end.size());
        lane_end.push_back(e.end);
      } else {
        lane_end[lane] = e.end;
      }
      e.lane = lane;
    }
    lanes_of_track[tr] = static_cast<int>(lane_end.size());
    if (lane_end.size() > 1) {
      ++st.tracks_split;
      st.extra_tracks += static_cast<int64_t>(lane_end.size()) - 1;
    }
  }

  return lanes_of_track;
}

// Parses `text` (must have SIMDJSON_PADDING spare capacity), fills the edits (sorted by offset).
Status plan_fix(const std::string& text, size_t n, std::vector<Edit>& edits, PerfettoFixStats& st) {
  Scan sc;
  RETURN_IF_ERROR(scan_events(text, n, sc, st));
  std::vector<std::vector<uint32_t>> per_track;
  const std::vector<int> lanes_of_track = assign_lanes(sc, per_track, st);
  const auto& tracks = sc.tracks;
  const auto& gpu = sc.gpu;
  const auto& flows = sc.flows;
  const size_t first_event_off = sc.first_event_off;
  // Edits: (offset, length, replacement).
  auto lane_tid = [&](uint32_t track, int lane) {
    return fmt::format("\"{}_hack{}\"", json_escape(unquote(tracks[track].second)), lane);
  };
  for (const GpuEv& e : gpu)
    if (e.lane > 0) {
      edits.push_back({e.tid.off, e.tid.len, lane_tid(e.track, e.lane)});
      ++st.moved;
    }
  // Flows: bind to the kernel on the flow's track that starts at the flow's ts (else the one
  // that contains it); move along when that kernel moved.
  for (const FlowEv& f : flows) {
    if (f.track >= per_track.size() || lanes_of_track[f.track] <= 1) continue;
    const auto& v = per_track[f.track];
    auto it = std::upper_bound(v.begin(), v.end(), f.ts, [&](int64_t t, uint32_t i) { return t < gpu[i].start; });
    const GpuEv* hit = nullptr;
    int steps = 0;
    for (auto j = it; j != v.begin() && steps < 64; ++steps) {
      --j;
      const GpuEv& g = gpu[*j];
      if (g.start == f.ts || f.ts < g.end) {  // exact start first (scanning back), else containing
        hit = &g;
        break;
      }
    }
    if (hit && hit->lane > 0) {
      edits.push_back({f.tid.off, f.tid.len, lane_tid(f.track, hit->lane)});
      ++st.flows_moved;
    }
  }
  if (st.extra_tracks > 0 && first_event_off != std::string::npos) {
    std::string meta;
    for (size_t tr = 0; tr < tracks.size(); ++tr)
      for (int l = 1; l < lanes_of_track[tr]; ++l) {
        std::string tid = unquote(tracks[tr].second);
        meta += "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": " + tracks[tr].first +
                ", \"tid\": " + lane_tid(static_cast<uint32_t>(tr), l) + ", \"args\": {\"name\": \"stream " +
                json_escape(tid) + fmt::format(" (overlap lane {}, goblin perfetto-fix)\"}}}},\n", l);
      }
    edits.push_back({first_event_off, 0, std::move(meta)});
  }
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.off < b.off; });
  return Status::Ok();
}

// Emits text with the edits applied, piece by piece (no second copy of the trace).
template <class Sink>
bool apply_edits(const std::string& text, size_t n, const std::vector<Edit>& edits, Sink&& sink) {
  size_t pos = 0;
  for (const auto& e : edits) {
    if (!sink(std::string_view(text).substr(pos, e.off - pos)) || !sink(e.repl)) return false;
    pos = e.off + e.len;
  }
  return sink(std::string_view(text).substr(pos, n - pos));
}
}  // namespace

Result<std::string> perfetto_fix_text(std::string text, PerfettoFixStats* stats) {
  PerfettoFixStats st;
  const size_t n = text.size();
  text.reserve(n + simdjson::SIMDJSON_PADDING);
  std::vector<Edit> edits;
  RETURN_IF_ERROR(plan_fix(text, n, edits, st));
  std::string out;
  size_t extra = 0;
  for (const auto& e : edits) extra += e.repl.size();
  out.reserve(n + extra);
  apply_edits(text, n, edits, [&](std::string_view piece) {
    out.append(piece);
    return true;
  });
  if (stats) *stats = st;
  return out;
}

namespace {
// Reads the whole (decompressed) input into one buffer that already has simdjson's padding, so
// the trace is held once (read_all + reserve would copy it).
Result<std::string> read_padded(const std::string& path) {
  ASSIGN_OR_RETURN(auto src, open_source(path));
  ByteSource& s = *src;
  const size_t pad = simdjson::SIMDJSON_PADDING;
  // Plain files: exact size plus slack, so the final (empty) read needs no growth.
  size_t guess = s.compressed() ? s.file_size() * 8 : s.file_size() + (1 << 21);
  std::string buf;
  buf.resize(std::max<size_t>(guess, 1 << 16) + pad);
  size_t len = 0;
  for (;;) {
    if (buf.size() - pad == len) buf.resize(buf.size() + buf.size() / 2);
    ASSIGN_OR_RETURN(auto got, s.read(buf.data() + len, buf.size() - pad - len));
    if (got == 0) break;
    len += got;
  }
  buf.resize(len);  // shrinking keeps the capacity: the padding stays allocated
  return buf;
}
}  // namespace

Result<PerfettoFixStats> perfetto_fix_file(const std::string& in, const std::string& out) {
  ASSIGN_OR_RETURN(auto text, read_padded(in));
  std::string& t = text;
  const size_t n = t.size();
  if (t.capacity() < n + simdjson::SIMDJSON_PADDING) t.reserve(n + simdjson::SIMDJSON_PADDING);
  PerfettoFixStats st;
  std::vector<Edit> edits;
  Status s = plan_fix(t, n, edits, st);
  if (!s) {
    Error e = s.error();
    e.file = in;
    return e;
  }
  bool gz_out = out.size() > 3 && out.compare(out.size() - 3, 3, ".gz") == 0;
  // Through the one safe writer (core/atomic_file.h): no symlink followed, nothing half-written.
  ASSIGN_OR_RETURN(auto file, AtomicFile::create(out));
  if (gz_out) {
    gzFile gz = gzdopen(::dup(file.fd()), "wb6");
    if (!gz) return make_error(ErrorKind::Io, "cannot write " + out, out);
    bool ok = apply_edits(t, n, edits, [&](std::string_view piece) {
      while (!piece.empty()) {
        unsigned chunk = static_cast<unsigned>(std::min<size_t>(piece.size(), 1u << 26));
        if (gzwrite(gz, piece.data(), chunk) != static_cast<int>(chunk)) return false;
        piece.remove_prefix(chunk);
      }
      return true;
    });
    if (gzclose(gz) != Z_OK || !ok) return make_error(ErrorKind::Io, "failed writing " + out, out);
  } else {
    bool ok = apply_edits(t, n, edits, [&](std::string_view piece) { return file.write(piece); });
    if (!ok) return make_error(ErrorKind::Io, "failed writing " + out, out);
  }
  RETURN_IF_ERROR(file.commit());
  return st;
}

}  // namespace goblin::analysis
