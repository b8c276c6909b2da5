// JSON as the model file needs it: an object that repeats a key is refused
// (nlohmann's parser would keep the last value silently).
#ifndef HEED_CORE_MODEL_STRICT_JSON_H_
#define HEED_CORE_MODEL_STRICT_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>

namespace heed {

// Parses [begin, end); throws heed::Error ("repeats the key 'k'") for a
// repeated key and nlohmann::json::exception for text that is not JSON.
nlohmann::json ParseStrictJson(const uint8_t* begin, const uint8_t* end);

}  // namespace heed

#endif  // HEED_CORE_MODEL_STRICT_JSON_H_
