// Running a few pieces of work at once, one thread each, with what they
// throw reaching the caller.
#ifndef HEED_CORE_PARALLEL_H_
#define HEED_CORE_PARALLEL_H_

#include <cstddef>
#include <functional>

namespace heed {

// Runs fn(0..n-1), each on a thread of its own (the calling thread takes
// the first), waits for all of them, and rethrows the first exception, by
// index, any of them threw.
void RunParallel(size_t n, const std::function<void(size_t)>& fn);

}  // namespace heed

#endif  // HEED_CORE_PARALLEL_H_
