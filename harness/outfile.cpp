// Whole-or-nothing text files: a temporary beside the target, then rename(2),
// which replaces the target atomically on POSIX file systems.
#include "outfile.hpp"

#include <fcntl.h>
#include <linux/falloc.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "watchdog.hpp"

namespace ltt {

namespace fs = std::filesystem;

namespace {

// Writes all of `text` to the open descriptor; false with errno set on failure.
bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

// A FIFO opened for writing waits for a reader: it is opened without
// waiting, tried again each 0.1 s, and the wait is said once after 5 s (what
// ltt waits for, how to stop it), so that a report sent to a pipe nothing
// reads is never a silent hang. -1 with errno set on another failure.
// A FIFO opened without blocking (so that its wait can be said) made
// blocking for the reads or writes that follow. On failure the descriptor is
// closed, errno kept, and false returned.
bool make_blocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0 && ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0) return true;
  const int err = errno;
  ::close(fd);
  errno = err;
  return false;
}

int open_fifo_to_write(const std::string& flag, const std::string& shown, const std::string& path) {
  // The reader is the user's program, not the backend: --timeout does not end this wait, which is said after 5 s.
  WatchdogWaiting waiting(cat("waiting for a program to read ", flag, " ", shown, " (a FIFO)"),
                          std::numeric_limits<double>::infinity());
  for (int tries = 0;; ++tries) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) return make_blocking(fd) ? fd : -1;
    if (errno != ENXIO) return -1;  // ENXIO: no reader yet
    if (tries == 50) {
      std::fflush(stdout);
      std::fprintf(stderr, "ltt: waiting for a program to read %s %s, a FIFO that nothing reads yet: start the reader, "
                           "or stop ltt (Ctrl-C)\n", flag.c_str(), shown.c_str());
    }
    ::usleep(100000);
  }
}

// In place: for what must not be renamed over (a device, a FIFO, a file with
// other hard links) and where no temporary can be made beside the target.
// A regular file's room is reserved first (fallocate: past its end only
// zeros are added), so a full disk or a file-size limit refuses the write
// before a byte of the earlier file is touched; then the text goes over it
// from the start, and the file is cut to the text's length. Where the file system reserves nothing (no fallocate), the
// file is truncated and written, and a failure says it is left cut short.
Status write_in_place(const std::string& flag, const std::string& shown, const std::string& path, const std::string& text,
                      bool create = true) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0, fifo = exists && S_ISFIFO(st.st_mode), regular = !exists || S_ISREG(st.st_mode);
  const int fd = fifo ? open_fifo_to_write(flag, shown, path) : ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (create ? O_CREAT : 0), 0666);
  if (fd < 0) return LTT_USAGE("cannot write ", flag, " ", shown, ": ", std::strerror(errno));
  auto refused = [&](int err, const char* left) {
    Error e = LTT_USAGE("cannot write ", flag, " ", shown, ": ", std::strerror(err), left);
    e.os_errno = err;
    return e;
  };
  auto failed = [&](int err, const char* left) {
    ::close(fd);
    return refused(err, left);
  };
  bool reserved = false;
  if (regular && !text.empty()) {
    // A file-size limit (ulimit -f) is past the reservation's reach: said before the write.
    if (rlimit lim{}; ::getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && text.size() > lim.rlim_cur)
      return failed(EFBIG, " (the file is left as it was)");
    if (::fallocate(fd, 0, 0, static_cast<off_t>(text.size())) == 0) reserved = true;
    else if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG) return failed(errno, " (the file is left as it was)");
  }
  if (regular && !reserved && ::ftruncate(fd, 0) != 0) return failed(errno, " (the file is left as it was)");
  const char* left = !regular ? "" : reserved ? " (written in place: the file may hold part of this report over the earlier one)"
                                              : " (written in place: the file is left cut short)";
  if (!write_all(fd, text)) return failed(errno, left);
  if (regular && reserved && ::ftruncate(fd, static_cast<off_t>(text.size())) != 0) return failed(errno, left);
  if (::close(fd) != 0) return refused(errno, left);
  return {};
}

// The file a path names once its symbolic links are followed, dangling ones
// included (their target is created).
std::string resolve(const std::string& given) {
  std::error_code ec;
  fs::path p(given);
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) break;
    if (to.is_absolute()) {
      p = to;
      continue;
    }
    // A relative target is relative to the link's directory as the kernel
    // finds it: "d/l -> ../r.json" with d a link to x/y is x/r.json, not
    // ./r.json, so the parent is made canonical and ".." left to the kernel.
    const fs::path parent = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    const fs::path base = fs::canonical(parent, ec);
    p = (ec ? parent : base) / to;
    ec.clear();
  }
  return p.string();
}

}  // namespace

std::string follow_links(const std::string& path) { return resolve(path); }

std::optional<std::string> dangling_link(const std::string& path) {
  std::error_code ec;
  struct stat st {};
  if (!fs::is_symlink(path, ec) || ::stat(path.c_str(), &st) == 0 || errno != ENOENT) return std::nullopt;
  return fs::read_symlink(path, ec).string();
}

Result<PathKind> path_kind(const std::string& flag, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? PathKind::directory : PathKind::other;
  const int err = errno;
  switch (err) {
    case ENOENT:
    case ENOTDIR: return PathKind::none;
    case ELOOP:
      return LTT_USAGE(flag, " ", path, ": a loop of symbolic links (or more links in a row than the system follows): "
                       "point the link at a real file or directory, or remove it");
    case ENAMETOOLONG:
      return LTT_USAGE(flag, " ", path, ": the path, or a name in it, is longer than the file system allows");
    case EACCES:
      return LTT_USAGE(flag, " ", path, ": cannot be looked at: a directory on the way may not be searched (permission denied)");
    default: return LTT_USAGE(flag, " ", path, ": cannot be looked at: ", std::strerror(err));
  }
}

std::optional<int> own_descriptor(const std::string& path) {
  if (path == "/dev/stdin") return 0;  // a link to what stdin reads from: never replaced by a report
  if (path == "-" || path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string pre : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.rfind(pre, 0) != 0 || path.size() == pre.size() || path.size() > pre.size() + 6) continue;
    const std::string n = path.substr(pre.size());
    if (n.find_first_not_of("0123456789") == std::string::npos) return std::stoi(n);
  }
  return std::nullopt;
}

Status write_text_file(const std::string& flag, const std::string& given, const std::string& text) {
  if (const auto fd = own_descriptor(given)) {
    std::fflush(stdout);
    std::fflush(stderr);
    if (!write_all(*fd, text)) return LTT_USAGE("cannot write ", flag, " ", given, ": ", std::strerror(errno));
    return {};
  }
  const std::string path = resolve(given);
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && (!S_ISREG(st.st_mode) || st.st_nlink > 1)) return write_in_place(flag, given, path, text);
  // A fresh name nobody else holds: O_EXCL | O_NOFOLLOW never follow a link
  // planted there, nor truncate a file that is there.
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = cat(path, ".tmp.", ::getpid(), attempt ? cat(".", attempt) : std::string());
    // A name near the file system's limit (255 bytes) leaves no room for the
    // suffix: the temporary then takes a short name beside it.
    if (fs::path(tmp).filename().string().size() > 255)
      tmp = (fs::path(path).parent_path() / cat(".ltt.tmp.", ::getpid(), attempt ? cat(".", attempt) : std::string())).string();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    // No temporary can be made in the target's directory (it is not
    // writable, or read-only): the file itself may still be; write it there.
    const int err = errno;
    if (exists && (err == EACCES || err == EPERM || err == EROFS)) return write_in_place(flag, given, path, text);
    // The reason is the temporary's (a file system that makes no new files,
    // such as /proc, says ENOENT of a file that exists): it is named.
    Error e = LTT_USAGE("cannot write ", flag, " ", given, ": no temporary file can be made beside it (", tmp, ": ",
                        std::strerror(err), "); give a path in a directory you can write");
    e.os_errno = err;
    return e;
  }
  bool ok = true;
  int err = 0;
  if (exists) {  // the rewritten file keeps the earlier one's mode (and owner, where we may set it)
    if (::fchmod(fd, st.st_mode & 07777) != 0) ok = false, err = errno;
    if (ok && ::geteuid() == 0 && ::fchown(fd, st.st_uid, st.st_gid) != 0) ok = false, err = errno;
  }
  if (ok && !(write_all(fd, text) && ::fsync(fd) == 0)) ok = false, err = errno;
  if (::close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    ::unlink(tmp.c_str());
    Error e = LTT_USAGE("cannot write ", flag, " ", given, ": ", std::strerror(err),
                        " (what the file held before this write, if anything, is left as it was)");
    e.os_errno = err;
    return e;
  }
  return {};
}

Status regular_file_to_read(const std::string& path, bool pipe_ok) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || (pipe_ok && S_ISFIFO(st.st_mode))) return {};
  const char* what = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISFIFO(st.st_mode) ? "a FIFO (a read would wait for a writer)"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  return LTT_USAGE(path, ": is ", what, ", not a file: give a regular file");
}

Result<std::FILE*> open_to_read(const std::string& path) {
  struct stat st {};
  const bool fifo = ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
  if (fd < 0) return LTT_USAGE(path, ": cannot open: ", std::strerror(errno));
  if (fifo) {
    // Readable once a writer has written, or has come and closed it (end of file).
    pollfd waiting{fd, POLLIN, 0};
    for (bool said = false;;) {
      const int r = ::poll(&waiting, 1, said ? -1 : 5000);
      if (r > 0) break;
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        const int err = errno;
        ::close(fd);
        return LTT_USAGE(path, ": cannot wait for the FIFO's writer: ", std::strerror(err));
      }
      std::fprintf(stderr, "ltt: waiting for a program to write %s, a FIFO that nothing has written yet: start the "
                           "writer, or stop ltt (Ctrl-C)\n", path.c_str());
      said = true;
    }
    if (!make_blocking(fd)) return LTT_USAGE(path, ": cannot read the FIFO: ", std::strerror(errno));
  }
  std::FILE* f = ::fdopen(fd, "rb");
  if (!f) {
    const int err = errno;
    ::close(fd);
    return LTT_USAGE(path, ": cannot open: ", std::strerror(err));
  }
  return f;
}

Result<std::string> read_text_file(const std::string& path) {
  auto opened = open_to_read(path);
  if (!opened.ok()) return opened.error();
  std::FILE* f = *opened;
  std::string text;
  char chunk[1 << 16];
  for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) text.append(chunk, n);
  const int err = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (err) return LTT_USAGE(path, ": cannot read it: ", std::strerror(err));
  return text;
}

Result<int> exit_after_reports(bool failed, const Status& written) {
  if (written.ok()) return failed ? 1 : 0;
  if (!failed) return written.error();
  std::fprintf(stderr, "ltt: %s\n", written.error().describe().c_str());
  return 1;
}

void ReportWrites::keep(Status s) {
  if (!s.ok()) lost_.push_back(s.error());
}

Status ReportWrites::status() const {
  if (lost_.empty()) return {};
  Error e = lost_.front();
  for (size_t i = 1; i < lost_.size(); ++i) e.message += cat("; and ", lost_[i].message);
  return e;
}

Status update_unfinished(const std::string& flag, const std::string& path, const std::string& text) {
  if (own_descriptor(path)) return {};
  const std::string file = resolve(path);
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1) return {};
  const fs::path dir = fs::path(file).parent_path();
  if (::access(dir.empty() ? "." : dir.c_str(), W_OK) != 0) return {};
  return write_text_file(flag, path, text);
}

Status mark_unfinished(const std::string& flag, const std::string& path, const std::string& text) {
  if (own_descriptor(path)) return {};
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return {};
  Status s = write_text_file(flag, path, text);
  // Only a full disk (or quota, or a file-size limit) is met so: any other
  // failure (a name too long, a rename refused) would fail the report's own
  // write at the end too, so it refuses the run now.
  if (s.ok() || (s.error().os_errno != ENOSPC && s.error().os_errno != EDQUOT && s.error().os_errno != EFBIG)) return s;
  // The note could not be written whole (a full disk): what matters is that
  // no earlier report stays to be read as this run's, so the earlier file is
  // emptied where it stands (freeing its blocks needs no new ones) and the
  // note written into it if room allows; the run goes on, and its report is
  // tried again at the end (lost there, it is named). Only a file that can
  // be neither replaced nor emptied stops the run.
  std::string why = s.error().message;
  if (const size_t kept = why.find(" (what the file held"); kept != std::string::npos) why.resize(kept);
  if (exists) {
    // The path itself, links followed by the kernel: the file stat() saw.
    const bool noted = write_in_place(flag, path, path, text, false).ok();
    if (!noted && ::truncate(path.c_str(), 0) != 0) return s;
    std::fprintf(stderr, "ltt: %s (the note that the run has not finished); the earlier file was emptied%s; the report is "
                 "tried again at the end\n", why.c_str(), noted ? " and the note written into it" : "");
  } else {
    std::fprintf(stderr, "ltt: %s (the note that the run has not finished); the report is tried again at the end\n",
                 why.c_str());
  }
  return {};
}

}  // namespace ltt
