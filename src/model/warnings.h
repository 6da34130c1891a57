// The one catalogue of the warnings goblin's readers and checks emit (issue #26), kept the way
// Perfetto keeps its stats list: every warning names an entry here, so JSON output can carry a
// stable id a script can match on (the message text is free to improve), `goblin
// --list-warnings` prints the list and docs/warnings.md cannot drift from it (a test compares
// them). The catalogue is code, not a data/ file: each `tl.warn(W::...)` must name an id the
// compiler checks, and an entry states what goblin itself does, not a fact about the world.
//
// X(id, severity, description): `id` is snake_case and stable (never renamed or reused: scripts
// match on it); severity is info (nothing was lost, the input is unusual), warning (figures may
// be skewed or an attribution is weaker) or data_loss (some of the input was dropped); the
// description says what it means and what to do, in one line.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

namespace goblin {

// clang-format off
#define GOBLIN_WARNINGS(X) \
  /* checks on every timeline (Timeline::validate) */ \
  X(shared_correlation_id, warning, "Most kernels share one correlation id, so the ids are damaged; kernel-to-launch and kernel-to-op attribution is unreliable. Re-record the trace.") \
  X(shared_external_id, warning, "Most CPU ops share one External id, so the ids are damaged; kernel-to-op attribution is unreliable. Re-record the trace.") \
  X(negative_duration, warning, "Events end before they start (a damaged or edited trace); each is counted as 0 ns. Check how the file was produced.") \
  X(zero_duration_kernels, info, "Kernels with zero duration: the profiler could not time them (CUPTI 0/0); they add nothing to busy time.") \
  X(names_not_utf8, info, "Some names held bytes that are not UTF-8 (a damaged file or another encoding); each such byte is shown as U+FFFD so every output stays valid.") \
  X(names_cut, data_loss, "Some names were longer than goblin keeps (64 KiB) and were cut, with a note of how many bytes were dropped.") \
  X(timestamp_out_of_range, data_loss, "Events lie further than 2^62 ns (146 years) from the clock's origin (a damaged or edited trace: 9e15 us, say); each was clamped into that range with duration 0 so no span or sum overflows. Check how the file was produced.") \
  X(stream_overlap, warning, "Kernels overlap on one stream, which one stream cannot do; busy time uses interval unions, but sums per kernel or category count the overlap twice.") \
  /* reading a run directory, several inputs */ \
  X(input_refused, warning, "A file in the directory leads outside the directories the server may read (a symbolic link) or is not a regular file; it was not opened.") \
  X(input_skipped, info, "A file in the run directory is not a format goblin reads and was skipped. Nothing to do unless it should have been read.") \
  X(input_damaged, data_loss, "A file in the run directory is damaged (truncated, corrupt); what was read before the damage is kept. Re-copy or re-record the file.") \
  X(clocks_incomparable, warning, "The run's files are on clocks that cannot be compared, so telemetry gives values (memory, utilisation), not timing against the trace.") \
  X(clocks_converted, info, "Wall-clock telemetry was placed on the trace's own clock by subtracting the trace's epoch base (baseTimeNanoseconds, the Nsight session start); nothing to do.") \
  /* PyTorch profiler / Kineto */ \
  X(kineto_damaged_event, data_loss, "A trace event could not be read (bad JSON, a missing or invalid field) and was skipped; the first offset points at it.") \
  X(kineto_unmodelled_phase, info, "Events of a phase goblin does not model (Kineto writes complete 'X' events) were skipped.") \
  X(kineto_unmodelled_category, info, "Events of a category goblin does not model were skipped.") \
  X(kineto_not_modelled, info, "Events goblin recognises but does not model were counted only (the count says how many).") \
  X(kineto_missing_dur, warning, "A complete event has no \"dur\"; its duration is taken as 0.") \
  X(kineto_trailing_bytes, info, "Bytes after the end of the JSON document were ignored (a concatenated or partly overwritten file).") \
  X(kineto_bad_device_properties, warning, "deviceProperties is not a list of objects; the device information it held is ignored (devices have no name or arch).") \
  X(kineto_bad_distributed_info, warning, "distributedInfo is not an object; rank and world size are unknown.") \
  X(kineto_bad_base_time, warning, "baseTimeNanoseconds is not an integer; timestamps stay relative, so epoch-based joins (telemetry) cannot line up.") \
  X(kineto_bad_metadata_json, info, "A top-level metadata value is not valid JSON and was ignored.") \
  /* Nsight Compute CSV */ \
  X(ncu_no_kernels, warning, "The Nsight Compute CSV has a header but no profiled kernels; check the ncu filters (--kernel-name, --launch-count).") \
  X(ncu_mixed_number_format, warning, "The CSV mixes English and European number formats; values were read as English. Export with one locale.") \
  X(ncu_row_bad_id, data_loss, "A row's \"ID\" is not a kernel number, so the row was skipped.") \
  X(ncu_bad_launch_shape, warning, "A grid or block size is not an \"(x, y, z)\" triple; the kernel's launch shape is lost (occupancy figures missing).") \
  X(ncu_row_short, data_loss, "A row has fewer fields than the header (a truncated file?); its last, possibly cut, field was dropped.") \
  X(ncu_non_numeric_metric, info, "Some metric values are not numbers (n/a, text) and were skipped.") \
  /* Nsight Systems SQLite */ \
  X(nsys_no_kernel_table, warning, "The export has no kernel table: CUDA tracing was off or no kernel ran. Record with --trace=cuda.") \
  X(nsys_missing_string_id, warning, "A row refers to a StringIds entry that does not exist; its name is empty.") \
  X(nsys_row_missing_times, data_loss, "Rows without start/end were skipped.") \
  X(nsys_row_impossible_times, data_loss, "Rows whose end is before their start (or out of range) were skipped.") \
  X(nsys_open_nvtx_range, info, "An NVTX range has no end (still open when the capture stopped); it is kept with duration 0.") \
  X(nsys_clock_base_differs, warning, "This export's session start differs from the clock base another input set; its times are relative to its own session start.") \
  /* rocprof, rocprofv3 */ \
  X(rocprof_row_short, warning, "A CSV row has fewer fields than the header (a truncated file?); the missing fields are read as absent.") \
  X(rocprof_row_long, info, "A CSV row has more fields than the header; the extra fields are ignored.") \
  X(rocprof_unclosed_quote, data_loss, "A quoted CSV field runs over several lines (an unclosed quote?); those lines were skipped.") \
  X(rocprof_bad_value, warning, "A column that should hold a number does not; that value is ignored.") \
  X(rocprof_bad_times, data_loss, "A record has no valid begin/end time (missing, negative or out of range) and was skipped.") \
  X(rocprof_no_timestamps, warning, "The rocprof CSV has no begin/end columns: dispatches are not placed on the timeline, only their counters are read.") \
  X(rocprof_process_not_analysed, info, "A process lane of rocprof results.json is not one goblin analyses.") \
  X(rocprof_event_without_process, data_loss, "An event's process has no process_name, so its lane is unknown and the event was skipped.") \
  X(rocprof_kd_suffix_stripped, info, "Kernel names had the code-object suffix ' [clone .kd]' / ' (.kd)' stripped so they match across tools.") \
  X(rocprof_summary_statistics, info, "A summary statistics file was kept in metadata (aggregates, not timeline events).") \
  X(rocprof_empty_kernel_name, warning, "A kernel record has an empty name.") \
  X(rocprof_bad_agent, warning, "A record names no valid agent (GPU); its device is unknown or the agent was skipped.") \
  X(rocprof_bad_counter, data_loss, "A counter row has no valid Counter_Value and was skipped.") \
  X(rocprof_domain_not_analysed, info, "Records of a domain goblin has no timeline table for were read but not analysed.") \
  X(rocprof_missing_kernel_symbol, warning, "A kernel dispatch names a kernel_id missing from kernel_symbols; the kernel has no name.") \
  X(rocprof_missing_operation_name, info, "An operation id is missing from the string tables; the operation is named by number.") \
  /* GPU telemetry: nvidia-smi, amd-smi, rocm-smi */ \
  X(telemetry_no_samples, warning, "The telemetry file has a header but no samples.") \
  X(telemetry_no_timestamps, warning, "The telemetry has no timestamps: samples are placed in row order (1 s apart) or by sample index, not measured time. Record with timestamps.") \
  X(telemetry_preamble_ignored, info, "Lines before the first header (banners, tool warnings) were ignored.") \
  X(telemetry_header_changed, info, "The column set changed mid-file; the following rows are read with the new header.") \
  X(telemetry_guessed_header, info, "A CSV without a header line was read by matching its columns, value by value, to a known query; keep the header to be certain.") \
  X(telemetry_no_device_index, info, "No index column: devices are numbered in order of first appearance.") \
  X(telemetry_no_device, warning, "No index, uuid or bus id column: samples have no device.") \
  X(telemetry_row_width, warning, "A row has a different number of fields than its header; fields were matched by position up to the shorter.") \
  X(telemetry_row_width_skipped, data_loss, "A row has a different number of fields than its header (truncated?) and was skipped.") \
  X(telemetry_row_short, data_loss, "A row has fewer fields than the header (truncated); its last, possibly cut, field was dropped.") \
  X(telemetry_bad_device, data_loss, "A row's device field is not a GPU number, so the row was skipped.") \
  X(telemetry_bad_timestamp, data_loss, "A row's timestamp does not parse, so the row was skipped.") \
  X(telemetry_unavailable_reading, info, "Readings the tool could not take ([N/A], [Not Supported], '-') were skipped.") \
  X(telemetry_non_numeric, warning, "A value that should be a number is text; that value was skipped.") \
  X(telemetry_metric_empty, info, "A column was N/A or not a number in every row of a block: no samples for that metric.")
// clang-format on

enum class Severity : uint8_t { info, warning, data_loss };

#define GOBLIN_WARNING_ENUM(id, severity, description) id,
enum class WarningId : uint16_t { GOBLIN_WARNINGS(GOBLIN_WARNING_ENUM) };
#undef GOBLIN_WARNING_ENUM
using W = WarningId;  // call sites read tl.warn(W::kineto_damaged_event, ...)

struct WarningInfo {
  std::string_view id;
  Severity severity;
  std::string_view description;
};

#define GOBLIN_WARNING_INFO(id, severity, description) WarningInfo{#id, Severity::severity, description},
inline constexpr WarningInfo kWarningCatalogue[] = {GOBLIN_WARNINGS(GOBLIN_WARNING_INFO)};
#undef GOBLIN_WARNING_INFO

// Every entry, in declaration order (= WarningId order).
constexpr std::span<const WarningInfo> warning_catalogue() { return kWarningCatalogue; }
constexpr const WarningInfo& warning_info(WarningId id) { return kWarningCatalogue[static_cast<size_t>(id)]; }
constexpr std::string_view warning_id_name(WarningId id) { return warning_info(id).id; }
constexpr std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::info:
      return "info";
    case Severity::warning:
      return "warning";
    case Severity::data_loss:
      return "data_loss";
  }
  return "warning";
}

}  // namespace goblin
