#include "core/ops/targets.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "core/error.h"
#include "hwy/targets.h"

namespace heed::ops {
namespace {

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  return s;
}

}  // namespace

std::vector<std::string> SimdTargets() {
  std::vector<std::string> names;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    names.emplace_back(hwy::TargetName(t));
  }
  return names;
}

std::string SimdTarget() {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  return targets.empty() ? "none" : hwy::TargetName(targets.front());
}

void LimitSimdTarget(const std::string& name) {
  std::string known;
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    if (Upper(name) == hwy::TargetName(t)) {
      // Highway numbers better targets with lower bits.
      hwy::DisableTargets(t - 1);
      return;
    }
    known += std::string(known.empty() ? "" : ", ") + hwy::TargetName(t);
  }
  throw Error("SIMD target '" + name +
              "' is not one this CPU and build have (" + known + ")");
}

}  // namespace heed::ops
