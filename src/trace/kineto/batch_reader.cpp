// Parallel read of one Kineto trace from any ByteSource (plain file, .json.gz, memory): the
// stream is cut into blocks of ~block_bytes at guessed event boundaries; `threads` workers each take
// the next block, split and parse it into a Timeline of its own, and merge finished blocks into the
// caller's Timeline strictly in file order (one worker at a time, beside the others' reading and
// parsing). Reading (and, for .json.gz, inflating) the next block happens under a lock by whichever
// worker needs it, so inflate, split and parse overlap on every core without an extra thread. At
// most threads + 2 blocks are in flight, so memory grows with the thread count, not the file.
//
// Exactness (the Timeline, warnings and errors equal the one-thread read_source's): a block's
// splitter starts in the state "between two events of traceEvents" at the guessed cut. The guess
// is checked when the blocks are merged: the previous block's splitter must have ended in exactly
// that state. If not (a cut inside an event, a truncated or odd file), the blocks from there on
// are thrown away and the previous block's splitter reads on alone, sequentially, over the rest.
// Strings are re-interned block by block in file order, so ids come out in first-seen order;
// warnings are folded in block order; top-level keys are applied where they stood (before or
// after the block's events).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/confine.h"
#include "core/phases.h"
#include "trace/kineto/event_parser.h"
#include "trace/kineto/kineto.h"
#include "trace/kineto/reader_common.h"
#include "trace/kineto/trace_metadata.h"
#include "trace/kineto/trace_splitter.h"

namespace goblin::trace::kineto {

namespace {

// A top-level key or splitter note seen while splitting a block, replayed at merge time.
struct Item {
  bool is_note = false;
  bool before_events = false;  // seen before the block's first event
  std::string key, value;
  uint64_t offset = 0;
};

class BlockSink : public TraceSplitter::Handler {
 public:
  explicit BlockSink(EventParser& parser) : parser_(parser) {}
  void on_event(std::string_view json, uint64_t offset) override {
    ++events_;
    parser_.parse(json, offset);
  }
  size_t on_event_at(const char* p, const char* end, uint64_t offset) override {
    const size_t n = parser_.parse_at(p, end, offset);
    if (n) ++events_;
    return n;
  }
  void on_top_level(std::string_view key, std::string_view value, uint64_t offset) override {
    items.push_back(Item{false, events_ == 0, std::string(key), std::string(value), offset});
  }
  void on_note(std::string message, uint64_t offset) override {
    items.push_back(Item{true, events_ == 0, {}, std::move(message), offset});
  }
  void reset() {
    items.clear();
    events_ = 0;
  }
  std::vector<Item> items;

 private:
  EventParser& parser_;
  uint64_t events_ = 0;
};

// One block in flight: its bytes live in the splitter's buffer, its rows in `tl`.
struct Slot {
  Timeline tl;
  std::unique_ptr<EventParser> parser;
  std::unique_ptr<BlockSink> sink;
  std::unique_ptr<TraceSplitter> splitter;
  size_t index = 0;
  bool last = false;                // nothing follows (end of input or a read error)
  std::optional<Error> read_error;  // the source failed after this block's bytes
  Status status;                    // the split/parse status of this block
  bool parsed = false, between = false, bare = false;
  uint64_t events_at_merge = 0;  // this block's events, counted when it was merged
  std::vector<StrId> remap;      // this slot's string ids -> the destination's (kept across blocks)
  uint64_t base = 0;             // the block's first byte in the input
  bool mapped = false;           // its bytes are the mapped file's (released after the merge)

  Slot(const std::string& path, const ReadOptions& opt) {
    parser = std::make_unique<EventParser>(tl, path, &opt);
    sink = std::make_unique<BlockSink>(*parser);
    splitter = std::make_unique<TraceSplitter>(*sink, path);
  }
};

// The offset just past a ',' that separates two events: the previous non-blank byte is '}' and
// the next one '{'. Searched backwards from the end; 0 when there is none.
size_t find_cut(const char* p, size_t n) {
  for (size_t i = n; i-- > 1;) {
    if (p[i] != ',') continue;
    size_t j = i + 1;
    while (j < n && (p[j] == ' ' || p[j] == '\n' || p[j] == '\r' || p[j] == '\t')) ++j;
    if (j >= n || p[j] != '{') continue;
    size_t k = i;
    while (k-- > 0 && (p[k] == ' ' || p[k] == '\n' || p[k] == '\r' || p[k] == '\t')) {
    }
    if (k < i && p[k] == '}') return i + 1;
  }
  return 0;
}

class Pipeline {
 public:
  Pipeline(ByteSource& src, Timeline& dst, const ReadOptions& opt)
      : src_(src),
        dst_(dst),
        opt_(opt),
        path_(src.path()),
        block_(std::max<size_t>(opt.block_bytes, 1)),
        threads_(std::max(1, opt.threads)) {
    slots_max_ = static_cast<size_t>(threads_) + 2;
  }

  Status run() {
    // The strings a one-thread read interns first (EventParser's constructor).
    dst_.strings.intern("fwdbwd");
    std::vector<std::thread> ts;
    for (int i = 1; i < threads_; ++i) ts.emplace_back([this] { work(); });
    work();
    for (auto& t : ts) t.join();
    if (fail_at_) sequential_rest();
    finish_read(dst_, path_, totals_, status_);
    return status_;
  }

 private:
  // ---- supply (under mu_) ----
  // Reads the next block into `s`: carry-over bytes first, then about block_ bytes from the
  // source, cut at the last event boundary; the bytes past the cut carry over.
  void fill(Slot& s) {
    s.index = next_index_++;
    s.parsed = false;
    s.status = Status::Ok();
    s.read_error.reset();
    s.sink->reset();
    TraceSplitter& sp = *s.splitter;
    if (s.index > 0) sp.resume_between_events(next_base_, bare_);  // block 0: a new splitter
    s.base = next_base_;
    s.mapped = false;
    if (map_) {
      fill_mapped(s);
      return;
    }
    size_t want = block_;
    char* p = sp.prepare(carry_.size());
    std::memcpy(p, carry_.data(), carry_.size());
    sp.stage(carry_.size());
    carry_.clear();
    for (;;) {
      size_t have = sp.buffered().size();
      while (have < want && !eof_ && !read_error_) {
        const size_t n = std::min<size_t>(want - have, 4u << 20);
        char* dst = sp.prepare(n);
        auto r = src_.read(dst, n);
        if (!r) {
          read_error_ = r.error();
          break;
        }
        if (*r == 0) {
          eof_ = true;
          break;
        }
        sp.stage(*r);
        have += *r;
      }
      if (eof_ || read_error_) break;
      std::string_view b = sp.buffered();
      const size_t cut = find_cut(b.data(), b.size());
      if (cut > 0) {
        carry_.assign(b.data() + cut, b.size() - cut);
        sp.truncate(cut);
        break;
      }
      want *= 2;  // one event larger than a block, or no separator yet: read on
    }
    if (s.index == 0) {
      std::string_view b = sp.buffered();
      size_t i = b.size() >= 3 && std::memcmp(b.data(), "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
      while (i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) ++i;
      bare_ = i < b.size() && b[i] == '[';
    }
    next_base_ += sp.buffered().size();
    if (s.index == 0) expect_bytes_ = expected_bytes();
    s.last = eof_ || read_error_.has_value();
    if (s.last) {
      s.read_error = read_error_;
      supply_done_ = true;
    }
  }

  // The input's decompressed size, extrapolated from what was read so far (asked while supplying:
  // the merge runs beside the next reads).
  double expected_bytes() const {
    const uint64_t raw = src_.raw_position();
    return src_.compressed() && raw > 0
               ? static_cast<double>(src_.file_size()) * static_cast<double>(src_.position()) / static_cast<double>(raw)
               : static_cast<double>(src_.file_size());
  }

  // fill() over a mapped plain file: the block is a view of the mapping, cut at the last event
  // boundary before about block_ bytes; no copy (blocks that end within kSplitterPadding bytes of
  // the end of the file are copied, so a padded buffer follows them).
  void fill_mapped(Slot& s) {
    TraceSplitter& sp = *s.splitter;
    const uint64_t at = next_base_;
    uint64_t n = std::min<uint64_t>(block_, map_size_ - at);
    size_t cut = 0;
    while (at + n < map_size_) {
      cut = find_cut(map_ + at, static_cast<size_t>(n));
      if (cut > 0) break;
      n = std::min<uint64_t>(n * 2, map_size_ - at);
    }
    if (at + n >= map_size_) {
      cut = static_cast<size_t>(map_size_ - at);
      eof_ = true;
    }
    if (at + cut + kSplitterPadding <= map_size_) {
      sp.attach(map_ + at, cut);
      s.mapped = true;
    } else {
      char* p = sp.prepare(cut);
      std::memcpy(p, map_ + at, cut);
      sp.stage(cut);
    }
    if (s.index == 0) {
      std::string_view b = sp.buffered();
      size_t i = b.size() >= 3 && std::memcmp(b.data(), "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
      while (i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) ++i;
      bare_ = i < b.size() && b[i] == '[';
    }
    next_base_ += cut;
    if (s.index == 0) expect_bytes_ = expected_bytes();
    s.last = eof_;
    if (s.last) supply_done_ = true;
  }

  // A merged block's mapped pages leave this process's resident set (the page cache keeps them;
  // a later read of them faults them back in).
  void release(const Slot& s) {
    if (!s.mapped) return;
    const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    uintptr_t a = reinterpret_cast<uintptr_t>(map_ + s.base);
    uintptr_t e = reinterpret_cast<uintptr_t>(map_ + s.base + s.splitter->buffered().size());
    a = (a + page - 1) & ~(page - 1);
    e &= ~(page - 1);
    if (e > a) ::madvise(reinterpret_cast<void*>(a), e - a, MADV_DONTNEED);
  }

 public:
  // Reads a plain file through a read-only mapping instead of the stream (no copy of its bytes).
  void map_file(const char* p, uint64_t size) {
    map_ = p;
    map_size_ = size;
  }

 private:
  Slot* free_slot() {
    for (auto& s : slots_)
      if (!s->busy) return &s->slot;
    if (slots_.size() < slots_max_) {
      slots_.push_back(std::make_unique<Held>(path_, opt_));
      return &slots_.back()->slot;
    }
    return nullptr;
  }
  struct Held {
    Held(const std::string& path, const ReadOptions& opt) : slot(path, opt) {}
    Slot slot;
    bool busy = false;
  };
  Held* held_of(Slot* s) {
    for (auto& h : slots_)
      if (&h->slot == s) return h.get();
    return nullptr;
  }

  // ---- the workers ----
  void work() {
    for (;;) {
      Slot* s = nullptr;
      {
        std::unique_lock<std::mutex> lk(mu_);
        {
          PhaseTimer wait("read: blocks, wait for a free slot");
          cv_.wait(lk, [&] { return stop_ || supply_done_ || free_slot() != nullptr; });
        }
        if (stop_ || supply_done_) return;
        s = free_slot();
        held_of(s)->busy = true;
        PhaseTimer fill_time("read: blocks, read/inflate (serial)");
        fill(*s);
        order_.push_back(s);
      }
      Status st;
      {
        PhaseTimer parse("read: blocks, split+parse");
        st = s->splitter->scan();
      }
      {
        std::unique_lock<std::mutex> lk(mu_);
        s->status = st;
        s->between = s->splitter->between_events();
        s->bare = s->splitter->bare_array();
        s->parsed = true;
        merge_ready(lk);
      }
      cv_.notify_all();
    }
  }

  // Merges finished blocks in order. Called with mu_ held; one worker merges at a time, with mu_
  // released while it copies a block's rows, so the other workers keep reading and parsing (the
  // merge is the read's one serial step besides reading the bytes). A block that finishes while
  // another worker merges is merged by that worker, which looks at the queue again after each
  // block.
  void merge_ready(std::unique_lock<std::mutex>& lk) {
    if (merging_) return;
    merging_ = true;
    while (!stop_ && !order_.empty() && order_.front()->parsed) {
      Slot* s = order_.front();
      if (prev_ && !(prev_->between && prev_->bare == bare_)) {
        // The cut before this block was not between two events: read on sequentially.
        fail_at_ = true;
        stop_ = true;
        break;
      }
      lk.unlock();
      {
        PhaseTimer merge_time("read: blocks, merge in file order (serial)");
        merge(*s);
      }
      lk.lock();
      order_.pop_front();
      if (prev_) held_of(prev_)->busy = false;
      prev_ = s;
      cv_.notify_all();
      Status st = s->status;
      if (st.ok() && s->read_error) st = *s->read_error;
      if (!st.ok()) {
        status_ = st;
        stop_ = true;
        break;
      }
      if (s->last) {
        s->splitter->add_prior_events(events_before_);
        status_ = s->splitter->finish();
        stop_ = true;
        break;
      }
      events_before_ += s->splitter->events_emitted();
    }
    merging_ = false;
  }

  void apply(Slot& s, bool before) {
    for (auto& it : s.sink->items) {
      if (it.before_events != before) continue;
      if (it.is_note)
        dst_.warn(W::kineto_trailing_bytes, it.value, path_, static_cast<int64_t>(it.offset));
      else
        apply_top_level(it.key, it.value, it.offset, path_, dst_);
    }
  }

  void merge(Slot& s) {
    add_skips(totals_.skipped, s.parser->skipped());
    totals_.min_ts_ns = std::min(totals_.min_ts_ns, s.parser->min_ts_ns());
    totals_.parsed += s.parser->parsed();
    s.events_at_merge = s.splitter->events_emitted();
    totals_.events += s.events_at_merge;
    apply(s, true);
    dst_.append_and_clear(s.tl, s.remap);
    s.parser->rebind();
    apply(s, false);
    release(s);
    s.sink->items.clear();
    if (s.index == 0 && !s.last) {
      // Reserve every column for the whole input, extrapolated from this first block.
      const double seen = static_cast<double>(s.splitter->buffered().size());
      const double factor = seen > 0 ? 1.1 * expect_bytes_ / seen : 0;
      if (factor > 2) reserve_like(dst_, factor);
    }
  }

  // After a wrong cut: the last merged block's splitter reads the rest of the input alone.
  void sequential_rest() {
    Slot& s = *prev_;
    TraceSplitter& sp = *s.splitter;
    Status st;
    for (Slot* b : order_) {  // blocks already read: their bytes, in order
      if (!st.ok()) break;
      std::string text(b->splitter->buffered());
      st = sp.feed(text.data(), text.size());
    }
    if (st.ok() && !carry_.empty()) st = sp.feed(carry_.data(), carry_.size());
    if (st.ok() && read_error_) st = *read_error_;
    if (map_) {  // the rest of the mapped file
      for (uint64_t at = next_base_; st.ok() && at < map_size_;) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(4u << 20, map_size_ - at));
        st = sp.feed(map_ + at, n);
        at += n;
      }
    }
    std::vector<char> buf(4u << 20);
    while (st.ok() && !eof_ && !map_) {
      auto r = src_.read(buf.data(), buf.size());
      if (!r) {
        st = r.error();
        break;
      }
      if (*r == 0) break;
      st = sp.feed(buf.data(), *r);
    }
    // The splitter's count covers its own block and what it read since; the blocks before it
    // were counted at their merges.
    sp.add_prior_events(events_before_ - s.events_at_merge);
    if (st.ok()) st = sp.finish();
    // Only the rows read since the last merge are new: that merge emptied the slot and zeroed
    // the parser's counts.
    add_skips(totals_.skipped, s.parser->skipped());
    totals_.min_ts_ns = std::min(totals_.min_ts_ns, s.parser->min_ts_ns());
    totals_.parsed += s.parser->parsed();
    apply(s, true);
    dst_.append_and_clear(s.tl, s.remap);
    apply(s, false);
    totals_.events = sp.events_emitted();
    status_ = st;
  }

  ByteSource& src_;
  Timeline& dst_;
  const ReadOptions& opt_;
  std::string path_;
  size_t block_;
  int threads_;
  size_t slots_max_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Held>> slots_;
  std::deque<Slot*> order_;  // blocks supplied and not yet merged, in file order
  Slot* prev_ = nullptr;     // the last merged block (its slot is kept until the next merge)
  std::string carry_;
  uint64_t next_base_ = 0;
  size_t next_index_ = 0;
  bool bare_ = false, eof_ = false, supply_done_ = false, stop_ = false, fail_at_ = false;
  bool merging_ = false;     // a worker is merging (mu_ released while it copies rows)
  double expect_bytes_ = 0;  // the input's expected size, taken when block 0 was read
  std::optional<Error> read_error_;
  const char* map_ = nullptr;
  uint64_t map_size_ = 0;
  uint64_t events_before_ = 0;
  PartTotals totals_;
  Status status_;
};

}  // namespace

Status read_blocks(ByteSource& src, Timeline& tl, const ReadOptions& opt) {
  Pipeline p(src, tl, opt);
  // A plain file is mapped when it can be: the blocks are views of the mapping.
  void* map = MAP_FAILED;
  uint64_t size = 0;
  if (!src.compressed() && src.position() == 0 && opt.map_plain_files) {
    auto opened = open_for_read(src.path());  // confined like every read (core/confine.h)
    const int fd = opened.ok() ? *opened : -1;
    if (fd >= 0) {
      struct stat st {};
      if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
          static_cast<uint64_t>(st.st_size) == src.file_size()) {
        size = static_cast<uint64_t>(st.st_size);
        map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      }
      ::close(fd);
    }
  }
  if (map != MAP_FAILED) {
    ::madvise(map, size, MADV_SEQUENTIAL);
    p.map_file(static_cast<const char*>(map), size);
  }
  Status st = p.run();
  if (map != MAP_FAILED) ::munmap(map, size);
  return st;
}

}  // namespace goblin::trace::kineto
