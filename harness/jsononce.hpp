// JSON read with every object's keys once, and written so that no string
// can make the writing throw. JSON lets a key repeat and
// nlohmann's parser keeps the last, so a figure, a tensor or a manifest entry
// given twice would be read as one, silently: every file ltt reads (machine
// files, bench figures, manifests, safetensors headers) goes through here.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ltt {

// Parses [begin, end); `problem` gets what makes the text no file of ltt's
// although it is JSON ("" when nothing): the first key an object repeats,
// or nesting deeper than kMaxJsonDepth (no file ltt reads nests past 4; a
// deeper one would only make printing it recurse past the stack). Malformed
// text throws nlohmann::json::parse_error, as nlohmann::json::parse does;
// so does a NUL byte, where nlohmann's reader would stop and pass.
inline constexpr int kMaxJsonDepth = 64;
nlohmann::json parse_json_once(const char* begin, const char* end, std::string& problem);
inline nlohmann::json parse_json_once(const std::string& text, std::string& problem) {
  return parse_json_once(text.data(), text.data() + text.size(), problem);
}

// `j` as indented text and a newline, for a file. A string that is not
// UTF-8 (a path or an argument's bytes, which JSON cannot hold) has its bad
// bytes written as U+FFFD instead of throwing, so a report is never lost to
// its own file name.
inline std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// `j` on one line for a message, cut after max characters ("..." then), so
// a wrong value quoted back cannot bury the message under a megabyte.
inline std::string json_excerpt(const nlohmann::json& j, size_t max = 120) {
  std::string t = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (t.size() > max) t = t.substr(0, max) + "...";
  return t;
}

}  // namespace ltt
