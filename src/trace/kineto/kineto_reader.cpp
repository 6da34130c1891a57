// read_kineto: a prefetch thread pulls chunks from the ByteSource (for .json.gz that thread also
// inflates, so inflate and parse run on both cores at once) while this thread splits and parses.
#include <sys/mman.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "trace/kineto/event_parser.h"
#include "trace/kineto/kineto.h"
#include "trace/kineto/trace_metadata.h"
#include "trace/kineto/trace_splitter.h"

namespace goblin {

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

struct Chunk {
  std::vector<char> data;
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
      std::vector<char> buf;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return stop_ || ready_.size() < depth_; });
        if (stop_) return;
        if (!free_.empty()) {
          buf = std::move(free_.back());
          free_.pop_back();
        }
      }
      if (buf.size() < chunk_) buf.resize(chunk_);
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
  std::vector<std::vector<char>> free_;
  bool stop_ = false;
  std::thread thread_;
};

class Sink : public TraceSplitter::Handler {
 public:
  Sink(EventParser& parser, Timeline& tl, const std::string& path) : parser_(parser), tl_(tl), path_(path) {}
  void on_event(std::string_view json, uint64_t offset) override { parser_.parse(json, offset); }
  void on_top_level(std::string_view key, std::string_view value, uint64_t offset) override {
    apply_top_level(key, value, offset, path_, tl_);
  }
  void on_note(std::string message, uint64_t offset) override {
    tl_.warn(std::move(message), path_, static_cast<int64_t>(offset));
  }

 private:
  EventParser& parser_;
  Timeline& tl_;
  const std::string& path_;
};

// Counted-but-not-modelled events become one folded note each, so nothing vanishes silently.
void note_skipped(Timeline& tl, const std::string& path, const char* what, uint64_t n) {
  if (n == 0) return;
  tl.warn(std::string("not modelled, counted only: ") + what, path);
  tl.warnings.back().count = static_cast<int64_t>(n);
}

// Reserves every column for the rows a whole file will likely hold, extrapolated from the rows
// produced by the first chunk. Doubling growth would otherwise copy each column ~once more and
// touch twice the pages; over-reserving is cheap because untouched pages never become resident.
// Large columns are asked to use transparent huge pages (where THP is in `madvise` mode): a
// 1 GB trace fills ~300 MB of columns, and 4 KiB page faults were ~15% of the read time.
template <class T>
void reserve_col(std::vector<T>& v, size_t n) {
  v.reserve(n);
  const size_t bytes = v.capacity() * sizeof(T);
  constexpr uintptr_t kHuge = 2u << 20;
  if (bytes < 4 * kHuge) return;
  uintptr_t a = (reinterpret_cast<uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
  uintptr_t e = (reinterpret_cast<uintptr_t>(v.data()) + bytes) & ~(kHuge - 1);
  if (e > a) madvise(reinterpret_cast<void*>(a), e - a, MADV_HUGEPAGE);
}

template <class... V>
void reserve_cols(size_t n, V&... cols) {
  (reserve_col(cols, n), ...);
}

void reserve_like(Timeline& tl, double factor) {
  auto want = [&](size_t have) { return static_cast<size_t>(static_cast<double>(have) * factor) + 16; };
  auto gpu = [&](GpuOpColumns& c, size_t n) {
    reserve_cols(n, c.start_ns, c.dur_ns, c.name, c.device, c.stream, c.correlation, c.external_id);
  };
  size_t n = want(tl.kernels.size());
  gpu(tl.kernels, n);
  reserve_cols(n, tl.kernels.grid, tl.kernels.block, tl.kernels.registers_per_thread, tl.kernels.shared_mem_bytes,
               tl.kernels.graph_id);
  n = want(tl.memcpys.size());
  gpu(tl.memcpys, n);
  reserve_cols(n, tl.memcpys.bytes, tl.memcpys.kind);
  n = want(tl.memsets.size());
  gpu(tl.memsets, n);
  reserve_cols(n, tl.memsets.bytes);
  auto& r = tl.runtime;
  reserve_cols(want(r.size()), r.start_ns, r.dur_ns, r.name, r.pid, r.tid, r.correlation, r.external_id, r.cbid,
               r.is_driver, r.is_sync);
  auto& c = tl.cpu_ops;
  reserve_cols(want(c.size()), c.start_ns, c.dur_ns, c.name, c.pid, c.tid, c.external_id, c.sequence_number, c.kind,
               c.input_dims, c.input_types, c.concrete_inputs, c.python_id, c.python_parent_id);
  auto& a = tl.annotations;
  reserve_cols(want(a.size()), a.start_ns, a.dur_ns, a.name, a.on_gpu, a.pid, a.tid, a.device, a.stream, a.external_id);
  auto& f = tl.flows;
  reserve_cols(want(f.size()), f.id, f.category, f.is_start, f.ts_ns, f.pid, f.tid);
}

}  // namespace

std::unique_ptr<ByteSource> memory_source(std::string name, std::string_view bytes, size_t max_read) {
  return std::make_unique<MemorySource>(std::move(name), bytes, max_read == 0 ? 1 : max_read);
}

Status read_source(ByteSource& src, Timeline& tl, const ReadOptions& opt) {
  const std::string path = src.path();
  EventParser parser(tl, path);
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

  // Without baseTimeNanoseconds, 2021-2024 traces carry absolute epoch µs; 1e15 µs is 2001.
  if (!tl.meta.clock_is_epoch && parser.min_ts_ns() != INT64_MAX && parser.min_ts_ns() >= 1'000'000'000'000'000'000) {
    tl.meta.clock_is_epoch = true;
  }
  const auto& sk = parser.skipped();
  note_skipped(tl, path, "[memory] instant events (profile_memory allocations)", sk.memory_instants);
  note_skipped(tl, path, "counter ('C') events", sk.counters);
  if (parser.parsed() == 0 && splitter.events_emitted() > 0 && status.ok()) {
    status =
        make_error(ErrorKind::Malformed,
                   "none of the " + std::to_string(splitter.events_emitted()) + " events could be parsed", path, 0);
  }
  return status;
}

}  // namespace kineto

Status read_kineto(const std::string& path, Timeline& tl, const ReadOptions& opt) {
  auto src = open_source(path, opt.io);
  if (!src) return src.error();
  return kineto::read_source(**src, tl, opt);
}

}  // namespace goblin
