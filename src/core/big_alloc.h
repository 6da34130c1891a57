// An allocator for the model's large columns: allocations of 2 MiB and more are their own
// 2 MiB-aligned anonymous mapping advised MADV_HUGEPAGE, so filling them takes one page fault per
// 2 MiB instead of one per 4 KiB. Why: on the paravirtualised machines goblin is measured on, a
// first touch of a 4 KiB page costs ~12 us (shadow paging), and a GB-scale trace's Timeline is
// ~60 k such pages: most of an ingest's time went to faults (bench/README.md § page faults).
// Smaller allocations go to operator new as before. Where transparent huge pages are off, the
// advice is ignored and the mapping behaves like malloc's own.
#pragma once
#include <cstddef>
#include <new>

namespace goblin {

namespace big_alloc {
inline constexpr size_t kHuge = size_t{2} << 20;
void* map(size_t bytes);            // 2 MiB-aligned, rounded up to 2 MiB; throws bad_alloc
void unmap(void* p, size_t bytes);  // bytes as given to map()
// Gives back the pages of a mapped buffer past its first `used` bytes (a huge page holding the
// last row is otherwise resident whole: ~1 MiB per column on average). The buffer stays valid:
// those bytes read as zero when touched again. Buffers under kHuge are left alone.
void release_tail(void* p, size_t used, size_t capacity);
}  // namespace big_alloc

template <class T>
struct BigAlloc {
  using value_type = T;
  BigAlloc() noexcept = default;
  template <class U>
  BigAlloc(const BigAlloc<U>&) noexcept {}
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes >= big_alloc::kHuge) return static_cast<T*>(big_alloc::map(bytes));
    return static_cast<T*>(::operator new(bytes));
  }
  void deallocate(T* p, size_t n) noexcept {
    const size_t bytes = n * sizeof(T);
    if (bytes >= big_alloc::kHuge)
      big_alloc::unmap(p, bytes);
    else
      ::operator delete(p);
  }
  template <class U>
  bool operator==(const BigAlloc<U>&) const noexcept {
    return true;
  }
};

}  // namespace goblin
