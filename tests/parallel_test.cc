// RunParallel: every index on a thread, exceptions rethrown as their type on
// the calling thread.
#include <doctest/doctest.h>

#include <atomic>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"

namespace heed {
namespace {

TEST_CASE("RunParallel runs every index once, on threads of their own") {
  std::vector<std::thread::id> ran(5);
  std::atomic<int> calls{0};
  RunParallel(ran.size(), [&](size_t i) {
    ran[i] = std::this_thread::get_id();
    ++calls;
  });
  CHECK(calls == 5);
  CHECK((ran[0] == std::this_thread::get_id()));
  for (size_t i = 1; i < ran.size(); ++i) {
    CHECK((ran[i] != std::this_thread::get_id()));
    for (size_t j = 0; j < i; ++j) CHECK((ran[i] != ran[j]));
  }
  RunParallel(0, [&](size_t) { ++calls; });
  CHECK(calls == 5);
}

TEST_CASE("RunParallel rethrows what a thread threw, as its type") {
  auto fail_on = [](size_t bad, auto thrower) {
    return [=](size_t i) {
      if (i == bad) thrower();
    };
  };
  CHECK_THROWS_AS(RunParallel(3, fail_on(2, [] { throw Cancelled(); })),
                  Cancelled);
  CHECK_THROWS_AS(RunParallel(3, fail_on(1, [] { throw std::bad_alloc(); })),
                  std::bad_alloc);
  try {
    RunParallel(3, fail_on(1, [] { throw TextError(7, "is too long"); }));
    FAIL("no exception");
  } catch (const TextError& e) {
    CHECK(e.text() == 7);
    CHECK(e.reason() == "is too long");
  }
  CHECK_THROWS_WITH_AS(
      RunParallel(2, fail_on(1, [] { throw std::out_of_range("index 9"); })),
      "index 9", std::out_of_range);
  CHECK_THROWS_AS(RunParallel(2, fail_on(0, [] { throw 42; })), int);
}

TEST_CASE("RunParallel waits for every thread and throws the first by index") {
  std::atomic<int> finished{0};
  auto fail_from_2 = [&](size_t i) {
    ++finished;
    if (i >= 2) throw Error("thread " + std::to_string(i));
  };
  CHECK_THROWS_WITH_AS(RunParallel(4, fail_from_2), "thread 2", Error);
  CHECK(finished == 4);
}

}  // namespace
}  // namespace heed
