#include "core/temp_dir.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace goblin {

Result<std::string> make_temp_dir(std::string_view prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string templ = (base / fmt::format("{}XXXXXX", prefix)).string();
  if (::mkdtemp(templ.data()) == nullptr)
    return make_error(ErrorKind::Io,
                      fmt::format("cannot create a directory under {}: {}", base.string(), std::strerror(errno)),
                      base.string());
  return templ;
}

}  // namespace goblin
