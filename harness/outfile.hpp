// Report and machine files (--json, --markdown, --html, --svg, --machine-out)
// written whole or not at all: the text goes to a temporary file beside the
// target, which is renamed over it only once every byte is on disk. A full disk
// or a killed run leaves the earlier file as it was, never a truncated one.
#pragma once

#include <string>

#include "status.hpp"

namespace ltt {

// Writes `text` to `path` through path + ".tmp.<pid>"; on any failure the
// temporary is removed and the error names `flag` (e.g. "--json"), the path and
// the OS's reason.
Status write_text_file(const std::string& flag, const std::string& path, const std::string& text);

}  // namespace ltt
