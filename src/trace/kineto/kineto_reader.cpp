// read_kineto: a prefetch thread pulls chunks from the ByteSource (for .json.gz that thread also
// inflates, so inflate and parse run on both cores at once) while this thread splits and parses.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <vector>

#include "core/confine.h"
#include "core/io.h"
#include "core/phases.h"
#include "trace/kineto/event_parser.h"
#include "trace/kineto/kineto.h"
#include "trace/kineto/reader_common.h"
#include "trace/kineto/trace_metadata.h"
#include "trace/kineto/trace_splitter.h"

namespace goblin::trace {

namespace kineto {

namespace {

class MemorySource : public ByteSource {
 public:
  MemorySource(std::string name, std::string_view bytes, size_t max_read) : bytes_(bytes), max_read_(max_read) {
    path_ = std::move(name);
  }
  Result<size_t> read(char* buf, size_t cap) override {
    size_t n = std::min({cap, max_read_, bytes_.size() - pos_});
    std::memcpy(buf, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t position() const override { return pos_; }
  bool compressed() const override { return false; }
  uint64_t file_size() const override { return bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t max_read_;
  size_t pos_ = 0;
};

// A chunk's bytes, left uninitialised: the source overwrites them, and zeroing a chunk larger than
// a small file cost a fifth of that file's ingest (and touched pages it never used).
class ChunkBuffer {
 public:
  char* data() { return bytes_.get(); }
  size_t size() const { return capacity_; }
  void reserve_for_overwrite(size_t n) {
    if (n <= capacity_) return;
    bytes_ = std::make_unique_for_overwrite<char[]>(n);
    capacity_ = n;
  }

 private:
  std::unique_ptr<char[]> bytes_;
  size_t capacity_ = 0;
};

struct Chunk {
  ChunkBuffer data;
  size_t size = 0;
  std::optional<Error> error;  // read failure after `size` good bytes
  bool eof = false;
};

// Reads ahead on its own thread, at most `depth` chunks in flight, so memory stays bounded.
class Prefetcher {
 public:
  Prefetcher(ByteSource& src, size_t chunk, size_t depth) : src_(src), chunk_(chunk), depth_(depth) {
    thread_ = std::thread([this] { loop(); });
  }
  ~Prefetcher() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // Next chunk; its buffer is recycled by give_back.
  Chunk take() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return !ready_.empty(); });
    Chunk c = std::move(ready_.front());
    ready_.pop_front();
    cv_.notify_all();
    return c;
  }
  void give_back(Chunk&& c) {
    std::lock_guard<std::mutex> lk(mu_);
    free_.push_back(std::move(c.data));
    cv_.notify_all();
  }

 private:
  void loop() {
    for (;;) {
      ChunkBuffer buf;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || ready_.size() < depth_; });
        if (stop_) return;
        if (!free_.empty()) {
          buf = std::move(free_.back());
          free_.pop_back();
        }
      }
      buf.reserve_for_overwrite(chunk_);
      Chunk c;
      size_t have = 0;
      // Fill the whole chunk (gzip sources return less than asked) to keep handoffs rare.
      while (have < chunk_) {
        auto r = src_.read(buf.data() + have, chunk_ - have);
        if (!r) {
          c.error = r.error();
          break;
        }
        if (*r == 0) {
          c.eof = true;
          break;
        }
        have += *r;
      }
      c.data = std::move(buf);
      c.size = have;
      const bool last = c.eof || c.error.has_value();
      {
        std::lock_guard<std::mutex> lk(mu_);
        ready_.push_back(std::move(c));
      }
      cv_.notify_all();
      if (last) return;
    }
  }

  ByteSource& src_;
  size_t chunk_, depth_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Chunk> ready_;
  std::vector<ChunkBuffer> free_;
  bool stop_ = false;
  std::thread thread_;
};

class Sink : public TraceSplitter::Handler {
 public:
  Sink(EventParser& parser, Timeline& tl, const std::string& path) : parser_(parser), tl_(tl), path_(path) {}
  void on_event(std::string_view json, uint64_t offset) override { parser_.parse(json, offset); }
  size_t on_event_at(const char* p, const char* end, uint64_t offset) override {
    return parser_.parse_at(p, end, offset);
  }
  void on_top_level(std::string_view key, std::string_view value, uint64_t offset) override {
    apply_top_level(key, value, offset, path_, tl_);
  }
  void on_note(std::string message, uint64_t offset) override {
    tl_.warn(W::kineto_trailing_bytes, std::move(message), path_, static_cast<int64_t>(offset));
  }

 private:
  EventParser& parser_;
  Timeline& tl_;
  const std::string& path_;
};

// ---- two-thread read of one plain file ------------------------------------------------------
//
// The file is cut once near its middle at a guessed event boundary (a ',' that ends a line and
// is followed by '{'). This thread splits and parses [0, cut) into the caller's Timeline while a
// second thread splits and parses [cut, end) into a Timeline of its own. The guess is kept only
// if the first splitter, fed exactly [0, cut), ends between two events of traceEvents: then the
// second splitter, started in that very state, cuts the rest exactly as one splitter would.
// Its rows are appended after ours (file order; strings re-interned in first-seen order) and
// its warnings folded in after ours, so the Timeline is identical to the one-thread read. When
// the guess is wrong, or the first part fails, the second part is thrown away and this thread
// goes on alone from the cut (or stops at the error) exactly as the one-thread read does.

// Events sent to the second part's top-level keys and notes, replayed in order after the join
// (they write metadata and warnings of the caller's Timeline).
struct Deferred {
  bool is_note = false;
  std::string key, value;
  uint64_t offset = 0;
};

class DeferSink : public TraceSplitter::Handler {
 public:
  explicit DeferSink(EventParser& parser) : parser_(parser) {}
  void on_event(std::string_view json, uint64_t offset) override { parser_.parse(json, offset); }
  size_t on_event_at(const char* p, const char* end, uint64_t offset) override {
    return parser_.parse_at(p, end, offset);
  }
  void on_top_level(std::string_view key, std::string_view value, uint64_t offset) override {
    deferred.push_back(Deferred{false, std::string(key), std::string(value), offset});
  }
  void on_note(std::string message, uint64_t offset) override {
    deferred.push_back(Deferred{true, {}, std::move(message), offset});
  }
  std::vector<Deferred> deferred;

 private:
  EventParser& parser_;
};

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// pread()s [from, to) into `sp` in chunks; reserves `tl`'s columns once 4 MB were split, for
// `expect` bytes in all (0: never). Stops early (Ok) when `cancel` is set.
Status pump(int fd, const std::string& path, uint64_t from, uint64_t to, size_t chunk, TraceSplitter& sp, Timeline& tl,
            uint64_t expect, const std::atomic<bool>* cancel) {
  bool reserved = false;
  uint64_t at = from;
  while (at < to) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return Status::Ok();
    const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk, to - at));
    char* dst = sp.prepare(want);
    ssize_t n = ::pread(fd, dst, want, static_cast<off_t>(at));
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(ErrorKind::Io, std::string("read failed: ") + std::strerror(errno), path,
                        static_cast<int64_t>(at));
    }
    if (n == 0) break;  // file shrank under us: the splitter's finish() reports truncation
    at += static_cast<uint64_t>(n);
    Status s = sp.commit(static_cast<size_t>(n));
    if (!s.ok()) return s;
    const uint64_t seen = at - from;
    if (!reserved && expect != 0 && seen >= (4u << 20)) {
      reserved = true;
      const double factor = 1.1 * static_cast<double>(expect) / static_cast<double>(seen);
      if (factor > 2) reserve_like(tl, factor);
    }
  }
  return Status::Ok();
}

// A guessed event boundary near the middle: the offset just past a ',' that ends a line whose
// next non-blank byte is '{'. 0 when none is found in a window there.
uint64_t guess_cut(int fd, uint64_t size) {
  constexpr size_t kWindow = 4u << 20;
  const uint64_t at = size / 2;
  std::string w(static_cast<size_t>(std::min<uint64_t>(kWindow, size - at)), '\0');
  ssize_t n = ::pread(fd, w.data(), w.size(), static_cast<off_t>(at));
  if (n <= 0) return 0;
  w.resize(static_cast<size_t>(n));
  for (size_t i = 1; i + 1 < w.size(); ++i) {
    if (w[i] != '\n' || w[i - 1] != ',') continue;
    size_t j = i + 1;
    while (j < w.size() && (w[j] == ' ' || w[j] == '\t' || w[j] == '\r' || w[j] == '\n')) ++j;
    if (j < w.size() && w[j] == '{') return at + i;  // just past the ','
  }
  return 0;
}

bool starts_bare_array(int fd) {
  char b[256];
  ssize_t n = ::pread(fd, b, sizeof b, 0);
  size_t i = 0;
  if (n >= 3 && std::memcmp(b, "\xEF\xBB\xBF", 3) == 0) i = 3;
  while (i < static_cast<size_t>(std::max<ssize_t>(n, 0)) &&
         (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
    ++i;
  return i < static_cast<size_t>(std::max<ssize_t>(n, 0)) && b[i] == '[';
}

}  // namespace

namespace {
// Counted-but-not-modelled events become one folded note each, so nothing vanishes silently.
void note_skipped(Timeline& tl, const std::string& path, const char* what, uint64_t n) {
  if (n == 0) return;
  tl.warn(W::kineto_not_modelled, std::string("not modelled, counted only: ") + what, path);
  tl.warnings.back().count = static_cast<int64_t>(n);
}

// Reserves every column for the rows a whole file will likely hold, extrapolated from the rows
// produced by the first chunk. Doubling growth would otherwise copy each column ~once more and
// touch twice the pages; over-reserving is cheap because untouched pages never become resident.
// Large columns are asked to use transparent huge pages (where THP is in `madvise` mode): a
// 1 GB trace fills ~300 MB of columns, and 4 KiB page faults were ~15% of the read time.
template <class T>
void reserve_col(Column<T>& v, size_t n) {
  v.reserve(n);
  const size_t bytes = v.capacity() * sizeof(T);
  constexpr uintptr_t kHuge = 2u << 20;
  static const bool thp = !std::getenv("GOBLIN_KINETO_NO_THP");
  if (!thp || bytes < 4 * kHuge) return;
  uintptr_t a = (reinterpret_cast<uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
  uintptr_t e = (reinterpret_cast<uintptr_t>(v.data()) + bytes) & ~(kHuge - 1);
  if (e > a) madvise(reinterpret_cast<void*>(a), e - a, MADV_HUGEPAGE);
}

}  // namespace

void reserve_like(Timeline& tl, double factor) {
  auto want = [&](size_t have) { return static_cast<size_t>(static_cast<double>(have) * factor) + 16; };
  tl.for_each_table([&](const char*, auto& table) {
    const size_t n = want(table.size());
    table.for_each_column([&](const char*, auto& col, ColumnKind) { reserve_col(col, n); });
  });
}

namespace {
// The grid of a kernel launched through hipExtModuleLaunchKernel (MIOpen's kernels, Tensile and
// hipBLASLt GEMMs) is its global work size in work-items, not in workgroups: roctracer's Kineto
// (libkineto/src/RoctracerLogger.cpp) reads that call's arguments through hipModuleLaunchKernel's
// member of the argument union, whose gridDimX..Z sit where hipExtModuleLaunchKernel has
// globalWorkSizeX..Z (HIP's hip_runtime_api.h). The model stores grids in blocks (model/timeline.h),
// so those grids are divided by the block here, where a grid that is a whole number of blocks in
// every dimension says it is one; a grid that is not is kept as recorded.
void hip_ext_grids_to_blocks(Timeline& tl) {
  const StrId ext = tl.strings.find("hipExtModuleLaunchKernel");
  if (ext == kNoStr) return;
  std::unordered_set<int64_t> corr;
  for (size_t i = 0; i < tl.runtime.size(); ++i)
    if (tl.runtime.name[i] == ext && tl.runtime.correlation[i] != kNone) corr.insert(tl.runtime.correlation[i]);
  auto& K = tl.gpu_ops;
  for (size_t k = 0; k < K.size(); ++k) {
    if (K.kind[k] != GpuOpKind::Kernel || K.correlation[k] == kNone || !corr.count(K.correlation[k])) continue;
    Dim3& g = K.grid[k];
    const Dim3& b = K.block[k];
    bool whole = true;
    for (int d = 0; d < 3; ++d) whole &= b[d] > 0 && g[d] >= b[d] && g[d] % b[d] == 0;
    if (!whole) continue;
    for (int d = 0; d < 3; ++d) g[d] /= b[d];
  }
}
}  // namespace

void finish_read(Timeline& tl, const std::string& path, const PartTotals& t, Status& status) {
  hip_ext_grids_to_blocks(tl);
  // Without baseTimeNanoseconds, 2021-2024 traces carry absolute epoch µs; 1e15 µs is 2001.
  if (!tl.meta.clock_is_epoch && t.min_ts_ns != INT64_MAX && t.min_ts_ns >= 1'000'000'000'000'000'000) {
    tl.meta.clock_is_epoch = true;
  }
  // Memory events are the Timeline's memory_events table (docs/memory.md § Kineto traces): read,
  // not skipped; the note says where they went and which verbs use them.
  if (t.skipped.memory_instants > 0) {
    tl.warn(W::kineto_memory_events,
            "[memory] instant events (profile_memory allocations) read into the memory_events table: goblin memory "
            "and --memory use them, the step and kernel figures do not",
            path);
    tl.warnings.back().count = static_cast<int64_t>(t.skipped.memory_instants);
  }
  note_skipped(tl, path, "counter ('C') events", t.skipped.counters);
  tl.meta.launch_flows += t.skipped.launch_flows;
  if (t.parsed == 0 && t.events > 0 && status.ok()) {
    status = make_error(ErrorKind::Malformed, fmt::format("none of the {} events could be parsed", t.events), path, 0);
  }
}

void add_skips(SkipCounts& a, const SkipCounts& b) {
  a.metadata += b.metadata;
  a.memory_instants += b.memory_instants;
  a.other_instants += b.other_instants;
  a.counters += b.counters;
  a.ignored += b.ignored;
  a.bad += b.bad;
  a.launch_flows += b.launch_flows;
}

std::unique_ptr<ByteSource> memory_source(std::string name, std::string_view bytes, size_t max_read) {
  return std::make_unique<MemorySource>(std::move(name), bytes, max_read == 0 ? 1 : max_read);
}

std::optional<Status> read_plain_two_threads(const std::string& path, uint64_t size, Timeline& tl,
                                             const ReadOptions& opt, bool* kept) {
  if (kept) *kept = false;
  auto opened = open_for_read(path);  // confined like every read (core/confine.h)
  if (!opened.ok()) return std::nullopt;
  Fd fd(*opened);
  const uint64_t cut = guess_cut(fd.get(), size);
  if (cut == 0) return std::nullopt;
  const bool bare = starts_bare_array(fd.get());
  const size_t chunk = std::max<size_t>(opt.chunk_bytes, 1);

  // Second part, on its own thread.
  Timeline tl2;
  EventParser parser2(tl2, path, &opt);
  DeferSink sink2(parser2);
  TraceSplitter split2(sink2, path);
  split2.resume_between_events(cut, bare);
  std::atomic<bool> cancel{false};
  Status status2;
  std::thread worker([&] { status2 = pump(fd.get(), path, cut, size, chunk, split2, tl2, size - cut, &cancel); });

  // First part, here.
  EventParser parser(tl, path, &opt);
  Sink sink(parser, tl, path);
  TraceSplitter splitter(sink, path);
  Status status = pump(fd.get(), path, 0, cut, chunk, splitter, tl, size, nullptr);
  const bool keep = status.ok() && splitter.between_events() && splitter.bare_array() == bare;
  if (!keep) cancel.store(true);
  worker.join();

  if (kept) *kept = keep;
  PartTotals t;
  if (keep) {
    tl.append(std::move(tl2), /*two_threads=*/true);
    for (auto& d : sink2.deferred) {
      if (d.is_note)
        tl.warn(W::kineto_trailing_bytes, std::move(d.value), path, static_cast<int64_t>(d.offset));
      else
        apply_top_level(d.key, d.value, d.offset, path, tl);
    }
    split2.add_prior_events(splitter.events_emitted());
    status = status2.ok() ? split2.finish() : status2;
    add_skips(t.skipped, parser2.skipped());
    t.min_ts_ns = parser2.min_ts_ns();
    t.parsed = parser2.parsed();
    t.events = split2.events_emitted();
  } else {
    if (status.ok()) status = pump(fd.get(), path, cut, size, chunk, splitter, tl, 0, nullptr);
    if (status.ok()) status = splitter.finish();
    t.events = splitter.events_emitted();
  }
  add_skips(t.skipped, parser.skipped());
  t.min_ts_ns = std::min(t.min_ts_ns, parser.min_ts_ns());
  t.parsed += parser.parsed();
  finish_read(tl, path, t, status);
  return status;
}

Status read_source(ByteSource& src, Timeline& tl, const ReadOptions& opt) {
  const std::string path = src.path();
  EventParser parser(tl, path, &opt);
  Sink sink(parser, tl, path);
  TraceSplitter splitter(sink, path);
  const size_t chunk = std::max<size_t>(opt.chunk_bytes, 1);

  Status status;
  bool reserved = false;
  if (src.compressed()) {
    // Inflate on the prefetch thread so inflate and parse use both cores.
    Prefetcher pf(src, std::max<size_t>(chunk, 64u << 10), 2);
    for (;;) {
      Chunk c = pf.take();
      Status s = c.size ? splitter.feed(c.data.data(), c.size) : Status::Ok();
      bool last = c.eof || c.error.has_value();
      if (!s.ok()) {
        status = s;
        break;
      }
      if (c.error) {
        status = *c.error;
        break;
      }
      pf.give_back(std::move(c));
      if (last) break;
    }
  } else {
    // Plain files: read() straight into the splitter's buffer (the page-cache copy is the only
    // copy; a prefetch thread would add a second one for little overlap).
    for (;;) {
      char* dst = splitter.prepare(chunk);
      auto r = src.read(dst, chunk);
      if (!r) {
        status = r.error();
        break;
      }
      if (*r == 0) break;
      Status s = splitter.commit(*r);
      if (!s.ok()) {
        status = s;
        break;
      }
      if (!reserved && splitter.bytes_seen() >= (4u << 20)) {
        reserved = true;
        const double factor = 1.1 * static_cast<double>(src.file_size()) / static_cast<double>(splitter.bytes_seen());
        if (factor > 2) reserve_like(tl, factor);
      }
    }
  }
  if (status.ok()) status = splitter.finish();

  PartTotals t;
  t.skipped = parser.skipped();
  t.min_ts_ns = parser.min_ts_ns();
  t.parsed = parser.parsed();
  t.events = splitter.events_emitted();
  finish_read(tl, path, t, status);
  return status;
}

}  // namespace kineto

namespace {
// Benchmark knobs (bench/README.md): GOBLIN_KINETO_MODE=blocks|halves|single (blocks: the block
// reader whatever the size, which tests use to cut small fixtures into many blocks),
// GOBLIN_KINETO_THREADS=N (over --threads), GOBLIN_KINETO_BLOCK_MB=N, GOBLIN_KINETO_BLOCK_KB=N,
// GOBLIN_KINETO_FAST=0 (simdjson only), GOBLIN_KINETO_MAP=0 (read() plain files instead of mapping
// them).
struct EnvKnobs {
  std::string mode;
  int threads = 0;
  size_t block_mb = 0, block_kb = 0;
  int map = -1;
  EnvKnobs() {
    if (const char* m = std::getenv("GOBLIN_KINETO_MAP")) map = std::atoi(m);
    if (const char* m = std::getenv("GOBLIN_KINETO_MODE")) mode = m;
    if (const char* t = std::getenv("GOBLIN_KINETO_THREADS")) threads = std::atoi(t);
    if (const char* b = std::getenv("GOBLIN_KINETO_BLOCK_MB")) block_mb = static_cast<size_t>(std::atoi(b));
    if (const char* b = std::getenv("GOBLIN_KINETO_BLOCK_KB")) block_kb = static_cast<size_t>(std::atoi(b));
    if (const char* f = std::getenv("GOBLIN_KINETO_FAST")) kineto::set_fast_path_enabled(std::atoi(f) != 0);
  }
};
const EnvKnobs& env_knobs() {
  static const EnvKnobs k;
  return k;
}
}  // namespace

namespace {
// Damaged deflate data often inflates to a few bytes of garbage before the decoder notices, so the
// JSON parser can fail first and blame the trace for what is really a damaged .gz. When parsing a
// compressed source failed, inflate the rest (discarding it, bounded by the source's own limits):
// if the gzip layer reports damage, that is the cause the user needs to hear, with the JSON error
// kept as its consequence. An intact gzip leaves the JSON error as it was.
Status blame_gzip_if_damaged(ByteSource& src, Status parsed) {
  if (parsed.ok() || !src.compressed() || parsed.error().kind != ErrorKind::Malformed) return parsed;
  std::vector<char> sink(1 << 20);
  for (;;) {
    auto r = src.read(sink.data(), sink.size());
    if (!r) {
      const Error& gz = r.error();
      if (gz.message.find("gzip") == std::string::npos) return parsed;  // a limit, not damage
      Error e = gz;
      e.message += "; the JSON inside could not be parsed past that damage (" + parsed.error().describe() + ")";
      if (parsed.error().byte_offset >= 0 && (e.byte_offset < 0 || parsed.error().byte_offset < e.byte_offset))
        e.byte_offset = parsed.error().byte_offset;
      return e;
    }
    if (*r == 0) return parsed;
  }
}
}  // namespace

Status read_kineto(const std::string& path, Timeline& tl, const ReadOptions& given) {
  const EnvKnobs& env = env_knobs();
  ReadOptions opt = given;
  // The bench knob, else the process's --threads, else the caller's own count.
  if (env.threads > 0)
    opt.threads = env.threads;
  else if (worker_threads() > 0)
    opt.threads = worker_threads();
  if (env.block_mb > 0) opt.block_bytes = env.block_mb << 20;
  if (env.block_kb > 0) opt.block_bytes = env.block_kb << 10;
  // Sixteen workers parse faster than one reader copies: on the 16-core H200 host a 10 GB trace
  // read in 3.2 s mapped against 3.8 s through read() (bench/results/scale_threads). On two cores
  // mapping was the slower (ReadOptions::map_plain_files).
  if (opt.threads >= 16) opt.map_plain_files = true;
  if (env.map >= 0) opt.map_plain_files = env.map != 0;
  auto src = open_source(path, opt.io);
  if (!src) return src.error();
  const uint64_t size = (*src)->file_size();
  const bool large = env.mode == "blocks" ||
                     ((*src)->compressed() ? size >= opt.parallel_min_bytes / 16 : size >= opt.parallel_min_bytes);
  if (env.mode == "single" || !large || opt.threads < 2 || size < 2) {
    PhaseTimer pt("read: kineto, one thread");
    return blame_gzip_if_damaged(**src, kineto::read_source(**src, tl, opt));
  }
  if (env.mode == "halves" && !(*src)->compressed()) {
    if (auto s = kineto::read_plain_two_threads(path, size, tl, opt)) return *s;
    return kineto::read_source(**src, tl, opt);
  }
  PhaseTimer pt("read: kineto blocks (wall)");
  return blame_gzip_if_damaged(**src, kineto::read_blocks(**src, tl, opt));
}

}  // namespace goblin::trace
