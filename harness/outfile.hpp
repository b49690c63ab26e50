// Report and machine files (--json, --markdown, --html, --svg, --machine-out)
// written whole or not at all: the text goes to a temporary file beside the
// target, which is renamed over it only once every byte is on disk. A full disk
// or a killed run leaves the earlier file as it was, never a truncated one.
#pragma once

#include <optional>
#include <string>

#include "status.hpp"

namespace ltt {

// Writes `text` to `path` (symbolic links followed) through a fresh
// path + ".tmp.<pid>" that takes the earlier file's mode and owner; a
// device, a FIFO or a file with other hard links is written in place, as is
// a file whose directory takes no new file. On any failure the
// temporary is removed and the error names `flag` (e.g. "--json"), the path and
// the OS's reason.
Status write_text_file(const std::string& flag, const std::string& path, const std::string& text);

// The descriptor a path names in this process: `-` and /dev/stdout 1,
// /dev/stderr 2, /dev/fd/N and /proc/self/fd/N N. write_text_file writes such
// a report to the descriptor itself, after what stdio holds: a report sent to
// stdout follows the table there, whether stdout is a pipe or a file.
std::optional<int> own_descriptor(const std::string& path);

}  // namespace ltt
