// An error a verb wrote for the command line, as a JSON door's caller reads it. Verbs and the
// libraries under them name the CLI's flags ("--what-if wants CATEGORY=k", "pass --gpu ID"); a
// caller of the MCP server, the HTTP API or the Python module passes arguments instead and cannot
// set the server's own options. So app::call rewrites every error a JSON door returns once, here:
// a flag of the verb's own fields becomes the argument's name (`what_if`, `gpu`), a server option
// or a CLI-only flag becomes what that door's caller can do, and the CLI's pointers to `goblin
// verbs` become the door's own listing.
#pragma once
#include <string>
#include <string_view>

#include "app/verb.h"

namespace goblin::app {

std::string door_text(const Verb& v, std::string_view text, Door door);

}  // namespace goblin::app
