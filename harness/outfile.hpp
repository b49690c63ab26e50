// Report and machine files (--json, --markdown, --html, --svg, --machine-out)
// written whole or not at all: the text goes to a temporary file beside the
// target, which is renamed over it only once every byte is on disk. A full disk
// or a killed run leaves the earlier file as it was, never a truncated one.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "status.hpp"

namespace ltt {

// Writes `text` to `path` (symbolic links followed) through a fresh
// path + ".tmp.<pid>" that takes the earlier file's mode and owner; a
// device, a FIFO or a file with other hard links is written in place, as is
// a file whose directory takes no new file. On any failure the
// temporary is removed and the error names `flag` (e.g. "--json"), the path and
// the OS's reason.
Status write_text_file(const std::string& flag, const std::string& path, const std::string& text);

// Before a run that can end without returning (the watchdog, a crash, an
// early exit): a report file it will write is replaced at once, through
// write_text_file, by `text`, a note that the run has not finished, so that an
// earlier run's report at that path is never read as this run's verdict. A
// descriptor (own_descriptor), a device or a FIFO is left alone: its reader
// would take the note for the report. A note that cannot be written whole (a
// full disk) empties the earlier file in place instead, says so, and is ok:
// the run goes on and its report is tried at the end; an error only where
// the earlier file can be neither replaced nor emptied.
Status mark_unfinished(const std::string& flag, const std::string& path, const std::string& text);

// While the run is on: the claimed report at `path` replaced by `text` (the
// cases so far), whole or not at all, where mark_unfinished wrote its note:
// a regular file of one link in a directory that takes a new file. Anything
// else is left as it is (a descriptor, a device or a FIFO would take each
// update for the report; a file written in place could be cut short by a
// kill). A failure leaves the earlier file, and is returned.
Status update_unfinished(const std::string& flag, const std::string& path, const std::string& text);

// The file a path names once its symbolic links are followed, dangling ones
// included (the file a write there would create).
std::string follow_links(const std::string& path);
// The target of `path` when it is a symbolic link to nothing (to say so,
// rather than "no such file" or "File exists"), else nullopt (a loop of
// links is none: path_kind says what it is).
std::optional<std::string> dangling_link(const std::string& path);

// What a path ltt is given to read names, by stat(2) (links followed):
// nothing, a directory or something else. A path that cannot be looked at
// (a loop of symbolic links, a name too long, a directory on the way that
// may not be searched) is an error naming `flag`, the path and the cause,
// not a filesystem exception.
enum class PathKind { none, directory, other };
Result<PathKind> path_kind(const std::string& flag, const std::string& path);

// The descriptor a path names in this process: /dev/stdin 0, `-` and
// /dev/stdout 1, /dev/stderr 2, /dev/fd/N and /proc/self/fd/N N. write_text_file writes such
// a report to the descriptor itself, after what stdio holds: a report sent to
// stdout follows the table there, whether stdout is a pipe or a file.
std::optional<int> own_descriptor(const std::string& path);

// Before a file ltt reads whole (a case file, a manifest, a file it hashes):
// a device or a socket is refused, naming what it is, where reading it would
// never end (/dev/zero) or wait; a FIFO too unless `pipe_ok` (verify --case
// <(...) has a writer; a golden set's files and manifest never do, and a
// FIFO there would wait forever). A path that does not exist passes: opening
// it says so.
Status regular_file_to_read(const std::string& path, bool pipe_ok);

// Opens a file ltt reads whole, after regular_file_to_read. A FIFO is opened
// without waiting for a writer, then waited on; when nothing has written
// it after a few seconds, a line on stderr says what ltt waits for and how to
// stop it, so that a pipe no program writes is never a silent hang. The
// stream then reads as usual, to the writer's end.
Result<std::FILE*> open_to_read(const std::string& path);
// The whole of a text file ltt reads (a machine file, bench figures),
// through open_to_read.
Result<std::string> read_text_file(const std::string& path);

// A run's exit once its reports are written: a report that could not be
// (`written` failed) is exit 2, but a numerical failure's exit 1 (`failed`)
// wins over it; both are said.
Result<int> exit_after_reports(bool failed, const Status& written);

// Every report of a run is tried: one that cannot be written (a full disk)
// costs that file alone. `keep` each write's status; `status()` is ok when
// none was lost, else the first loss with each later one's message joined
// ("; and ..."), so each report lost is named.
class ReportWrites {
 public:
  void keep(Status s);
  Status status() const;

 private:
  std::vector<Error> lost_;
};

}  // namespace ltt
