// JSON read with every object's keys once (jsononce.hpp): a set of the keys
// of each object open at the parse point, through the parser's callback.
#include "jsononce.hpp"

#include <cstring>
#include <set>
#include <vector>

#include "status.hpp"

namespace ltt {

nlohmann::json parse_json_once(const char* begin, const char* end, std::string& problem) {
  using json = nlohmann::json;
  problem.clear();
  // nlohmann's reader takes a NUL byte for the end of the text and ignores
  // what follows it; JSON has no raw NUL (not even in a string), so one is
  // malformed text like any other, said where it is.
  if (const void* nul = std::memchr(begin, '\0', static_cast<size_t>(end - begin)))
    throw json::parse_error::create(101, static_cast<size_t>(static_cast<const char*>(nul) - begin) + 1,
                                    "a NUL byte, which JSON text never holds (what follows it would have been ignored)", nullptr);
  std::vector<std::set<std::string>> keys;
  auto once = [&](int depth, json::parse_event_t ev, json& parsed) {
    if (depth > kMaxJsonDepth) {  // kept out of the value, and said
      if (problem.empty()) problem = cat("it nests deeper than ", kMaxJsonDepth, " levels");
      return false;
    }
    if (ev == json::parse_event_t::object_start) keys.emplace_back();
    else if (ev == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    else if (ev == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
             problem.empty())
      problem = cat("the key '", parsed.get<std::string>(), "' is given twice in one object (JSON keeps the last, silently)");
    return true;
  };
  return json::parse(begin, end, once);
}

}  // namespace ltt
