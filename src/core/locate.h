// Where goblin's own files are when it runs: its executable, and the helper scripts it ships
// under tools/ (measure_ceilings.py, kernel_harness.py), wherever goblin was built or installed.
#pragma once
#include <string>

namespace goblin {

// The running executable's path ("" when /proc/self/exe cannot be read).
std::string self_exe_path();

// tools/NAME: `given` when not empty; else the first that exists of $GOBLIN_TOOLS_DIR/NAME,
// tools/NAME beside the executable, ../tools/NAME, ../share/goblin/tools/NAME, and
// SOURCE_DIR/tools/NAME (the checkout goblin was built from). "" when none exists.
std::string find_tool_script(const std::string& name, const std::string& given, const std::string& source_dir);

}  // namespace goblin
