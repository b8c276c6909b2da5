// Float buffers that resize without zeroing. The decoder's key/value caches
// are large (layers × rows × steps × d_model) and written before they are
// read; zeroing them cost more than decoding itself on batched beam search
// (every page of a fresh allocation was touched).
#ifndef HEED_CORE_MODEL_BUFFER_H_
#define HEED_CORE_MODEL_BUFFER_H_

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace heed {

// std::allocator whose value-initialisation leaves trivial values as they
// are (default-initialisation).
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  explicit UninitializedAllocator(const UninitializedAllocator<U>& /*other*/) {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

// Elements added by resize() hold unspecified values until written.
using Buffer = std::vector<float, UninitializedAllocator<float>>;

}  // namespace heed

#endif  // HEED_CORE_MODEL_BUFFER_H_
