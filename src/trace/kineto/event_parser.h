// Turns one Kineto trace event (the JSON text of one element of traceEvents) into rows of the
// Timeline. Parsing uses simdjson on-demand over the event's bytes in place (no copy): the
// caller guarantees kSplitterPadding readable bytes after the view. Times are read from the raw
// number text and converted exactly (core/decimal.h), never through a double.
#pragma once
#include <simdjson.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "model/timeline.h"
#include "trace/readers.h"

namespace goblin::trace::kineto {

// What the parser saw but did not turn into rows, for `goblin info` and the reader's notes.
struct SkipCounts {
  uint64_t metadata = 0;         // ph "M" (process/thread names)
  uint64_t memory_instants = 0;  // "[memory]" instant events read into memory_events (profile_memory)
  uint64_t other_instants = 0;   // "Iteration Start", "Record Window End", cpu_instant_event
  uint64_t counters = 0;         // ph "C"
  uint64_t ignored = 0;          // Trace spans, overhead, and other categories goblin does not model
  uint64_t bad = 0;              // events skipped because they were damaged
  // Launch flow halves (cat "ac2g", 2021's "async"): counted, not stored. Each links a launch to
  // its kernel by the correlation id both rows already hold (~26 MB of a 1 GB trace's model).
  uint64_t launch_flows = 0;
};

class EventParser {
 public:
  // `opt` (optional, must outlive the parser): its lean-reading filters.
  EventParser(Timeline& tl, std::string path, const ReadOptions* opt = nullptr);
  // `json` must be followed by kSplitterPadding readable bytes.
  void parse(std::string_view json, uint64_t offset);
  // One pass over an event starting at `p` ('{') whose end is not known yet (bytes up to `end`,
  // kSplitterPadding readable after it): parses and takes it with the fast path and returns its
  // length, or returns 0 and takes nothing (not sure, not complete, or dropped by lean reading:
  // the splitter then cuts the event and calls parse()).
  size_t parse_at(const char* p, const char* end, uint64_t offset);

  const SkipCounts& skipped() const { return skipped_; }
  // Smallest ts seen (ns on the trace clock), for deciding whether times are epoch-based.
  int64_t min_ts_ns() const { return min_ts_ns_; }
  uint64_t parsed() const { return parsed_; }
  // After the Timeline's rows were moved out (Timeline::append_and_clear): zero the counts, so the
  // parser reads the next part of a file as if new (its interned strings stay valid).
  void rebind();

  // One event's fields as read (views into the event's bytes, valid during parse()).
  struct Event {
    char ph = 0;
    std::string_view cat, name, flow_bp;
    int64_t pid = kNone, tid = kNone;
    int64_t ts = 0, dur = 0;
    bool has_ts = false, has_dur = false;
    int64_t id = kNone;
    // args
    int64_t external_id = kNone, correlation = kNone, device = kNone, stream = kNone, cbid = kNone;
    int64_t sequence = kNone, bytes = kNone, registers = kNone, shared_mem = kNone, graph_id = kNone;
    int64_t python_id = kNone, python_parent = kNone;
    int64_t wait_stream = kNone, wait_record_corr = kNone;  // cuda_sync "Stream Wait Event" rows
    std::array<uint32_t, 3> grid{0, 0, 0}, block{0, 0, 0};
    std::string_view input_dims, input_types, concrete_inputs, kind;
    // MTIA device events (mtia_ccp_events): a DMA's args.direction and args.size (bytes).
    std::string_view direction;
    int64_t size = kNone;
    // NCCL/RCCL collective metadata (kernels and record_param_comms): Timeline::collectives.
    std::string_view coll_name, coll_dtype, pg_name, pg_desc;
    int64_t in_nelems = kNone, out_nelems = kNone, group_size = kNone, coll_seq = kNone;
    // "[memory]" instant events (profile_memory): Addr, Bytes, Total Allocated, Total Reserved,
    // Device Id, Device Type. Timeline::memory_events.
    int64_t mem_addr = kNone, mem_bytes = kNone, mem_total_alloc = kNone, mem_total_res = kNone;
    int64_t mem_device = kNone, mem_device_type = kNone;
    bool lean_skip = false;  // skipped unread by the lean-reading filters
  };
  // Whether the lean-reading filters drop an event of this phase, category and name.
  bool lean_drops(char ph, std::string_view cat, std::string_view name) const;

 private:
  // The fast path (fast_event.cpp): a strict scanner for well-formed, escape-free, ASCII events.
  // false: not sure, the simdjson path reads the event (and reports any damage) instead.
  bool fast_read(std::string_view json, Event& ev) const;
  // The object at `p` (fast path); its end in `*stop`. lean: stop early at a lean-dropped event.
  bool fast_object(const char* p, const char* end, Event& ev, const char** stop, bool lean) const;
  bool read_event(std::string_view json, Event& ev, simdjson::error_code& err, std::string& why);
  bool read_args(simdjson::ondemand::value& v, Event& ev, const char* doc_end, std::string& why);
  void emit(const Event& ev, uint64_t offset);
  void push_collective(const Event& ev, int64_t dur, bool on_gpu, int32_t device, int64_t stream);
  void push_memory(const Event& ev, uint64_t offset);
  void annotation_args(const Event& ev, AnnotationRow& a, uint64_t offset);
  void bad_event(const std::string& why, uint64_t offset);

  Timeline& tl_;
  std::string path_;
  simdjson::ondemand::parser parser_;
  SkipCounts skipped_;
  int64_t min_ts_ns_ = INT64_MAX;
  uint64_t parsed_ = 0;
  const std::function<bool(std::string_view)>* keep_cpu_op_ = nullptr;
  bool skip_flows_ = false;
  // Interned category names for flows, so a flow row costs no hashing.
  StrId fwdbwd_ = kNoStr;
};

}  // namespace goblin::trace::kineto
