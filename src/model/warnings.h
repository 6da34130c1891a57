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
#include <iterator>
#include <optional>
#include <span>
#include <string>
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
  X(telemetry_device_mismatch, warning, "Telemetry beside the trace names a different GPU (name, memory size or vendor) than the trace's device of the same id: the trace's device is kept as the run's GPU, and the telemetry probably comes from another machine or run. Check which files belong to this run.") \
  X(rocprof_cross_checked, info, "A rocprof recording (rocprofv3 CSV/JSON, rocpd, legacy rocprof) beside a Kineto trace of the same run was matched kernel by kernel to the Kineto trace to find their clock offset; the Kineto kernels are counted, the rocprof ones only cross-check them. Nothing to do.") \
  X(clocks_converted, info, "Wall-clock telemetry was placed on the trace's own clock by subtracting the trace's epoch base (baseTimeNanoseconds, the Nsight session start); nothing to do.") \
  /* PyTorch profiler / Kineto */ \
  X(kineto_damaged_event, data_loss, "A trace event could not be read (bad JSON, a missing or invalid field) and was skipped; the first offset points at it.") \
  X(kineto_unmodelled_phase, info, "Events of a phase goblin does not model (Kineto writes complete 'X' events) were skipped.") \
  X(kineto_unmodelled_category, info, "Events of a category goblin does not model were skipped.") \
  X(kineto_not_modelled, info, "Events goblin recognises but does not model were counted only (the count says how many).") \
  X(kineto_memory_events, info, "The trace's profile_memory allocation events ([memory]) were read into the memory_events table (the count says how many): goblin memory, the --memory option of metrics and audit, and the memory_events query table use them; the step and kernel figures do not.") \
  X(kineto_missing_dur, warning, "A complete event has no \"dur\"; its duration is taken as 0.") \
  X(kineto_trailing_bytes, info, "Bytes after the end of the JSON document were ignored (a concatenated or partly overwritten file).") \
  X(kineto_bad_device_properties, warning, "deviceProperties is not a list of objects; the device information it held is ignored (devices have no name or arch).") \
  X(kineto_bad_distributed_info, warning, "distributedInfo is not an object; rank and world size are unknown.") \
  X(kineto_bad_base_time, warning, "baseTimeNanoseconds is not an integer; timestamps stay relative, so epoch-based joins (telemetry) cannot line up.") \
  X(kineto_bad_metadata_json, info, "A top-level metadata value is not valid JSON and was ignored.") \
  X(kineto_bad_annotation_args, data_loss, "A user annotation's Input Dims / Input type are not a list of shapes (non-negative integers, at most 2^48 elements a tensor) and a list of type names of the same length; the annotation is kept without them, so the collective it encloses is not sized from it.") \
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
  X(rocpd_schema_version, warning, "The rocpd database says it has a schema version other than 3, the one goblin reads; tables and columns goblin needs were found, but figures may miss what the newer schema added.") \
  X(rocpd_missing_string, warning, "A rocpd row refers to a rocpd_string id that does not exist; its name is empty.") \
  X(jax_damaged_event, data_loss, "A JAX trace event could not be read (bad JSON, a missing or invalid field) and was skipped; the first offset points at it.") \
  X(jax_unnamed_process, warning, "A JAX trace event belongs to a process the trace never named (no process_name metadata): it is read as host work, so GPU work in it is not counted as such.") \
  X(rocpd_several_processes, warning, "The rocpd database holds several processes (or nodes): they are read as one timeline here. `goblin ranks DB` reads one rank per process to compare them.") \
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
  X(telemetry_metric_empty, info, "A column was N/A or not a number in every row of a block: no samples for that metric.") \
  /* parse-config: the config scanners (config/scan_*.cpp, config/workload_config.cpp) */ \
  X(config_several_yaml_documents, warning, "The YAML file holds more than one document (---): only the first is read, and a patch edits only the first. Split the file or put the training config first.") \
  X(config_env_line_ignored, info, "A line of the env file is not VAR=value (nor export/set VAR=value) and was ignored; past 20 such lines only their number is given.") \
  X(config_expression_not_evaluated, warning, "A field is set by an expression goblin does not evaluate; its value is unknown and a patch leaves it. Use a literal if goblin should read or patch it.") \
  X(config_unrecognised_precision, warning, "A precision field holds a value goblin does not recognise; the run's precision is taken from the other fields, or unknown.") \
  X(config_invalid_value, warning, "A field holds a value of the wrong kind (text for a number, say) and was left unset. Check the line named.") \
  X(config_value_overridden, info, "A later assignment overrides the value a call set; the later one is what the script runs with, and what goblin reports.") \
  X(config_set_twice, warning, "A field is set more than once; goblin keeps the first and names both lines. Remove one so it is clear which applies.") \
  X(config_precision_from_kwargs, warning, "A call takes **kwargs that may set bf16 or fp16, so the precision is unknown. Set the precision explicitly for goblin to read it.") \
  /* goblin metrics (RunMetrics, analysis/run_metrics.cpp; the live runner, run/live_runner.cpp) */ \
  X(metrics_input_damaged, data_loss, "The input was damaged; the figures cover what was read before the damage. Re-copy or re-record the file.") \
  X(metrics_analysis_unavailable, warning, "goblin metrics could not analyse the run directory; only the runner's own figures (step time, tokens/s, telemetry) are reported.") \
  X(step_window_caveat, warning, "Step detection met something that shapes the step windows (overlapping step annotations, GPU work before the first step, a partial or open-ended step); per-step figures cover the windows as described.") \
  X(waste_budget_note, info, "A note on how a waste-budget bucket was estimated (its basis, or launches it could not judge); nothing to do.") \
  X(every_step_partial, warning, "Every step is partial (cut by the capture), so per-step figures average partial steps. Profile more steps.") \
  X(nothing_to_measure, warning, "The input has no GPU activity and no steps: the waste budget is unobserved.") \
  X(no_gpu_activity, warning, "The input holds no kernel, memcpy or memset (a CPU-only profile, or GPU tracing was off): gpu_util_pct is null and the waste budget describes host time only.") \
  X(step_time_unobserved, info, "No complete step and no GPU activity to time: step_time_s is null. Profile with step annotations (ProfilerStep).") \
  X(step_time_disagrees, warning, "The step_time_seconds the trace asserts is more than 10 % from what its steps measure; check which the workload timed.") \
  X(tokens_per_sec_unobserved, info, "No tokens_per_sec in the trace and no --tokens-per-step: tokens/s is null. Pass --tokens-per-step.") \
  X(tokens_per_sec_disagrees, warning, "The tokens_per_sec the trace asserts is more than 10 % from what its tokens per step over the measured step time give; the asserted figure is not what this trace measures.") \
  X(throughput_sources_disagree, warning, "Two measures of one figure (tokens/s or step time from the trace's steps, the workload's own timer, the trace's metadata) are more than 2 % apart but within 10 %: the figure shown names its source (tokens_per_sec_source, window); check which the workload timed.") \
  X(hbm_unobserved, info, "No memory telemetry: hbm_peak_gb and hbm_avg_gb are null. Pass a run directory with nvidia-smi/amd-smi/rocm-smi output.") \
  X(memory_headroom_unobserved, info, "The device with the HBM peak has no known capacity (memory.total): memory_headroom_gb is null.") \
  X(hbm_refused, warning, "Telemetry reports more memory used than the device holds (telemetry of another card, or damaged samples); the HBM figures are null.") \
  X(mfu_unobserved, info, "MFU could not be computed (no steps, no shapes, no FLOP-counted ops, a GPU or peak not in the spec database, or no step time); mfu_pct is null and the message says which.") \
  X(flops_not_counted, warning, "Some op instances have no FLOP model or usable shapes and were not counted: flops_per_step and mfu_pct are lower bounds.") \
  X(flops_windowed_by_cpu_start, warning, "No CPU ProfilerStep spans: FLOPs are windowed by CPU op start inside GPU-side step windows, so ops launched before their GPU work began may fall in the previous window.") \
  X(mfu_above_100, warning, "mfu_pct is above 100 %: the FLOPs per step or the step time are inconsistent. Check the step windows and the trace's shapes.") \
  X(above_physical_peak, warning, "A figure is above its physical ceiling (a roofline, a datatype path's peak): most often the shapes or the datatype were guessed wrong, or the kernel ran on a faster unit than assumed (fp32 GEMMs as TF32). The figure is flagged, not trusted.") \
  X(window_on_prefetched_batches, warning, "The measured steps ran on batches the DataLoader prefetched before the first step, so the window cannot show a data-loading bottleneck. Measure more steps.") \
  X(bench_step_time_interval, info, "The bench's median step time with its 95 % bootstrap interval (and A/A noise floor where measured); nothing to do.") \
  X(gpu_util_from_telemetry, info, "gpu_util_pct comes from GPU telemetry (busy samples), not from a step trace; nothing to do.") \
  X(gpu_util_unobserved, info, "No GPU telemetry in these runs: gpu_util_pct is not observed (0 means unknown).") \
  X(untyped_note, info, "A warning read from a file an older goblin wrote, before warnings carried ids; read its message.") \
  /* goblin triage (analysis/triage_artifacts.cpp: profile_metadata.json) */ \
  X(triage_negative_duration_skipped, warning, "GPU ops with a negative duration were left out of the exposure figures. Check how the file was produced.") \
  X(triage_no_gpu_ops, warning, "The input holds no GPU kernels, memcpys or memsets: every triage table is empty. Record with GPU tracing on.") \
  X(triage_no_python_frames, info, "No python_function frames: Python locations are missing. Profile with with_stack=True.") \
  X(triage_vendor_signals_disagree, warning, "The trace's vendor signals (device names, kernel names, versions) disagree; the vendor reported, and the arch advice that follows from it, may be wrong; the message names the first conflict.") \
  /* goblin trace (run/tracer.cpp: the summary of each trace the CUPTI tracer wrote) */ \
  X(tracer_dropped_records, data_loss, "CUPTI dropped activity records (its buffers filled faster than the tracer drained them): the trace lacks those kernels and copies, so counts and busy time are low. Trace a shorter window.")
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

// The id whose name is `name`; nullopt for a name the catalogue does not hold.
constexpr std::optional<WarningId> warning_id_from_name(std::string_view name) {
  for (size_t i = 0; i < std::size(kWarningCatalogue); ++i)
    if (kWarningCatalogue[i].id == name) return static_cast<WarningId>(i);
  return std::nullopt;
}

// One warning: its catalogue entry and what a person reads. Readers fold repeats (Timeline::warn)
// into `count` and keep the first `byte_offset` or `line`; the analyses and the config scanners
// make one per finding (make_warning). Every warning goblin writes as JSON goes through the one
// serialiser in model/warning_json.h, so each is {id, severity, message, ...} wherever it appears.
struct Diagnostic {
  std::string message;
  std::string file;
  int64_t byte_offset = -1;
  int64_t line = -1;
  int64_t count = 1;  // identical diagnostics are folded; count says how many
  WarningId id{};     // its catalogue entry: JSON's "id" and "severity"
};
using Warning = Diagnostic;

inline Warning make_warning(WarningId id, std::string message) {
  Warning w;
  w.id = id;
  w.message = std::move(message);
  return w;
}

}  // namespace goblin
