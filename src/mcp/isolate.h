// A tool call in a child process. Reading a trace is long, CPU-bound library code with no
// cancellation points (and a blocking system call can hang for good on a strange file system);
// a thread cannot be stopped, a process can. So the stdio server runs every tool that holds no
// session state in a forked child: the server's reader stays free, and a cancelled call, one past
// its deadline or one still running at shutdown is SIGKILLed with whatever it started. The child
// sends its outcome back as one JSON document over a pipe; a crash in it is an error, not the
// server's end.
#pragma once
#include <functional>
#include <mutex>
#include <string>

#include "mcp/tools.h"

namespace goblin::mcp {

// Runs `fn` in a child process and returns its outcome; while it runs, `ctx.is_cancelled()` is
// polled every 50 ms and ends the child (the error then names the cause). `max_bytes` bounds what
// the child may send back.
ToolOutcome run_isolated(const std::string& tool, const std::function<ToolOutcome()>& fn, const CallContext& ctx,
                         size_t max_bytes);

// The error a stopped call answers with: the deadline named, or the shutdown.
Error stop_error(const std::string& tool, const CallContext& ctx);

// Serialises fork() with threads that take library locks (the transport's reaper, which calls
// kill_all_children): a child must not start with such a lock held by a thread it does not have.
std::mutex& fork_mutex();

}  // namespace goblin::mcp
