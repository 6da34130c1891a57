// The regular files of a directory down to a fixed depth, the one walk of the verbs that find
// traces in a folder a profiler wrote (goblin ranks' inputs, profile-server's output folder).
// A profiler writes its files at most two folders down (a per-host or per-rank folder, then a
// per-process one); going no deeper keeps a walk over a large tree (a home directory given by
// mistake) short. Unreadable folders are skipped, an error ends the walk with what was found.
#pragma once
#include <filesystem>
#include <vector>

namespace goblin {

// Regular files under `dir` at most `max_depth` folders below it (0: `dir`'s own files), sorted
// by path. Symlinked folders are not followed; a symlink to a regular file is listed.
std::vector<std::filesystem::path> regular_files_under(const std::filesystem::path& dir, int max_depth = 2);

}  // namespace goblin
