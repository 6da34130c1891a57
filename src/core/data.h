// Knowledge lives in data files (taxonomy, rules, GPU specs, metric schemas) under data/.
// They are compiled into the binary so goblin works from any directory; a user's directory
// (GOBLIN_DATA_DIR, or set_data_dir from --data-dir) overrides any file by the same path.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace goblin {

namespace data_detail {
struct EmbeddedFile {
  const char* path;
  std::string_view content;
};
extern const EmbeddedFile kFiles[];  // terminated by {nullptr, {}}
}  // namespace data_detail

void set_data_dir(std::string dir);
// The override directory (--data-dir / GOBLIN_DATA_DIR), empty when the embedded files are used.
const std::string& data_dir_override();
// Contents of data/<rel> (override dir first, then embedded). NotFound error otherwise.
Result<std::string> load_data_file(std::string_view rel);
// Relative paths of all data files under `prefix` (embedded and overrides, deduplicated, sorted).
std::vector<std::string> list_data_files(std::string_view prefix);
// Where a data file came from, for citations in output: "embedded:data/x" or the override path.
std::string data_file_origin(std::string_view rel);

// What is parsed from data files, loaded once per process and data directory (--data-dir /
// GOBLIN_DATA_DIR) and then shared read-only: the knowledge contexts' cache (DEVELOPING.md § One
// knowledge context). Thread-safe; a failed load is not cached (the next call reports it again).
template <class T>
class DataDirCache {
 public:
  // load: () -> Result<T>, run on the first call and whenever the data directory changed.
  template <class Load>
  Result<std::shared_ptr<const T>> get(Load&& load) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!value_ || dir_ != data_dir_override()) {
      ASSIGN_OR_RETURN(auto v, std::forward<Load>(load)());
      value_ = std::make_shared<const T>(std::move(v));
      dir_ = data_dir_override();
    }
    return value_;
  }

 private:
  std::mutex mu_;
  std::string dir_;
  std::shared_ptr<const T> value_;
};

}  // namespace goblin
