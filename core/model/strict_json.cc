#include "core/model/strict_json.h"

#include <set>
#include <string>
#include <vector>

#include "core/error.h"

namespace heed {

nlohmann::json ParseStrictJson(const uint8_t* begin, const uint8_t* end) {
  std::vector<std::set<std::string>> keys;  // per open object
  return nlohmann::json::parse(
      begin, end,
      [&keys](int, nlohmann::json::parse_event_t event, nlohmann::json& v) {
        using E = nlohmann::json::parse_event_t;
        if (event == E::object_start) keys.emplace_back();
        if (event == E::object_end) keys.pop_back();
        if (event == E::key &&
            !keys.back().insert(v.get<std::string>()).second) {
          throw Error("repeats the key '" + v.get<std::string>() + "'");
        }
        return true;
      });
}

}  // namespace heed
