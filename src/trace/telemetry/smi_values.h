// Cell values shared by the amd-smi and rocm-smi readers: what counts as "no reading" and how a
// bare number is read. One helper so both readers accept the same spellings (amdsmi_cli writes
// "N/A", rocm-smi releases have written "N/A" and "n/a").
#pragma once
#include <optional>
#include <string_view>

namespace goblin::trace::smi {

// A finite number filling the whole cell (blanks around it ignored); nullopt otherwise.
std::optional<double> to_number(std::string_view s);

// An absent reading: empty, "N/A", "NA" or "n/a" (blanks around it ignored).
bool is_na(std::string_view s);

}  // namespace goblin::trace::smi
