// Flag values and the checks made before any work (flags.hpp).
#include "flags.hpp"
#include "outfile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <optional>
#include <set>

namespace ltt::flags {

namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& flag, const std::string& s) { return cat(flag, " '", s, "'"); }

// The comma-separated items of s; an empty item (or an empty s) is an error.
Result<std::vector<std::string>> items(const std::string& flag, const std::string& s) {
  if (s.empty()) return LTT_USAGE(flag, " is empty: give a value");
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) return LTT_USAGE(quoted(flag, s), ": item ", out.size() + 1, " is empty (a stray comma?)");
    out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Decimal digits only, no sign, no spaces; false on overflow of uint64.
bool parse_digits(const std::string& s, unsigned long long& v) {
  if (s.empty() || s.size() > 20) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  errno = 0;
  char* end = nullptr;
  v = std::strtoull(s.c_str(), &end, 10);
  return errno == 0 && *end == 0;
}

template <class T>
Status no_duplicates(const std::string& flag, const std::string& s, const std::vector<T>& v) {
  std::set<T> seen;
  for (const T& x : v)
    if (!seen.insert(x).second) {
      if constexpr (std::is_enum_v<T>)
        return LTT_USAGE(quoted(flag, s), ": ", name(x), " is given twice");
      else
        return LTT_USAGE(quoted(flag, s), ": ", x, " is given twice");
    }
  return {};
}

// An integer in [lo, hi], or nullopt with the reason in `why`.
std::optional<int> int_in(const std::string& s, long lo, long hi, std::string& why) {
  unsigned long long v = 0;
  const bool neg = !s.empty() && s[0] == '-';
  if (!parse_digits(neg ? s.substr(1) : s, v)) {
    const std::string digits = neg ? s.substr(1) : s;
    const bool all_digits = !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos;
    why = all_digits ? cat("is out of range: use ", lo, "..", hi) : std::string("is not an integer");
    return std::nullopt;
  }
  const double x = neg ? -static_cast<double>(v) : static_cast<double>(v);
  if (x < static_cast<double>(lo) || x > static_cast<double>(hi)) {
    why = cat("is out of range: use ", lo, "..", hi);
    return std::nullopt;
  }
  return static_cast<int>(neg ? -static_cast<long long>(v) : static_cast<long long>(v));
}

std::string fmt_bytes(double b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g GB", b / 1e9);
  return buf;
}

}  // namespace

Result<std::vector<int>> int_list(const std::string& flag, const std::string& s, long lo, long hi) {
  auto it = items(flag, s);
  if (!it.ok()) return it.error();
  std::vector<int> out;
  for (const auto& item : *it) {
    std::string why;
    const auto v = int_in(item, lo, hi, why);
    if (!v) return LTT_USAGE(quoted(flag, s), ": '", item, "' ", why);
    out.push_back(*v);
  }
  LTT_TRY(no_duplicates(flag, s, out));
  return out;
}

Result<int> integer(const std::string& flag, const std::string& s, long lo, long hi) {
  std::string why;
  const auto v = int_in(s, lo, hi, why);
  if (!v) return LTT_USAGE(quoted(flag, s), " ", why);
  return *v;
}

Result<uint64_t> u64(const std::string& flag, const std::string& s) {
  unsigned long long v = 0;
  if (!s.empty() && s[0] == '-') return LTT_USAGE(quoted(flag, s), " is negative: use 0..18446744073709551615");
  if (!parse_digits(s, v)) {
    bool digits = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) return LTT_USAGE(quoted(flag, s), " is too large: use 0..18446744073709551615");
    return LTT_USAGE(quoted(flag, s), " is not a non-negative integer");
  }
  return static_cast<uint64_t>(v);
}

Result<double> real(const std::string& flag, const std::string& s, double lo, double hi, bool lo_open) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return LTT_USAGE(quoted(flag, s), " is not a number");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != 0 || end == s.c_str()) return LTT_USAGE(quoted(flag, s), " is not a number");
  // strtod reads C's hexadecimal floats ("0x10", "0x1p3"); no flag takes one, as no integer flag does.
  if (s.find_first_of("xX") != std::string::npos) return LTT_USAGE(quoted(flag, s), " is not a decimal number");
  if (!std::isfinite(v)) return LTT_USAGE(quoted(flag, s), " is not a finite number");
  if (errno == ERANGE && std::fabs(v) < 1 && lo <= 0)  // in the range's reach but below double's normal numbers
    return LTT_USAGE(quoted(flag, s), " is below double's normal numbers (2.2e-308): use ", lo_open ? "(" : "[", lo, ", ", hi, "]",
                     " with a normal number");
  if (errno == ERANGE)  // past double's range
    return LTT_USAGE(quoted(flag, s), " is out of range: use ", lo_open ? "(" : "[", lo, ", ", hi, "]");
  if (v < lo || v > hi || (lo_open && v == lo))
    return LTT_USAGE(quoted(flag, s), " is out of range: use ", lo_open ? "(" : "[", lo, ", ", hi, "]");
  return v == 0 ? 0.0 : v;  // -0 is 0 (a report would say -0.0)
}

Result<std::vector<int>> tiers(const std::string& flag, const std::string& s) {
  if (s == "all") {
    std::vector<int> all;
    for (int k = 0; k < kNumTiers; ++k) all.push_back(k);
    return all;
  }
  auto v = int_list(flag, s, 0, kNumTiers - 1);
  if (!v.ok()) return LTT_USAGE(v.error().message, " (tiers: 0..", kNumTiers - 1, ", a comma list such as 0,2, or all)");
  return v;
}

Result<std::vector<Dist>> dists(const std::string& flag, const std::string& s) {
  if (s == "all") return std::vector<Dist>{Dist::realistic, Dist::exact, Dist::adversarial};
  auto it = items(flag, s);
  if (!it.ok()) return it.error();
  std::vector<Dist> out;
  for (const auto& item : *it) {
    auto d = parse_dist(item);
    if (!d && item == "all") return LTT_USAGE(quoted(flag, s), ": 'all' stands alone (give all, or a comma list of the others)");
    if (!d) return LTT_USAGE(quoted(flag, item), " not understood: use realistic, exact, adversarial or all");
    out.push_back(*d);
  }
  LTT_TRY(no_duplicates(flag, s, out));
  return out;
}

Result<Dims> dims(const std::string& flag, const std::string& s) {
  auto d = parse_dims(s);
  if (!d.ok()) return LTT_USAGE(flag, " ", d.error().message.substr(d.error().message.rfind("dims ", 0) == 0 ? 5 : 0));
  return d;
}

Result<Algo> algo(const std::string& flag, const std::string& s) {
  auto a = parse_algo(s);
  if (!a) return LTT_USAGE(quoted(flag, s), " not understood: use one-shot or ring");
  return *a;
}

Result<NormOrder> norm(const std::string& flag, const std::string& s) {
  auto n = parse_norm_order(s);
  if (!n) return LTT_USAGE(quoted(flag, s), " not understood: use fused or round-then-weight");
  return *n;
}

Result<std::vector<uint64_t>> seeds(const std::string& flag, const std::string& s) {
  auto it = items(flag, s);
  if (!it.ok()) return it.error();
  std::vector<uint64_t> out;
  for (const auto& item : *it) {
    const size_t dash = item.find('-');
    const std::string a = item.substr(0, dash), b = dash == std::string::npos ? a : item.substr(dash + 1);
    unsigned long long lo = 0, hi = 0;
    if (!parse_digits(a, lo) || !parse_digits(b, hi))
      return LTT_USAGE(quoted(flag, s), ": '", item, "' not understood: give seeds like 7, 0-199 or 0-9,20");
    if (lo > hi) return LTT_USAGE(quoted(flag, s), ": '", item, "' runs backwards: give the lower seed first (", hi, "-", lo, ")");
    if (hi - lo >= 1000000) return LTT_USAGE(quoted(flag, s), ": '", item, "' is more than a million seeds");
    for (unsigned long long v = lo;; ++v) {
      out.push_back(v);
      if (v == hi) break;
    }
  }
  LTT_TRY(no_duplicates(flag, s, out));
  return out;
}

Result<std::vector<std::string>> words(const std::string& flag, const std::string& s) {
  auto it = items(flag, s);
  if (!it.ok()) return it.error();
  LTT_TRY(no_duplicates(flag, s, *it));
  return it;
}

Result<std::string> choice(const std::string& flag, const std::string& s, const std::vector<std::string>& choices) {
  for (const auto& c : choices)
    if (s == c) return s;
  std::string list;
  for (size_t i = 0; i < choices.size(); ++i) list += cat(i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ", choices[i]);
  return LTT_USAGE(quoted(flag, s), " not understood: use ", list);
}

Result<std::string> path(const std::string& flag, const std::string& s) {
  if (s.empty()) return LTT_USAGE(flag, " is empty: give a path");
  return s;
}

Status writable_file(const std::string& flag, const std::string& p) {
  if (const auto fd = own_descriptor(p)) {  // written to the descriptor itself: it must be open for writing
    const int fl = ::fcntl(*fd, F_GETFL);
    if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
      return LTT_USAGE(flag, " ", p, ": descriptor ", *fd, " is ", fl < 0 ? "not open" : "open for reading only", " in this process");
    return {};
  }
  // A loop of links (which a write would replace by a file) or a name too long: said, naming the flag.
  if (auto k = path_kind(flag, p); !k.ok()) return k.error();
  std::error_code ec;
  const fs::path fp(p);
  if (fs::is_directory(fp, ec)) return LTT_USAGE(flag, " ", p, ": is a directory (give a file name)");
  if (same_file(p, "/proc/self/exe")) return LTT_USAGE(flag, " ", p, ": is this ltt's own program: give the report another name");
  if (fs::exists(fp, ec)) {
    if (access(p.c_str(), W_OK) != 0) return LTT_USAGE(flag, " ", p, ": cannot be written: ", std::strerror(errno));
    return {};
  }
  const fs::path parent = fp.parent_path().empty() ? fs::path(".") : fp.parent_path();
  if (!fs::exists(parent, ec)) return LTT_USAGE(flag, " ", p, ": the directory ", parent.string(), " does not exist");
  if (!fs::is_directory(parent, ec)) return LTT_USAGE(flag, " ", p, ": ", parent.string(), " is not a directory");
  if (access(parent.c_str(), W_OK | X_OK) != 0)
    return LTT_USAGE(flag, " ", p, ": cannot create a file in ", parent.string(), ": ", std::strerror(errno));
  return {};
}

Status writable_dir(const std::string& flag, const std::string& p) {
  // "-" is standard output to --json and the other reports; a folder is no stream.
  if (p == "-") return LTT_USAGE(flag, " -: files go into a folder, and '-' names standard output to the reports' flags: give a folder (./- for one called -)");
  if (auto k = path_kind(flag, p); !k.ok()) return k.error();  // a loop of links, a name too long
  std::error_code ec;
  fs::path at = fs::absolute(fs::path(p), ec);
  if (ec) return LTT_USAGE(flag, " ", p, ": ", ec.message());
  // The nearest existing ancestor (or the path itself) must be a writable directory.
  fs::path probe = at;
  while (!fs::exists(probe, ec) && probe.has_parent_path() && probe != probe.parent_path()) probe = probe.parent_path();
  if (!fs::is_directory(probe, ec)) {
    const fs::file_type t = fs::status(probe, ec).type();
    const char* what = t == fs::file_type::regular     ? "a file"
                       : t == fs::file_type::character ? "a character device"
                       : t == fs::file_type::block     ? "a block device"
                       : t == fs::file_type::fifo      ? "a FIFO"
                       : t == fs::file_type::socket    ? "a socket"
                                                       : "something else";
    return LTT_USAGE(flag, " ", p, ": ", probe.string(), " is ", what, ", not a directory");
  }
  if (access(probe.c_str(), W_OK | X_OK) != 0)
    return LTT_USAGE(flag, " ", p, ": cannot write in ", probe.string(), ": ", std::strerror(errno));
  return {};
}

Status not_an_input(const std::string& flag, const std::string& out, const std::vector<std::string>& inputs) {
  if (own_descriptor(out)) return {};
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(fs::absolute(out, ec), ec).parent_path();
  for (const auto& in : inputs) {
    // A report never goes into an input folder: a golden set's manifest and
    // case files, or outputs matched to cases by name, would be overwritten
    // or gain a file the next run reads.
    if (fs::is_directory(in, ec) && fs::equivalent(dir, in, ec))
      return LTT_USAGE(flag, " ", out, " is in the input directory ", in, ", whose files this run reads: write it elsewhere");
    if (fs::exists(out, ec) && fs::equivalent(out, in, ec))
      return LTT_USAGE(flag, " ", out, " is one of this run's inputs (", in, "): refusing to write over it");
  }
  return {};
}

bool same_file(const std::string& a, const std::string& b) {
  // Absolute first: weakly_canonical leaves a relative path that does not
  // exist yet as it is, so "q.json" and "$PWD/q.json" would compare unequal.
  // Links are followed first, a dangling one too: its target is the file a
  // write through it creates (link.md -> r.json names r.json before it exists).
  auto full = [](const std::string& given) {
    const std::string p = follow_links(given);
    std::error_code ec;
    fs::path abs = fs::absolute(p, ec);
    if (ec) abs = fs::path(p);
    const fs::path c = fs::weakly_canonical(abs, ec);
    return ec ? abs.lexically_normal() : c;
  };
  // Two names of one existing file (a hard link, a bind mount) are one file too.
  struct stat sa {}, sb {};
  return full(a) == full(b) ||
         (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

Status distinct_outputs(const std::vector<std::pair<std::string, std::string>>& flag_paths) {
  for (size_t i = 0; i < flag_paths.size(); ++i)
    for (size_t j = i + 1; j < flag_paths.size(); ++j) {
      const auto& [fa, a] = flag_paths[i];
      const auto& [fb, b] = flag_paths[j];
      if (a.empty() || b.empty()) continue;
      if (const auto da = own_descriptor(a), db = own_descriptor(b); da || db) {  // "-", /dev/stdout, /dev/fd/N
        if (da && db && *da == *db)
          return LTT_USAGE(fa, " ", a, " and ", fb, " ", b, " both write to descriptor ", *da,
                           *da == 1 ? " (standard output)" : "", ": the two reports would run together; send one to a file");
        continue;
      }
      struct stat st {};
      if (::stat(a.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) continue;  // a device (/dev/null) too: written in place, nothing replaced
      if (same_file(a, b)) return LTT_USAGE(fa, " and ", fb, " name the same file (", a, "): give each its own");
    }
  return {};
}

double case_bytes(const Problem& p) {
  const double T = p.T, M = p.M, H = p.H, L = p.L;
  return (8 * T + 128) * M * (H + L) + 40 * H * L;
}

double available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 1e300;
}

Status fits_in_memory(const std::vector<Problem>& cases, const char* what, const std::string& remedy) {
  if (cases.empty()) return {};
  const Problem* big = &cases[0];
  for (const auto& p : cases)
    if (case_bytes(p) > case_bytes(*big)) big = &p;
  const double need = case_bytes(*big), have = available_bytes();
  if (need > have)
    return LTT_USAGE(what, ": the case ", big->describe(), " needs at least ", fmt_bytes(need), " of memory and ",
                     fmt_bytes(have), " is available: ",
                     remedy.empty() ? std::string("use fewer tokens (--tokens), smaller dims (--dims) or a smaller --tp") : remedy);
  return {};
}

void Skipped::add(int tier, const Problem& p) {
  auto it = std::find_if(tiers_.begin(), tiers_.end(), [tier](const auto& t) { return t.first == tier; });
  if (it == tiers_.end()) it = tiers_.insert(tiers_.end(), {tier, {}});
  const std::pair<int, int> shape{p.T, p.M};
  if (std::find(it->second.begin(), it->second.end(), shape) == it->second.end()) it->second.push_back(shape);
}

std::vector<std::string> Skipped::lines() const {
  std::vector<std::string> out;
  for (const auto& [tier, shapes] : tiers_) {
    std::string at;
    const size_t shown = std::min<size_t>(shapes.size(), 6);
    for (size_t i = 0; i < shown; ++i) at += cat(i ? ", " : "", "T ", shapes[i].first, " M ", shapes[i].second);
    if (shapes.size() > shown) at += cat(", ... (", shapes.size(), " shapes)");
    out.push_back(cat("tier ", tier, " skipped at ", at, " (", tier == 0 ? kTier0Applies : "it does not apply there", ")"));
  }
  return out;
}

void Skipped::say(const char* caller) const {
  for (const auto& line : lines()) std::fprintf(stderr, "ltt %s: %s\n", caller, line.c_str());
}

int launched_processes() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"})
    if (const char* s = std::getenv(v)) {
      const int n = std::atoi(s);
      if (n > 0) return n;
    }
  return 1;
}

int launched_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return 0;
}

}  // namespace ltt::flags
