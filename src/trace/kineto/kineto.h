// Kineto reader entry points below read_kineto (trace/readers.h): reading from any ByteSource
// lets the fuzzer and tests feed bytes without files, with any chunk size.
#pragma once
#include <optional>

#include "core/io.h"
#include "model/timeline.h"
#include "trace/readers.h"

namespace goblin::trace::kineto {

// Streams `src` through the splitter and event parser into `tl`. Damaged input keeps every
// event read before the damage and returns a Malformed error with the byte offset.
Status read_source(ByteSource& src, Timeline& tl, const ReadOptions& opt);

// Reads the plain (uncompressed) file `path` of `size` bytes on two threads, each splitting and
// parsing one half (read_kineto uses it for files of ReadOptions::parallel_min_bytes or more).
// The Timeline, status and warnings are identical to read_source's. nullopt (nothing read) when
// no cut point was found; `*kept` says whether the second thread's half was used (else this
// thread read on alone from the cut).
std::optional<Status> read_plain_two_threads(const std::string& path, uint64_t size, Timeline& tl,
                                             const ReadOptions& opt, bool* kept = nullptr);

// Reads `src` in blocks of about opt.block_bytes, split and parsed on opt.threads threads and
// merged in file order (batch_reader.cpp). The Timeline, status and warnings are identical to
// read_source's.
Status read_blocks(ByteSource& src, Timeline& tl, const ReadOptions& opt);

// The event parser's fast path (fast_event.cpp) on or off for the whole process (on by default):
// tests read every fixture both ways and compare, benchmarks measure what it saves.
void set_fast_path_enabled(bool on);
bool fast_path_enabled();

// A ByteSource over bytes in memory (tests, fuzzer). `max_read` caps each read() to exercise
// chunk boundaries.
std::unique_ptr<ByteSource> memory_source(std::string name, std::string_view bytes, size_t max_read = SIZE_MAX);

}  // namespace goblin::trace::kineto
