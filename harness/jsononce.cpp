// JSON read with every object's keys once (jsononce.hpp): a set of the keys
// of each object open at the parse point, kept by a SAX pass.
#include "jsononce.hpp"

#include <cstring>
#include <unordered_set>
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
  // nlohmann's own DOM builder, fed by a SAX pass that keeps the keys of each
  // open object: its callback form rescans a parent object at every child's
  // end, so a header of 40,000 tensors took 12 s (and 200,000 ran for many
  // minutes); this is linear.
  struct Once : nlohmann::detail::json_sax_dom_parser<json> {
    using Dom = nlohmann::detail::json_sax_dom_parser<json>;
    std::vector<std::unordered_set<std::string>> keys;
    std::string& problem;
    int depth = 0;
    Once(json& result, std::string& p) : Dom(result, true), problem(p) {}
    bool deeper() {  // past any file's nesting: said, and the parse ends (the caller refuses the text)
      if (++depth <= kMaxJsonDepth) return true;
      if (problem.empty()) problem = cat("it nests deeper than ", kMaxJsonDepth, " levels");
      return false;
    }
    bool start_object(std::size_t n) {
      keys.emplace_back();
      return deeper() && Dom::start_object(n);
    }
    bool end_object() {
      keys.pop_back();
      --depth;
      return Dom::end_object();
    }
    bool start_array(std::size_t n) { return deeper() && Dom::start_array(n); }
    bool end_array() {
      --depth;
      return Dom::end_array();
    }
    bool key(std::string& k) {
      if (!keys.back().insert(k).second && problem.empty())
        problem = cat("the key '", k, "' is given twice in one object (JSON keeps the last, silently)");
      return Dom::key(k);
    }
  };
  json result;
  Once sax(result, problem);
  json::sax_parse(begin, end, &sax);
  if (!problem.empty() && problem.rfind("it nests", 0) == 0) return json();  // the parse ended part way: no value
  return result;
}

}  // namespace ltt
