// Where goblin's own files are when it runs: its executable, and the run-time files it ships
// (tools/measure_ceilings.py, tools/kernel_harness.py, workloads/train.py, the Python hook)
// wherever goblin was built or installed. No path of the build tree is compiled in: an installed
// goblin looks beside its binary (BIN/../share/goblin), and a goblin in its build tree reads the
// source directory from the goblin-runtime-root file CMake writes next to it, so a binary copied
// elsewhere never reaches back into the checkout it was built from.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace goblin {

// The running executable's path ("" when /proc/self/exe cannot be read).
std::string self_exe_path();

// The directories run-time files are looked up under, in order: EXE_DIR/../share/goblin (an
// installed layout), then the directory named by EXE_DIR/goblin-runtime-root (a build tree).
// Only directories that exist are listed.
std::vector<std::string> runtime_roots();

// ROOT/REL for the first of runtime_roots() where it is a regular file; "" when none is.
std::string runtime_file(std::string_view rel);

// tools/NAME: `given` when not empty; else $GOBLIN_TOOLS_DIR/NAME, then runtime_file("tools/NAME").
// "" when none exists.
std::string find_tool_script(const std::string& name, const std::string& given);

}  // namespace goblin
