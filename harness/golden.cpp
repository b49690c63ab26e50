// ltt golden and ltt regress: case files named by everything that sets their
// contents, a manifest rewritten atomically as each file lands, temporaries
// removed on SIGINT, SIGTERM and SIGHUP.
#include "golden.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "flags.hpp"
#include "html.hpp"
#include "jsononce.hpp"
#include "reference.hpp"
#include "report.hpp"
#include "outfile.hpp"
#include "sha256.hpp"
#include "table.hpp"
#include "version.hpp"

namespace ltt {

namespace fs = std::filesystem;

namespace {

// The tiers of `tiers` that apply to p, sorted, each once.
std::vector<int> tiers_for(const Problem& p, std::vector<int> tiers) {
  std::sort(tiers.begin(), tiers.end());
  tiers.erase(std::unique(tiers.begin(), tiers.end()), tiers.end());
  std::erase_if(tiers, [&](int k) { return !validate_for_tier(p, k).ok(); });
  return tiers;
}

// The metadata make_case() writes for this set (checked against it).
std::map<std::string, std::string> case_file_metadata(const Problem& p, const std::vector<int>& tiers,
                                                      const CaseContract& c) {
  auto m = case_metadata(p, tiers, Contract{c.algo, NormOrder::fused});
  m["rmsnorm_order"] = c.norm_name();
  return m;
}

}  // namespace

std::string case_file_name(const Problem& p, const std::vector<int>& tiers, const CaseContract& c) {
  std::string f = cat("H", p.H, "_L", p.L, "_T", p.T, "_M", p.M, "_", name(p.dist), "_seed", p.seed, "_",
                      name(c.algo), "_", c.norm_name());
  if (p.eps != Problem{}.eps) f += "_eps" + shortest(p.eps);
  std::vector<int> all(kNumTiers);
  for (int k = 0; k < kNumTiers; ++k) all[static_cast<size_t>(k)] = k;
  const std::vector<int> mine = tiers_for(p, tiers);
  if (mine != tiers_for(p, all)) {
    f += "_tiers";
    for (int k : mine) f += std::to_string(k);
  }
  return f + ".safetensors";
}

Result<SafeTensors> build_case(const Problem& p, const std::vector<int>& tiers, const CaseContract& c,
                               const Inputs* weights) {
  const Inputs in = generate_inputs(p, weights);
  Reference ref(in);
  std::map<int, MatrixB> expected;
  for (int k : tiers) {
    auto y = ref.emulated(k, c.for_tier(k));
    if (!y.ok()) return y.error();
    expected[k] = std::move((*y)[0]);
  }
  return make_case(in, ref.truth(), expected, c);
}

namespace {

// A manifest as read: its JSON, and each entry's metadata with the case they
// describe, in the order of json["files"] as read (golden then edits the
// JSON; regress reads both).
struct Manifest {
  struct Entry {
    std::map<std::string, std::string> metadata;
    LoadedCase c;  // from the metadata alone: problem, contract, tiers
  };
  nlohmann::json json;
  std::vector<Entry> entries;
};

Result<Manifest> read_manifest(const std::string& path, bool must_exist) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return LTT_USAGE(path, ": is a directory, not a manifest: move it away");
  LTT_TRY(regular_file_to_read(path, false));
  errno = 0;
  std::ifstream f(path);
  if (!f) {
    const int err = errno;
    // No manifest yet is a fresh golden set; any other reason (no permission,
    // a path through a file) is said, never taken for an empty set.
    if (!must_exist && err == ENOENT) return Manifest{{{"ltt_version", kVersion}, {"files", nlohmann::json::array()}}, {}};
    return LTT_USAGE(path, ": cannot read the manifest: ", err ? std::strerror(err) : "unreadable",
                     err == ENOENT ? " (is this a golden set's directory? ltt golden --out DIR makes one)" : "");
  }
  try {
    std::stringstream text;
    text << f.rdbuf();
    std::string problem;
    nlohmann::json j = parse_json_once(text.str(), problem);
    if (!problem.empty())
      return LTT_USAGE(path, ": not a manifest: ", problem, ": correct it, or write the set again with ltt golden");
    if (!j.is_object() || !j.contains("files") || !j["files"].is_array())
      return LTT_USAGE(path, ": not a manifest (an object with a 'files' array)");
    for (const auto& [k, v] : j.items())
      if (k != "files" && k != "ltt_version")
        return LTT_USAGE(path, ": unknown key '", k, "' (a manifest holds ltt_version and files; ltt golden would drop it)");
    // ltt golden writes the version that made the set, and keeps it: a
    // manifest without it, or with a version that is not a string, was not
    // written by ltt.
    if (!j.contains("ltt_version"))
      return LTT_USAGE(path, ": not a manifest: it lacks ltt_version (ltt golden writes ltt_version and files): restore it, "
                       "or write the set again with ltt golden");
    if (!j["ltt_version"].is_string() || j["ltt_version"].get<std::string>().empty())
      return LTT_USAGE(path, ": 'ltt_version' is ", json_excerpt(j["ltt_version"]), ": it must be the version string of the "
                       "ltt that wrote the set (ltt --version prints this one's)");
    std::set<std::string> seen;
    std::vector<Manifest::Entry> entries;
    size_t index = 0;
    for (const auto& e : j["files"]) {
      const std::string at = cat("entry ", index++, e.is_object() && e.contains("file") && e["file"].is_string()
                                                        ? cat(" (", e["file"].get<std::string>(), ")")
                                                        : std::string());
      if (!e.is_object()) return LTT_USAGE(path, ": ", at, " is not an object: ", json_excerpt(e));
      std::vector<std::string> lacks;
      for (const char* k : {"file", "sha256", "bytes", "committed", "metadata"})
        if (!e.contains(k)) lacks.push_back(k);
      if (!lacks.empty())
        return LTT_USAGE(path, ": ", at, " lacks ", join(lacks), " (ltt golden writes file, sha256, bytes, committed and "
                         "metadata; a manifest of an older ltt: write the set again with ltt golden)");
      if (!e["file"].is_string() || !e["sha256"].is_string() || !e["metadata"].is_object())
        return LTT_USAGE(path, ": ", at, ": file and sha256 must be strings and metadata an object: ", json_excerpt(e));
      for (const auto& [k, v] : e.items())
        if (k != "file" && k != "sha256" && k != "bytes" && k != "committed" && k != "metadata")
          return LTT_USAGE(path, ": ", e["file"].get<std::string>(), ": unknown key '", k,
                           "' (an entry holds file, sha256, bytes, committed and metadata; ltt golden would drop it)");
      const std::string sha = e["sha256"];
      if (sha.size() != 64 || sha.find_first_not_of("0123456789abcdef") != std::string::npos)
        return LTT_USAGE(path, ": ", e["file"].get<std::string>(), ": sha256 '", sha, "' is not 64 lowercase hex digits");
      const std::string file = e["file"];
      // A plain file name in the manifest's own directory: a path would
      // reach (and, for golden, write) outside it.
      if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos || file.find('\0') != std::string::npos)
        return LTT_USAGE(path, ": entry file '", file, "' is not a file name in the manifest's directory");
      // The manifest is no case file of its set: regress would read it as one, golden write a case over it.
      if (file == "manifest.json")
        return LTT_USAGE(path, ": ", at, " is the manifest itself, not a case file: take that entry out");
      if (!seen.insert(file).second) return LTT_USAGE(path, ": ", file, " is listed twice: keep one entry");
      if (!e["committed"].is_boolean())
        return LTT_USAGE(path, ": ", file, ": 'committed' is ", json_excerpt(e["committed"]), ": it must be true or false");
      if (!(e["bytes"].is_number_unsigned() || (e["bytes"].is_number_integer() && e["bytes"].get<long long>() >= 0)))
        return LTT_USAGE(path, ": ", file, ": 'bytes' is ", json_excerpt(e["bytes"]), ": it must be a whole number of bytes");
      // The metadata must describe a case (as a case file's header must),
      // so that regress refuses a bad entry before regenerating any set, and
      // golden before adding to the manifest.
      SafeTensors meta;
      for (const auto& [k, v] : e["metadata"].items()) {
        if (!v.is_string())
          return LTT_USAGE(path, ": ", file, ": metadata '", k, "' is ", json_excerpt(v), ": every value is a string (ltt golden writes \"tp\": \"8\")");
        meta.metadata[k] = v;
      }
      auto c = case_from_metadata(meta, cat(path, ": ", file, "'s metadata"));
      if (!c.ok()) return c.error();
      entries.push_back({std::move(meta.metadata), std::move(*c)});
    }
    return Manifest{std::move(j), std::move(entries)};
  } catch (const std::exception& ex) {
    return LTT_USAGE(path, ": not valid JSON: ", ex.what());
  }
}

// Temporaries a signal must not leave behind. While `golden` or `regress`
// runs, SIGINT, SIGTERM and SIGHUP unlink the temporaries being written (their
// paths sit in static buffers; the handler calls only unlink, sigaction and
// raise), then the process dies by the same signal with its default action.
// From a case file's rename to the manifest's, the signal is held and acted
// on once the manifest lists the file, so every file in the folder is listed.
constexpr int kSlots = 2;  // 0: the case file's (hash-only, regress) temporary; 1: the manifest's
constexpr size_t kPathMax = 4096;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
char g_tmp[kSlots][kPathMax];
std::atomic<int> g_live[kSlots];
std::atomic<int> g_hold{0};  // inside rename..manifest: hold the signal
std::atomic<int> g_held{0};  // the signal held, or 0
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free flags");

void die_by(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_live[i].load()) ::unlink(g_tmp[i]);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);  // in the handler: delivered, with the default action, as it returns
}

void on_signal(int sig) {
  if (g_hold.load()) {
    g_held.store(sig);
    return;
  }
  die_by(sig);
}

// Installs the handler for its lifetime (not over a signal the caller ignores)
// and restores the previous dispositions.
class CleanupOnSignal {
 public:
  CleanupOnSignal() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : kSignals) sigaddset(&sa.sa_mask, sig);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < std::size(kSignals); ++i) {
      installed_[i] = ::sigaction(kSignals[i], &sa, &old_[i]) == 0;
      if (installed_[i] && !(old_[i].sa_flags & SA_SIGINFO) && old_[i].sa_handler == SIG_IGN) {
        ::sigaction(kSignals[i], &old_[i], nullptr);
        installed_[i] = false;
      }
    }
  }
  ~CleanupOnSignal() {
    for (size_t i = 0; i < std::size(kSignals); ++i)
      if (installed_[i]) ::sigaction(kSignals[i], &old_[i], nullptr);
  }
  CleanupOnSignal(const CleanupOnSignal&) = delete;
  CleanupOnSignal& operator=(const CleanupOnSignal&) = delete;

 private:
  struct sigaction old_[std::size(kSignals)] {};
  bool installed_[std::size(kSignals)] = {};
};

// Holds SIGINT, SIGTERM and SIGHUP for its lifetime; one that came meanwhile
// then kills the process.
class HoldSignals {
 public:
  HoldSignals() { g_hold.store(1); }
  ~HoldSignals() {
    g_hold.store(0);
    if (const int sig = g_held.exchange(0)) die_by(sig);
  }
  HoldSignals(const HoldSignals&) = delete;
  HoldSignals& operator=(const HoldSignals&) = delete;
};

// A temporary file in slot `slot`: unlinked on a signal, and on destruction
// unless landed() (renamed into place or removed) was called.
class Temporary {
 public:
  explicit Temporary(int slot) : slot_(static_cast<size_t>(slot)) {}
  ~Temporary() {
    if (!path_.empty() && !landed_) ::unlink(path_.c_str());
    g_live[slot_].store(0);
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  Status track(std::string path) {
    if (path.size() >= kPathMax) return LTT_USAGE(path, ": path too long (", kPathMax, " bytes at most)");
    g_live[slot_].store(0);
    std::memcpy(g_tmp[slot_], path.c_str(), path.size() + 1);
    g_live[slot_].store(1);
    path_ = std::move(path);
    return {};
  }
  void landed() {
    landed_ = true;
    g_live[slot_].store(0);
  }
  const std::string& path() const { return path_; }

 private:
  size_t slot_;
  std::string path_;
  bool landed_ = false;
};

// Writes path through a hidden temporary beside it (flushed and fsynced), then
// renames it over path.
Status write_text_atomic(const std::string& path, const std::string& text) {
  const fs::path target(path);
  Temporary tmp(1);
  LTT_TRY(tmp.track((target.parent_path() / cat(".", target.filename().string(), ".tmp.", getpid())).string()));
  FILE* f = std::fopen(tmp.path().c_str(), "wb");
  if (!f) return LTT_USAGE(path, ": cannot create ", tmp.path(), ": ", std::strerror(errno));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0 &&
            ::fsync(::fileno(f)) == 0;
  int err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && std::rename(tmp.path().c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) return LTT_USAGE(path, ": cannot write (via ", tmp.path(), "): ", std::strerror(err));
  tmp.landed();
  return {};
}

// A manifest entry named `file` whose metadata (or keep-the-file flag)
// differ from what this run would write: refused, naming the first key. A
// file of that name in `dir` that the manifest does not list is not ltt's to
// replace (outputs kept under the cases' names, say): refused too, unless
// --hash-only, which never writes it, and only under the set's lock
// (`locked`): without it, another run may be between renaming its file into
// place and listing it, so the file is unlisted for a moment.
Status refuse_clash(const nlohmann::json& manifest, const std::string& mpath, const std::string& dir, const std::string& file,
                    const std::map<std::string, std::string>& meta, bool hash_only, bool locked) {
  const nlohmann::json* listed = nullptr;
  for (const auto& e : manifest["files"]) {
    if (e["file"] != file) continue;
    listed = &e;
    const nlohmann::json& have = e["metadata"];
    std::vector<std::string> keys;
    for (const auto& [k, v] : have.items()) keys.push_back(k);
    for (const auto& [k, v] : meta) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    for (const auto& k : keys) {
      const nlohmann::json mine = meta.count(k) ? nlohmann::json(meta.at(k)) : nlohmann::json();
      const nlohmann::json theirs = have.contains(k) ? have[k] : nlohmann::json();
      if (mine != theirs)
        return LTT_USAGE(mpath, ": ", file, ": the manifest's entry has ", k, " = ",
                         theirs.is_null() ? "(none)" : json_excerpt(theirs), ", this run would write ", k, " = ",
                         mine.is_null() ? "(none)" : json_excerpt(mine),
                         ": a clash is never replaced; remove that entry and its file, or write elsewhere");
    }
    if (hash_only && e.value("committed", true))
      return LTT_USAGE(mpath, ": ", file, ": the manifest's entry has committed = true, this run (--hash-only) would "
                       "write committed = false: a clash is never replaced; remove that entry and its file, or write "
                       "elsewhere");
  }
  std::error_code ec;
  const std::string path = cat(dir, "/", file);
  const auto st = fs::symlink_status(path, ec);
  // The file lands by a rename, which cannot replace a directory (nor should
  // it a FIFO, a socket or a device): refused before any work, listed or not.
  // A link is replaced by the file (its target is left as it was). Under
  // --hash-only nothing is written, but regress would judge whatever holds
  // the set's name as the set: the same refusals.
  if (fs::exists(st) && !fs::is_regular_file(st) && !fs::is_symlink(st))
    return LTT_USAGE(path, " is ", fs::is_directory(st) ? "a directory" : "not a regular file", ": ",
                     hash_only ? "regress would judge it as this hash-only set's file" : "golden writes the set's file of that name there",
                     "; move it away, or give another --out");
  if (locked && !listed && fs::exists(st))
    return LTT_USAGE(path, " exists but ", mpath, " does not list it: ",
                     hash_only ? "under --hash-only nothing is written, yet regress would judge that file as the set; "
                               : "ltt golden replaces only files it wrote; ",
                     "move it, or give another --out (a golden run killed with SIGKILL between writing it and listing it "
                     "leaves such a file: remove it)");
  // Listed as hash-only, the file was never written by golden: it is the set
  // only where its bytes hash to the entry's SHA-256, and only then replaced.
  if (locked && listed && !hash_only && !(*listed).value("committed", true) && fs::exists(st)) {
    auto sha = sha256_file(path);
    if (!sha.ok()) return LTT_USAGE(path, ": cannot read it to compare with the manifest's hash-only entry: ", sha.error().message);
    if (*sha != (*listed)["sha256"].get<std::string>())
      return LTT_USAGE(path, " exists, and ", mpath, " lists its name as a hash-only set whose SHA-256 is not the file's: ltt golden "
                       "did not write it and replaces only files it wrote; move it, or give another --out");
  }
  return {};
}

// The first key (in order) whose value differs between two case files'
// metadata, as "'k' is 'a' regenerated, 'b' in the file", or "".
std::string metadata_difference(const std::map<std::string, std::string>& want, const std::map<std::string, std::string>& got,
                                const char* theirs = "in the file") {
  std::set<std::string> keys;
  for (const auto& [k, v] : want) keys.insert(k);
  for (const auto& [k, v] : got) keys.insert(k);
  auto shown = [](const std::map<std::string, std::string>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? std::string("none") : cat("'", it->second, "'");
  };
  for (const std::string& k : keys)
    if (shown(want, k) != shown(got, k))
      return cat("'", k, "' is ", shown(want, k), " regenerated, ", shown(got, k), " ", theirs);
  return "";
}

// "[i, j]" of element e of a tensor with `cols` columns.
std::string where(size_t e, int64_t cols) {
  return cols > 0 ? cat("[", e / static_cast<size_t>(cols), ", ", e % static_cast<size_t>(cols), "]") : cat("[", e, "]");
}

// The first difference between two case files, or "". The inputs come
// first (routed, shared, the weights: the generator's), then the expected
// outputs (the reference's): where the inputs drifted the expected outputs
// differ too, and naming one of them would send the reader to the reference.
std::string first_difference(const SafeTensors& want, const SafeTensors& got) {
  auto expected = [](const std::string& n) { return n.rfind("expected", 0) == 0; };
  std::vector<std::string> order;
  for (bool outputs : {false, true})
    for (const auto& [n, t] : want.tensors)
      if (expected(n) == outputs) order.push_back(n);
  for (const std::string& n : order) {
    const StTensor& t = want.tensors.at(n);
    auto it = got.tensors.find(n);
    if (it == got.tensors.end()) return cat("tensor '", n, "' missing from the file");
    const StTensor& g = it->second;
    if (g.dtype != t.dtype || g.shape != t.shape) return cat("tensor '", n, "': dtype or shape differs");
    if (g.bytes != t.bytes) {
      const size_t sz = st_dtype_size(t.dtype);
      size_t b = 0;
      while (b < t.bytes.size() && t.bytes[b] == g.bytes[b]) ++b;
      return cat("tensor '", n, "' differs first at element ", where(b / sz, t.shape.size() == 2 ? t.shape[1] : 0),
                 " (regenerated bytes differ from the file's: ", expected(n) ? "the reference drifted" : "the input generator drifted",
                 ")");
    }
  }
  for (const auto& [n, t] : got.tensors)
    if (!want.tensors.count(n)) return cat("tensor '", n, "' is in the file but not regenerated");
  if (auto k = metadata_difference(want.metadata, got.metadata); !k.empty()) return cat("__metadata__ ", k);
  return "";
}

}  // namespace

// The set's directory locked for a run (flock(2) on the directory itself, no
// file left behind): golden alone, as an exclusive lock (two golden runs into
// one set would each rewrite the manifest from what it read and lose the
// other's entries); regress beside other regress runs, shared. Taken without
// waiting: a busy set is said, never waited on. A file system without locks
// runs unlocked.
class DirLock {
 public:
  Status take(const std::string& dir, bool exclusive) {
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) return {};  // opening the set says why, next
    if (::flock(fd_, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) {
      held_ = true;
      return {};
    }
    if (errno == EWOULDBLOCK)
      return LTT_USAGE(dir, ": another ltt ", exclusive ? "golden or regress" : "golden", " run is using this set now: ",
                       "run again once it is over (a golden run writes a set alone)");
    // No lock here (a file system without flock): said, and the run goes on.
    std::fprintf(stderr, "ltt: %s: cannot lock the set (%s): running unlocked; run no other golden into it meanwhile\n",
                 dir.c_str(), std::strerror(errno));
    return {};
  }
  ~DirLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool held() const { return held_; }  // false where the file system gave no lock: the run goes on unlocked

 private:
  int fd_ = -1;
  bool held_ = false;
};

namespace {

// Under the set's exclusive lock no other golden is writing into it, so a
// temporary found there (".NAME.safetensors.tmp.PID", ".manifest.json.tmp.PID")
// was left by a run killed before it could remove it: removed, and said.
void remove_stale_temporaries(const std::string& dir) {
  auto digits = [](const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; };
  std::vector<std::string> removed;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    const size_t t = n.rfind(".tmp.");
    if (t == std::string::npos || !digits(n.substr(t + 5)) || !it->is_regular_file(ec)) continue;
    const std::string stem = n.substr(0, t);
    const bool case_tmp = stem.size() > 13 && stem[0] == '.' && stem.compare(stem.size() - 12, 12, ".safetensors") == 0;
    if (!case_tmp && stem != ".manifest.json") continue;
    std::error_code rec;
    if (fs::remove(it->path(), rec)) removed.push_back(n);
  }
  if (!removed.empty())
    std::fprintf(stderr, "ltt golden: removed %zu temporary file(s) that a killed run left in %s: %s\n", removed.size(), dir.c_str(),
                 join(removed).c_str());
}

}  // namespace

Result<int> run_golden(const GoldenOptions& o) {
  const double t0 = now_seconds();
  std::error_code ec;
  const std::string mpath = o.out + "/manifest.json";
  // The manifest is replaced by renaming a new file over it, which would
  // replace a link with a file; and a manifest lists files of its own
  // directory, which a link's target may not be.
  if (std::error_code lec; fs::is_symlink(mpath, lec))
    return LTT_USAGE(mpath, " is a link (to ", fs::read_symlink(mpath, lec).string(), "): golden would replace it with a file; ",
                     "give --out the directory of the manifest itself, or replace the link with a copy");
  auto manifest = read_manifest(mpath, false);
  if (!manifest.ok()) return manifest.error();
  CaseContract cc;
  cc.algo = o.sel.algo.value_or(Algo::one_shot);
  cc.norm = o.norm;
  struct Set {
    Problem p;
    std::vector<int> tiers;
    std::string file;
    std::map<std::string, std::string> metadata;
  };
  std::vector<Set> sets;
  flags::Skipped skipped;
  for (int T : o.sel.tp)
    for (Dist dist : o.sel.dists)
      for (int M : o.sel.tokens) {
        const Problem p = make_problem(o.sel.dims, T, M, dist, o.sel.seed, o.sel.eps);
        LTT_TRY(validate(p));
        std::vector<int> tiers = tiers_for(p, o.sel.tiers);
        for (int k : o.sel.tiers)
          if (std::find(tiers.begin(), tiers.end(), k) == tiers.end()) skipped.add(k, p);
        if (tiers.empty()) continue;
        std::string file = case_file_name(p, tiers, cc);
        if (std::any_of(sets.begin(), sets.end(), [&](const Set& s) { return s.file == file; })) continue;
        auto metadata = case_file_metadata(p, tiers, cc);
        sets.push_back({p, std::move(tiers), std::move(file), std::move(metadata)});
      }
  if (sets.empty())
    return LTT_USAGE("no input set to write: no selected tier applies to the selected shapes (", kTier0Applies, ")");
  // A name determines its contents: refuse any clash before writing anything.
  for (const Set& s : sets) LTT_TRY(refuse_clash(manifest->json, mpath, o.out, s.file, s.metadata, o.hash_only, false));
  {
    std::vector<Problem> ps;
    for (const Set& s : sets) ps.push_back(s.p);
    LTT_TRY(flags::fits_in_memory(ps, "golden"));
  }
  skipped.say("golden");  // once nothing can refuse the run: a refusal is its only line
  // Only a valid run creates --out: a refused one leaves no empty folder behind.
  if (const auto to = dangling_link(o.out))
    return LTT_USAGE("--out ", o.out, " is a link to ", *to, ", which does not exist: make that directory, or give another --out");
  fs::create_directories(o.out, ec);
  if (ec) return LTT_USAGE("--out ", o.out, ": cannot create the directory: ", ec.message());
  // The set is this run's alone from here; the manifest is read again under
  // the lock, so that entries another run added since are kept.
  DirLock lock;
  LTT_TRY(lock.take(o.out, true));
  manifest = read_manifest(mpath, false);
  if (!manifest.ok()) return manifest.error();
  for (const Set& s : sets) LTT_TRY(refuse_clash(manifest->json, mpath, o.out, s.file, s.metadata, o.hash_only, true));
  if (lock.held()) remove_stale_temporaries(o.out);  // unlocked, another run's may be live
  std::printf("# ltt golden: %s into %s%s\n", counted(sets.size(), "input set").c_str(), o.out.c_str(), o.hash_only ? " (hashes only)" : "");
  int file_width = 62;  // as wide as the longest name, so the rows line up
  for (const Set& s : sets) file_width = std::max(file_width, static_cast<int>(s.file.size()));
  Table tab({{"file", "", file_width}, {"tiers", "", 10}, {"bytes", "", 11}, {"sha256", "(first 16)", 16}, {"time", "s", 6}});
  tab.header();
  Progress prog(sets.size());
  CleanupOnSignal cleanup;
  for (const Set& s : sets) {
    const double a = now_seconds();
    auto st = build_case(s.p, s.tiers, cc);
    if (!st.ok()) return st.error();
    if (st->metadata != s.metadata)
      return LTT_ERR(Errc::internal, s.file, ": the case's metadata are not those its name was made from");
    // The file lands under a hidden temporary name, hashed there, then renamed;
    // the manifest listing it follows at once. Hash-only, it is hashed in
    // memory and never written.
    Temporary tmp(0);
    std::string sha;
    uint64_t bytes = 0;
    if (o.hash_only) {
      auto d = safetensors_digest(*st);
      if (!d.ok()) return d.error();
      sha = d->sha256;
      bytes = d->bytes;
    } else {
      LTT_TRY(tmp.track(cat(o.out, "/.", s.file, ".tmp.", getpid())));
      LTT_TRY(write_safetensors_in_place(tmp.path(), *st));
      auto h = sha256_file(tmp.path());
      if (!h.ok()) return h.error();
      sha = *h;
      bytes = fs::file_size(tmp.path(), ec);
      if (ec) return LTT_USAGE(tmp.path(), ": cannot stat: ", ec.message());
    }
    nlohmann::json entry{{"file", s.file}, {"sha256", sha}, {"bytes", bytes}, {"committed", !o.hash_only},
                         {"metadata", st->metadata}};
    auto& files = manifest->json["files"];
    auto it = std::find_if(files.begin(), files.end(), [&](const auto& e) { return e["file"] == s.file; });
    if (it != files.end())
      *it = entry;
    else
      files.push_back(entry);
    std::sort(files.begin(), files.end(), [](const auto& x, const auto& y) { return x["file"] < y["file"]; });
    const std::string text = json_text(manifest->json);
    {
      HoldSignals hold;
      const std::string path = cat(o.out, "/", s.file);
      if (!o.hash_only) {
        if (std::rename(tmp.path().c_str(), path.c_str()) != 0) {
          const int err = errno;
          return LTT_USAGE(tmp.path(), ": cannot rename it to ", path, ": ", std::strerror(err));
        }
        tmp.landed();
      }
      LTT_TRY(write_text_atomic(mpath, text));
    }
    prog.step(s.file);
    tab.row({s.file, st->metadata["tiers"], std::to_string(bytes), sha.substr(0, 16), fmt("%.1f", now_seconds() - a)});
  }
  prog.done();
  std::printf("# %s %s, each listed in %s %s; wall %.1f s\n", o.hash_only ? "hashed" : "wrote",
              counted(sets.size(), "set").c_str(), mpath.c_str(), o.hash_only ? "by its hash (no case file written)" : "as it landed",
              now_seconds() - t0);
  return 0;
}

Result<int> run_regress(const std::string& dir, const std::string& html, const std::string& command) {
  std::vector<std::vector<std::string>> html_rows;
  std::vector<std::string> html_notes;
  std::error_code ec;
  const double t0 = now_seconds();
  const std::string mpath = dir + "/manifest.json";
  DirLock lock;
  LTT_TRY(lock.take(dir, false));
  // From here a refusal (the manifest, an entry) or a kill leaves "did not finish", never an earlier run's pass.
  if (!html.empty()) LTT_TRY(claim_html(html, "ltt regress", command));
  auto manifest = read_manifest(mpath, true);
  if (!manifest.ok()) return manifest.error();
  const auto& files = manifest->json["files"];
  if (files.empty()) return LTT_USAGE(mpath, ": the manifest lists no file: nothing to regress");
  std::printf("# ltt regress: %s of %s regenerated and compared bit for bit\n", counted(files.size(), "set").c_str(), mpath.c_str());
  int file_width = 62;  // as wide as the longest name the manifest lists, so the rows line up
  for (const auto& e : files) file_width = std::max(file_width, static_cast<int>(e["file"].get<std::string>().size()));
  Table tab({{"file", "", file_width}, {"how", "", 7}, {"time", "s", 6}, {"verdict", "", 7}});
  tab.header();
  Progress prog(files.size());
  size_t drift = 0, errors = 0;
  std::set<std::string> versions;  // other ltt versions that wrote sets here
  CleanupOnSignal cleanup;
  for (size_t n = 0; n < files.size(); ++n) {
    const auto& e = files[n];
    const double a = now_seconds();
    const std::string file = e["file"];
    const bool committed = e.value("committed", true);
    // read_manifest read each entry's metadata (strings) and the case they describe
    const std::map<std::string, std::string>& listed = manifest->entries[n].metadata;
    const LoadedCase& c = manifest->entries[n].c;
    const std::string path = cat(dir, "/", file);
    const uint64_t listed_bytes = e["bytes"].get<uint64_t>();
    // A committed file carries its own metadata: an entry that says otherwise
    // is the manifest's drift, said before anything is regenerated from it.
    // A file cut short, grown or not safetensors is that set's drift (its
    // bytes are not golden's); one missing or that cannot be read (no
    // permission, a FIFO) is that set's error (exit 2 unless some set
    // drifted). Either way the other sets are still regressed.
    std::optional<SafeTensors> disk;
    std::string problem, error;
    if (committed) {
      const auto size = fs::file_size(path, ec);
      if (Status r = regular_file_to_read(path, false); !r.ok()) error = r.error().message;
      else if (ec) error = cat(path, ": ", ec.message());
      else if (size != listed_bytes) problem = cat("the file has ", size, " bytes, the manifest says ", listed_bytes);
      else if (auto d = read_safetensors(path); !d.ok()) {
        if (::access(path.c_str(), R_OK) != 0) error = d.error().message;
        else problem = cat("the file does not read back: ", d.error().message);
      } else disk = std::move(*d);
    } else if (fs::exists(path, ec)) {
      // Hash-only, yet a file of that name is here: it must be the set too.
      const Status readable = regular_file_to_read(path, false);
      auto sha = readable.ok() ? sha256_file(path) : Result<std::string>(readable.error());
      if (!sha.ok()) error = sha.error().message;
      else if (*sha != e["sha256"].get<std::string>())
        problem = cat("a file of this hash-only set's name is present and its SHA-256 ", *sha, " is not the manifest's");
    }
    if (!error.empty()) {
      prog.step(file);
      ++errors;
      tab.row({file, committed ? "tensors" : "hash", fmt("%.1f", now_seconds() - a), "ERROR"});
      html_rows.push_back({file, committed ? "tensors" : "hash", fmt("%.1f", now_seconds() - a), "ERROR"});
      html_notes.push_back(cat("ERROR ", file, ": ", error));
      std::printf("#   ERROR %s: %s\n", file.c_str(), error.c_str());
      continue;
    }
    if (disk) {
      for (const auto& [k, v] : listed)
        if (k != "ltt_version" && (!disk->metadata.count(k) || disk->metadata.at(k) != v)) {
          problem = cat("the manifest's metadata say ", k, " = '", v, "', the file's __metadata__ ",
                        disk->metadata.count(k) ? cat("'", disk->metadata.at(k), "'") : std::string("has none"));
          break;
        }
    }
    // The name carries everything that sets the contents: an entry whose
    // name its metadata would not give (a renamed file) is that set's drift.
    if (const std::string named = case_file_name(c.in.p, c.tiers, c.contract); problem.empty() && named != file)
      problem = cat("its metadata name the file ", named, " (a renamed file or an edited entry: ltt golden names every file)");
    if (problem.empty()) {
      LTT_TRY(flags::fits_in_memory({c.in.p}, "regress",
                                    cat("regress makes every set its manifest lists, as listed: run it where more memory is "
                                        "free, or take the entry '", file, "' out of ", mpath)));
      auto regen = build_case(c.in.p, c.tiers, c.contract);
      if (!regen.ok()) return regen.error();
      // The version that wrote the set is its provenance, not its contents:
      // the set is regenerated under that version string (the file's; a
      // hash-only set's, the manifest's), so that a newer ltt compares the
      // contents bit for bit, and the difference in versions is said.
      const auto& mv = committed ? disk->metadata : listed;
      if (auto it = mv.find("ltt_version"); it != mv.end() && it->second != kVersion) {
        regen->metadata["ltt_version"] = it->second;
        versions.insert(it->second);
      }
      // The manifest's metadata must be those of the set its name gives, key for key.
      if (auto k = metadata_difference(regen->metadata, listed, "in the manifest"); !k.empty()) {
        problem = cat("the manifest's metadata: ", k);
      } else if (committed) {
        problem = first_difference(*regen, *disk);
        if (problem.empty()) {
          auto sha = sha256_file(path);  // read once already: a failure now is the machine's, not the set's
          if (!sha.ok()) return sha.error();
          if (*sha != e["sha256"].get<std::string>()) problem = cat("the file's SHA-256 ", *sha, " is not the manifest's ", std::string(e["sha256"]));
        }
      } else {
        // Hashed in memory: nothing is written, so a read-only checkout regresses too.
        auto d = safetensors_digest(*regen);
        if (!d.ok()) return d.error();
        if (d->sha256 != e["sha256"].get<std::string>())
          problem = cat("SHA-256 of the regenerated file is ", d->sha256, ", the manifest says ", std::string(e["sha256"]));
        if (problem.empty() && d->bytes != listed_bytes)
          problem = cat("the regenerated file has ", d->bytes, " bytes, the manifest says ", listed_bytes);
      }
    }
    prog.step(file);
    tab.row({file, committed ? "tensors" : "hash", fmt("%.1f", now_seconds() - a), problem.empty() ? "same" : "DRIFT"});
    html_rows.push_back({file, committed ? "tensors" : "hash", fmt("%.1f", now_seconds() - a), problem.empty() ? "same" : "DRIFT"});
    if (!problem.empty()) html_notes.push_back(cat("DRIFT ", file, ": ", problem));
    if (!problem.empty()) {
      ++drift;
      std::printf("#   DRIFT %s: %s\n", file.c_str(), problem.c_str());
    }
  }
  prog.done();
  if (!versions.empty()) {
    const std::string n = cat("sets written by ltt ", join(versions), " (this is ", kVersion, ") were regenerated under their "
                              "own version string: the version is no part of a set's contents");
    std::printf("# %s\n", n.c_str());
    html_notes.push_back(n);
  }
  // Case files here that the manifest does not list are never regressed: said, so that a lost entry is seen.
  {
    std::set<std::string> listed;
    for (const auto& e : files) listed.insert(e["file"].get<std::string>());
    std::vector<std::string> unlisted;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string n = it->path().filename().string();
      if (n.size() > 12 && n.compare(n.size() - 12, 12, ".safetensors") == 0 && n[0] != '.' && !listed.count(n))
        unlisted.push_back(n);
    }
    std::sort(unlisted.begin(), unlisted.end());
    if (!unlisted.empty()) {
      const std::string n = cat(counted(unlisted.size(), "case file"), " here ", unlisted.size() == 1 ? "is" : "are",
                                " not in the manifest, so not regressed (ltt golden lists every file it writes): ",
                                join(unlisted, ", ", [](const std::string& u) { return printable(u); }));
      std::printf("# %s\n", n.c_str());
      html_notes.push_back(n);
    }
  }
  std::printf("# Drifted sets : %zu%s\n", drift, drift > 0 ? " FAILED" : errors > 0 ? "" : " OK");
  if (errors) std::printf("# Unreadable sets : %zu FAILED (the ERROR rows above: not judged)\n", errors);
  std::printf("# wall %.1f s\n", now_seconds() - t0);
  Status written;
  if (!html.empty())
    written = write_html_table(html, "ltt regress", command, {"file", "how", "time (s)", "verdict"}, html_rows, html_notes,
                               drift == 0 && errors == 0);
  if (errors > 0 && drift == 0 && written.ok())
    return LTT_USAGE(errors, " set(s) of ", mpath, " could not be read (the ERROR rows above): restore the files, or take their "
                     "entries out of the manifest");
  return exit_after_reports(drift > 0, written);
}

}  // namespace ltt
