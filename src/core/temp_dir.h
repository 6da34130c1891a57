// A fresh temporary directory, for doors that place outputs their caller did not name (the
// Python module's verbs without out=, each HTTP request's folder).
#pragma once
#include <string>
#include <string_view>

#include "core/status.h"

namespace goblin {

// A new, empty directory under $TMPDIR (else /tmp) named `prefix` + a random part, made with
// mkdtemp (mode 0700, never an existing path).
Result<std::string> make_temp_dir(std::string_view prefix);

}  // namespace goblin
