// Whole-or-nothing text files: a temporary beside the target, then rename(2),
// which replaces the target atomically on POSIX file systems.
#include "outfile.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace ltt {

namespace fs = std::filesystem;

namespace {

// A target that is not a regular file (/dev/null, /dev/full, a FIFO) is
// written in place: renaming over a device node would replace it.
Status write_in_place(const std::string& flag, const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return LTT_USAGE("cannot write ", flag, " ", path, ": ", std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  int err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) return LTT_USAGE("cannot write ", flag, " ", path, ": ", std::strerror(err));
  return {};
}

}  // namespace

Status write_text_file(const std::string& flag, const std::string& path_given, const std::string& text) {
  std::error_code ec;
  // A symbolic link is followed: the file it names is replaced, the link kept.
  std::string path = path_given;
  if (fs::is_symlink(path, ec)) {
    const fs::path target = fs::canonical(path, ec);
    if (!ec) path = target.string();
  }
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) return write_in_place(flag, path_given, text);
  const std::string tmp = cat(path, ".tmp.", ::getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return LTT_USAGE("cannot write ", flag, " ", path_given, ": ", std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  int err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    return LTT_USAGE("cannot write ", flag, " ", path_given, ": ", std::strerror(err), " (the earlier file, if any, is kept)");
  }
  return {};
}

}  // namespace ltt
