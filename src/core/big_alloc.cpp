#include "core/big_alloc.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

namespace goblin::big_alloc {

namespace {
size_t rounded(size_t bytes) { return (bytes + kHuge - 1) & ~(kHuge - 1); }
// GOBLIN_HUGEPAGES=0 leaves the mappings to 4 KiB pages (to compare, or where huge pages are
// unwelcome on a shared machine).
bool advise() {
  static const bool on = [] {
    const char* e = std::getenv("GOBLIN_HUGEPAGES");
    return !(e && e[0] == '0');
  }();
  return on;
}
}  // namespace

void* map(size_t bytes) {
  const size_t len = rounded(bytes);
  // Map 2 MiB more than needed and trim, so the kept range starts on a 2 MiB boundary.
  void* raw = mmap(nullptr, len + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHuge - 1) & ~(uintptr_t{kHuge} - 1);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = start + len + kHuge;
  if (end > aligned + len) munmap(reinterpret_cast<void*>(aligned + len), end - (aligned + len));
  void* p = reinterpret_cast<void*>(aligned);
#ifdef MADV_HUGEPAGE
  if (advise()) madvise(p, len, MADV_HUGEPAGE);  // advice only: without THP, 4 KiB pages as usual
#endif
  return p;
}

void unmap(void* p, size_t bytes) { munmap(p, rounded(bytes)); }

void release_tail(void* p, size_t used, size_t capacity) {
  if (!p || capacity < kHuge) return;
  constexpr uintptr_t kPage = 4096;
  const auto base = reinterpret_cast<uintptr_t>(p);
  const uintptr_t from = (base + used + kPage - 1) & ~(kPage - 1);
  const uintptr_t to = base + rounded(capacity);
  if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

}  // namespace goblin::big_alloc
