// Figures held against a physical ceiling — a roofline's ideal time, a GPU's peak FLOP/s — cannot
// exceed 100 %: one that does means the model behind it is wrong (most often a wrong shape or
// dtype guess: the FLOPs or bytes were overcounted, or the op ran on a faster path than the peak
// it was compared with). The roofline, the triage kernel table and the metrics flag such a figure
// the same way through these helpers: a message that says so (a note or warning of the result), a
// JSON flag with the code "above_physical_peak" and a text marker, never a plain figure.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"

namespace goblin::hw {

struct AbovePeak {
  double pct = 0;       // the figure, in % of its ceiling (> 100)
  std::string figure;   // what was measured ("aten::gather [[..]] % of roofline", "mfu_dtype_path_pct")
  std::string ceiling;  // what it was held against ("the roofline", "the fp32 peak of H100-SXM")
  std::string message;  // figure, value, ceiling and what it most often means
};

// nullopt when `pct` is within its ceiling (≤ 100 %, or not finite).
std::optional<AbovePeak> above_physical_peak(double pct, std::string_view figure, std::string_view ceiling);

inline constexpr std::string_view kAbovePeakCode = "above_physical_peak";

// The JSON flag: {"code": "above_physical_peak", "pct", "ceiling", "why"}; null when not flagged.
Json above_peak_json(const std::optional<AbovePeak>& a);

// The text marker after a flagged figure ("879.1 % !! above the physical peak"): "" when not flagged.
inline constexpr std::string_view kAbovePeakMarker = "!!";
std::string above_peak_marker(const std::optional<AbovePeak>& a);

}  // namespace goblin::hw
