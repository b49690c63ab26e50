// ltt simulate: the timing model, its machine files, its check against
// ltt bench's measurements, and its table, JSON and SVG.
#include "simulate.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <variant>

#include "html.hpp"
#include "jsononce.hpp"
#include "machine_default.hpp"
#include "outfile.hpp"
#include "report.hpp"
#include "table.hpp"

namespace ltt {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A kernel moving `bytes`: the launch floor or the bandwidth (streaming, or
// the 2-D conversions).
double kern(const Machine& m, double bytes) { return std::max(m.launch_us, bytes / (m.copy_GBps * 1e3 * m.elem_eff)); }
double conv(const Machine& m, double bytes) { return std::max(m.launch_us, bytes / (m.copy_GBps * 1e3 * m.elem2d_eff)); }

// C [M, n] (fp32) = A [M, K] B [n, K]^T (+ C with an addend): the GEMM floor,
// the weight-bound time or the compute-bound time.
double gemm(const Machine& m, double M, double n, double K, bool addend, bool warm) {
  const double bytes = 2 * (M * K + n * K) + 4 * M * n * (addend ? 2 : 1);
  const double compute = 2 * M * n * K / (m.gemm_TFLOPs * 1e6);
  // Alone, the weight's read and the arithmetic overlap (the slower one
  // counts); a GEMM on a weight warm in L2 reads it fast but no longer hides
  // the arithmetic behind it (measured: tier 1's fake ranks at M 128-256).
  if (warm) return std::max(m.gemm_floor_us, bytes / (m.copy_GBps * 1e3 * m.gemm_warm_eff) + compute);
  return std::max({m.gemm_floor_us, bytes / (m.copy_GBps * 1e3 * m.gemm_mem_eff), compute});
}

// A measured shard GEMM of width n at M (log-linear in M between the
// measured points; below the smallest, its time; past the largest, its time
// grown as the model's `model(M)` grows), or NaN where none was measured.
template <class Model>
double shard_table(const Machine& m, double n, double M, Model model) {
  auto it = m.gemm_shard_us.find(static_cast<int>(n));
  if (it == m.gemm_shard_us.end() || it->second.empty()) return kNaN;
  const auto& t = it->second;
  auto hi = t.lower_bound(static_cast<int>(M));
  if (hi == t.end()) {
    const auto& [M_last, us_last] = *std::prev(hi);
    return us_last * model(M) / model(M_last);
  }
  if (hi->first == static_cast<int>(M) || hi == t.begin()) return hi->second;
  auto lo = std::prev(hi);
  const double f = (std::log(M) - std::log(lo->first)) / (std::log(hi->first) - std::log(lo->first));
  return lo->second + f * (hi->second - lo->second);
}

// An all-reduce (or reduce-scatter, half of it) of `bytes` per rank across T
// GPUs, within each node's g = min(T, GPUs per node) GPUs: NCCL's ring
// (2 (g-1)/g of the bytes over each link, one latency), a tree (the bytes
// twice, 2 log2 g peer latencies), or a one-shot over peer memory (g-1 peer
// reads, one peer latency); ranks on several nodes add the network's share
// between the nodes (a node of one GPU uses no link).
double nccl(const Machine& m, int T, double bytes, bool all_reduce) {
  if (T == 1) return 0;  // one rank: nothing to exchange
  const int g = std::min(T, m.gpus_per_node);
  const double link = m.link_GBps * 1e3;
  double t = 0;
  if (g > 1) {
    if (m.collective == "one-shot") t = m.link_us + (g - 1) * bytes / link;
    else if (m.collective == "tree") t = 2 * std::log2(static_cast<double>(g)) * m.link_us + (all_reduce ? 2.0 : 1.0) * bytes / link;
    else t = m.nccl_us + (all_reduce ? 2.0 : 1.0) * (g - 1) / g * bytes / link;
  }
  if (T > m.gpus_per_node) {
    const int nodes = (T + m.gpus_per_node - 1) / m.gpus_per_node;
    t += m.net_us + (all_reduce ? 2.0 : 1.0) * (nodes - 1) / nodes * bytes / (m.net_GBps * 1e3);
  }
  return t;
}

// Peer memory (tier 0): every rank reads `read` bytes from its T-1 peers.
double peer(const Machine& m, int T, double read) { return m.link_us + (T - 1) * read / (m.link_GBps * 1e3); }

}  // namespace

std::string json_reason(const std::exception& e) {
  const std::string w = e.what();
  const size_t close = w.rfind("[json.exception.", 0) == 0 ? w.find("] ") : std::string::npos;
  return close == std::string::npos ? w : w.substr(close + 2);
}

double predict_us(const Machine& m, int tier, Dims d, int T, int M, bool fake) {
  if (tier == 0 && (M > 128 || T < 2 || (!fake && T > m.gpus_per_node))) return kNaN;
  const double H = d.H, L = d.L, Mf = M, Hs = H / T, Ls = L / T;
  const double n = fake ? T : 1;  // per-rank kernels: once per rank on its GPU, or T times on one
  // A collective of `bytes` per rank: a kernel reading all T buffers on one GPU, or the link.
  auto allreduce = [&](double bytes) { return fake ? kern(m, 2 * T * bytes) : nccl(m, T, bytes, true); };
  const double rms = kern(m, 4 * Mf * L);
  // Tiers 0 and 2's shard GEMM: measured in a stream (fake ranks) where the
  // table has its width, at the table's L.
  auto shard_gemm = [&](double Mq) {
    auto model = [&](double Mx) { return gemm(m, Mx, Hs, L, true, fake); };
    const double t = fake && d.L == m.gemm_shard_L ? shard_table(m, Hs, Mq, model) : kNaN;
    return std::isnan(t) ? model(Mq) : t;
  };
  switch (tier) {
    case 0: {  // sanitise and check R and S; all-reduce R; reduce-scatter S; per rank RMSNorm, widen, GEMM, round; Lamport
      double t = n * (kern(m, 4 * Mf * L) + kern(m, 4 * Mf * H) + kern(m, 2 * Mf * L) + kern(m, 2 * Mf * H));
      t += n * (rms + conv(m, 6 * Mf * Hs) + shard_gemm(Mf) + conv(m, 6 * Mf * Hs));
      if (fake) t += kern(m, 4 * T * Mf * L) + kern(m, 2 * T * Mf * H + 2 * Mf * H) + kern(m, 2 * Mf * H) +
                     conv(m, 4 * Mf * H) + kern(m, 2 * Mf * H * (1 + T));
      else t += peer(m, T, 2 * Mf * L) + peer(m, T, 2 * Mf * Hs) + peer(m, T, 2 * Mf * Hs);
      return t;
    }
    case 1: {  // all-reduce R; RMSNorm; GEMM, round (main) while S is all-reduced (aux); add
      const double main = n * (rms + kern(m, 4 * Mf * H) + gemm(m, Mf, H, L, false, fake) + conv(m, 6 * Mf * H));
      const double aux = allreduce(2 * Mf * H);
      const double add = n * kern(m, 6 * Mf * H);
      const double r = allreduce(2 * Mf * L);
      return fake ? r + main + aux + add : r + std::max(main, aux) + add;  // one GPU's streams share its bandwidth
    }
    case 2:  // all-reduce R; per rank copy S, RMSNorm, widen shard, shard GEMM, round; all-reduce the partials
      return allreduce(2 * Mf * L) +
             n * (kern(m, 4 * Mf * H) + rms + conv(m, 6 * Mf * Hs) + shard_gemm(Mf) + conv(m, 6 * Mf * Hs)) +
             allreduce(2 * Mf * H);
    case 3:  // concatenate; all-reduce [R | S]; RMSNorm, widen, GEMM, round
      return n * conv(m, 4 * Mf * (L + H)) + allreduce(2 * Mf * (L + H)) +
             n * (rms + conv(m, 6 * Mf * H) + gemm(m, Mf, H, L, true, fake) + conv(m, 6 * Mf * H));
    case 4:  // all-reduce R; RMSNorm, widen S, K = L/T GEMM, round; all-reduce the partials
      return allreduce(2 * Mf * L) + n * (rms + conv(m, 6 * Mf * H) + gemm(m, Mf, H, Ls, true, fake) + conv(m, 6 * Mf * H)) +
             allreduce(2 * Mf * H);
    default:
      return kNaN;
  }
}

namespace {

// A key of the shard table: a whole number written plainly ("896"; not
// "0896", which would be a second key for one width), else -1.
int whole(const std::string& k) {
  if (k.empty() || k.size() > 9 || k.find_first_not_of("0123456789") != std::string::npos || (k.size() > 1 && k[0] == '0'))
    return -1;
  return std::stoi(k);
}

Result<Machine> parse_machine(const std::string& text, const std::string& path) {
  try {
    std::string problem;
    const auto j = parse_json_once(text, problem);
    if (!problem.empty()) return LTT_USAGE(path, ": not a machine file: ", problem, " (ltt bench --machine-out writes one)");
    if (!j.is_object())
      return LTT_USAGE(path, ": not a machine file: the top level is a JSON ", j.type_name(),
                       ", not an object (ltt bench --machine-out and ltt simulate --fit write one)");
    // A key the model does not read is a typo or another tool's file: refused,
    // naming it, rather than the default it leaves in place used in silence.
    static const std::set<std::string> known = {
        "name",          "source",    "copy_GBps", "launch_us",     "elem_eff", "elem2d_eff",    "gemm_warm_eff",
        "gemm_floor_us", "gemm_mem_eff", "gemm_TFLOPs", "link_GBps", "link_us", "nccl_us",       "net_GBps",
        "net_us",        "gpus_per_node", "gemm_shard_us", "gemm_shard_L"};
    for (const auto& [key, value] : j.items())
      if (!known.count(key))
        return LTT_USAGE(path, ": the machine file has the key '", key, "', which no machine figure bears (they are ",
                         join(std::vector<std::string>(known.begin(), known.end()), ", "),
                         "): correct its name or remove it; the collective is the flag --collective");
    for (const char* key : {"name", "source"})  // words, said by key (nlohmann's type error names none)
      if (j.contains(key) && !j[key].is_string())
        return LTT_USAGE(path, ": '", key, "' is ", json_excerpt(j[key]), ", not a string");
    Machine m;
    m.name = j.value("name", path);
    m.source = j.value("source", "");
    for (auto [key, field] : std::vector<std::pair<const char*, double*>>{
             {"copy_GBps", &m.copy_GBps}, {"launch_us", &m.launch_us}, {"elem_eff", &m.elem_eff}, {"elem2d_eff", &m.elem2d_eff},
             {"gemm_warm_eff", &m.gemm_warm_eff},
             {"gemm_floor_us", &m.gemm_floor_us}, {"gemm_mem_eff", &m.gemm_mem_eff}, {"gemm_TFLOPs", &m.gemm_TFLOPs},
             {"link_GBps", &m.link_GBps}, {"link_us", &m.link_us}, {"nccl_us", &m.nccl_us}, {"net_GBps", &m.net_GBps},
             {"net_us", &m.net_us}}) {
      if (!j.contains(key))
        return LTT_USAGE(path, ": the machine file lacks the number '", key, "' (ltt bench --machine-out writes a whole one)");
      if (!j[key].is_number()) return LTT_USAGE(path, ": '", key, "' is ", json_excerpt(j[key]), ", not a number");
      *field = j[key].get<double>();
      if (!(*field > 0) || !std::isfinite(*field)) return LTT_USAGE(path, ": '", key, "' must be a finite number > 0");
    }
    if (!j.contains("gpus_per_node"))
      return LTT_USAGE(path, ": the machine file lacks 'gpus_per_node', the GPUs of one node (ltt bench --machine-out writes ",
                       "a whole file; 8 for an HGX node)");
    if (const auto& g = j["gpus_per_node"]; !g.is_number_integer() || g.get<long long>() < 1 || g.get<long long>() > kMaxGpusPerNode)
      return LTT_USAGE(path, ": 'gpus_per_node' must be a whole number from 1 to ", kMaxGpusPerNode, " (it is ", json_excerpt(g), ")");
    m.gpus_per_node = j["gpus_per_node"].get<int>();
    if (j.contains("gemm_shard_L") && !(j["gemm_shard_L"].is_number_integer() && j["gemm_shard_L"].get<long long>() >= 1 &&
                                         j["gemm_shard_L"].get<long long>() <= 1000000000))
      return LTT_USAGE(path, ": 'gemm_shard_L' must be a whole number >= 1 (it is ", json_excerpt(j["gemm_shard_L"]), ")");
    if (j.contains("gemm_shard_us") && !(j["gemm_shard_us"].is_object() && j["gemm_shard_us"].empty())) {
      if (!j.contains("gemm_shard_L"))
        return LTT_USAGE(path, ": 'gemm_shard_us' needs 'gemm_shard_L', the latent width L its GEMMs were measured at (files ",
                         "of an ltt before it lack it): add it (\"gemm_shard_L\": 3584 for figures of k3 sizes) or refit with ",
                         "ltt simulate --fit");
      const auto& l = j["gemm_shard_L"];
      if (!l.is_number_integer() || l.get<long long>() < 1 || l.get<long long>() > 1000000000)
        return LTT_USAGE(path, ": 'gemm_shard_L' must be a whole number >= 1 (it is ", json_excerpt(l), ")");
      m.gemm_shard_L = l.get<int>();
      if (!j["gemm_shard_us"].is_object())
        return LTT_USAGE(path, ": 'gemm_shard_us' must be an object: shard width -> {M -> us}");
      for (const auto& [n, row] : j["gemm_shard_us"].items()) {
        const int w = whole(n);
        if (w < 1 || !row.is_object() || row.empty())
          return LTT_USAGE(path, ": 'gemm_shard_us' key '", n, "' must be a shard width (a whole number >= 1) holding {M -> us}, not empty");
        for (const auto& [M, us] : row.items()) {
          const int t = whole(M);
          if (t < 1 || !us.is_number() || !(us.get<double>() > 0) || !std::isfinite(us.get<double>()))
            return LTT_USAGE(path, ": 'gemm_shard_us' ", n, " -> '", M, "': want a token count >= 1 and a finite time > 0 us");
          m.gemm_shard_us[w][t] = us.get<double>();
        }
      }
    }
    LTT_TRY(check_machine(m, path));
    return m;
  } catch (const std::exception& e) {
    return LTT_USAGE(path, ": not a machine file (JSON): ", json_reason(e));
  }
}

}  // namespace

// Bounds wide enough for any GPU and link and narrow enough that every
// prediction stays a finite number of microseconds: rates from 1e-3 (GB/s,
// TFLOP/s) to 1e9, latencies up to 1e9 us, efficiencies up to 100 (a fitted
// one can pass 1 where a kernel ran from the L2).
Status check_machine(const Machine& m, const std::string& what) {
  for (auto [key, v] : std::vector<std::pair<const char*, double>>{
           {"copy_GBps", m.copy_GBps}, {"gemm_TFLOPs", m.gemm_TFLOPs}, {"link_GBps", m.link_GBps}, {"net_GBps", m.net_GBps}})
    if (!(v >= 1e-3 && v <= 1e9)) return LTT_USAGE(what, ": '", key, "' is ", v, ": a rate must lie in [0.001, 1e9]");
  for (auto [key, v] : std::vector<std::pair<const char*, double>>{{"launch_us", m.launch_us}, {"gemm_floor_us", m.gemm_floor_us},
                                                                   {"link_us", m.link_us}, {"nccl_us", m.nccl_us}, {"net_us", m.net_us}})
    if (!(v > 0 && v <= 1e9)) return LTT_USAGE(what, ": '", key, "' is ", v, ": a latency must lie in (0, 1e9] us");
  for (auto [key, v] : std::vector<std::pair<const char*, double>>{{"elem_eff", m.elem_eff}, {"elem2d_eff", m.elem2d_eff},
                                                                   {"gemm_mem_eff", m.gemm_mem_eff}, {"gemm_warm_eff", m.gemm_warm_eff}})
    if (!(v >= 1e-6 && v <= 100)) return LTT_USAGE(what, ": '", key, "' is ", v, ": an efficiency must lie in [1e-6, 100]");
  if (m.gpus_per_node < 1 || m.gpus_per_node > kMaxGpusPerNode)
    return LTT_USAGE(what, ": 'gpus_per_node' is ", m.gpus_per_node, ": it must lie in [1, ", kMaxGpusPerNode, "]");
  for (const auto& [n, row] : m.gemm_shard_us)
    for (const auto& [M, us] : row)
      if (!(n >= 1 && M >= 1 && us > 0 && us <= 1e9))
        return LTT_USAGE(what, ": 'gemm_shard_us' ", n, " -> ", M, " is ", us, " us: want a width and M >= 1 and (0, 1e9] us");
  return {};
}

Result<Machine> load_machine(const std::string& path) {
  if (auto s = regular_file_to_read(path, true); !s.ok()) return LTT_USAGE("--machine ", s.error().message, " (a machine file)");
  auto text = read_text_file(path);
  if (!text.ok()) return LTT_USAGE("--machine ", text.error().message);
  return parse_machine(*text, path);
}

Machine default_machine() {
  auto m = parse_machine(kDefaultMachineJson, kDefaultMachinePath);
  return m.ok() ? *m : Machine{};  // the build embeds a valid file; the test simulate.default holds it
}

namespace {

// A machine's figures as its file holds them.
nlohmann::json machine_json(const Machine& m) {
  const nlohmann::json j{{"name", m.name},           {"source", m.source},         {"copy_GBps", m.copy_GBps},
                         {"launch_us", m.launch_us}, {"elem_eff", m.elem_eff},     {"elem2d_eff", m.elem2d_eff},
                         {"gemm_warm_eff", m.gemm_warm_eff}, {"gemm_floor_us", m.gemm_floor_us},
                         {"gemm_mem_eff", m.gemm_mem_eff}, {"gemm_TFLOPs", m.gemm_TFLOPs}, {"link_GBps", m.link_GBps},
                         {"link_us", m.link_us},     {"nccl_us", m.nccl_us},       {"gpus_per_node", m.gpus_per_node},
                         {"net_GBps", m.net_GBps},   {"net_us", m.net_us}};
  nlohmann::json jj = j;
  for (const auto& [n, row] : m.gemm_shard_us)
    for (const auto& [M, us] : row) jj["gemm_shard_us"][std::to_string(n)][std::to_string(M)] = us;
  if (!m.gemm_shard_us.empty()) jj["gemm_shard_L"] = m.gemm_shard_L;
  return jj;
}

}  // namespace

Status save_machine(const Machine& m, const std::string& path) {
  return write_text_file("--machine-out", path, json_text(machine_json(m)));
}

namespace {

// What ltt bench's --json holds, checked before any figure is read: an
// object with dims [H, L] and a list of rows, each naming what it timed, at
// which T and M, and its median. "" when it is that, else what is not.
std::string bench_shape(const nlohmann::json& b, bool need_dims = true) {
  if (!b.is_object()) return cat("the top level is a JSON ", b.type_name(), ", not an object");
  if (b.contains("finished") && b["finished"] == false)
    return "its run did not finish: it holds the rows timed before the run ended, or none; rerun ltt bench to the end";
  if (!b.contains("rows") || !b["rows"].is_array()) return "no 'rows' list";
  const nlohmann::json& d = b.contains("dims") ? b["dims"] : nlohmann::json();
  auto size = [](const nlohmann::json& v) { return v.is_number_integer() && v.get<long long>() >= 1 && v.get<long long>() <= 1000000000; };
  if ((need_dims || b.contains("dims")) && (!d.is_array() || d.size() != 2 || !size(d[0]) || !size(d[1])))
    return "no 'dims' [H, L] of whole numbers >= 1";
  size_t i = 0;
  std::map<std::tuple<std::string, long long, long long, std::string>, size_t> seen;  // (what, tp, tokens, transport) -> its row
  for (const auto& r : b["rows"]) {
    const bool ok = r.is_object() && r.contains("what") && r["what"].is_string() && r.contains("tp") && size(r["tp"]) &&
                    r.contains("tokens") && size(r["tokens"]) && r.contains("median_us") && r["median_us"].is_number() &&
                    r["median_us"].get<double>() > 0 && r["median_us"].get<double>() <= 1e9;
    if (!ok) {
      return cat("row ", i, " is not {what, tp >= 1, tokens >= 1, median_us in (0, 1e9]}: ", json_excerpt(r));
    }
    // A median under a nanosecond is no kernel's time: the file was edited.
    if (const double us = r["median_us"].get<double>(); us < 1e-3)
      return cat("row ", i, " (", r["what"].get<std::string>(), " at T ", r["tp"].get<long long>(), " M ", r["tokens"].get<long long>(),
                 ") has median_us ", us, ": not a measured time");
    // ltt bench times each case once: a row twice would count, or be dropped, by its place in the list.
    // (Real ranks' rows differ by their transport too.)
    const std::string transport = r.contains("transport") ? r["transport"].dump() : "";
    const auto [at, fresh] =
        seen.emplace(std::make_tuple(r["what"].get<std::string>(), r["tp"].get<long long>(), r["tokens"].get<long long>(), transport), i);
    if (!fresh)
      return cat("row ", i, " (", r["what"].get<std::string>(), " at T ", r["tp"].get<long long>(), " M ", r["tokens"].get<long long>(),
                 transport.empty() ? "" : cat(", transport ", transport), ") is given twice (row ", at->second,
                 " too): ltt bench times each case once (two runs' rows joined? keep one)");
    ++i;
  }
  return "";
}

Status bench_figures(const nlohmann::json& b) {
  if (auto why = bench_shape(b); !why.empty())
    return LTT_USAGE("not ltt bench figures (", why, "): give the --json of ltt bench --backend cuda");
  return {};
}

}  // namespace

Status add_shard_gemms(Machine& m, const nlohmann::json& b) {
  LTT_TRY(bench_figures(b));
  const long long H = b["dims"][0].get<long long>(), L = b["dims"][1].get<long long>();
  if (m.gemm_shard_L != 0 && L != m.gemm_shard_L)
    return LTT_USAGE("its dims have L ", L, ", the first file's ", m.gemm_shard_L,
                     ": a machine's shard GEMM table is of one L (fit these dims from their own files)");
  m.gemm_shard_L = static_cast<int>(L);
  size_t added = 0;
  for (const auto& r : b["rows"])
    if (r["what"] == "gemm-shard") {
      const long long T = r["tp"].get<long long>(), M = r["tokens"].get<long long>();
      if (T > H || H % T != 0)
        return LTT_USAGE("not ltt bench figures: a gemm-shard row has tp ", T, ", which does not divide H ", H);
      // Another file's figures for the same shard and M would replace the first's unsaid.
      auto& row = m.gemm_shard_us[static_cast<int>(H / T)];
      if (row.count(static_cast<int>(M)))
        return LTT_USAGE("its gemm-shard row at tp ", T, ", tokens ", M, " times a shard (", H / T, " columns) and M that an earlier "
                         "file timed: give each T's figures once");
      row[static_cast<int>(M)] = r["median_us"].get<double>();
      ++added;
    }
  if (added == 0) return LTT_USAGE("no 'gemm-shard' rows: nothing to add (ltt bench --backend cuda, one process, writes them)");
  return {};
}

Status fit_possible(Dims d, const std::vector<int>& tokens, const std::vector<int>& tiers) {
  const double M = tokens.empty() ? 0 : *std::max_element(tokens.begin(), tokens.end());
  const double stream = std::min(bench_rmsnorm_bytes(M, d.L), bench_conv_bytes(M, d.H));
  const char* remedy = " (--machine-out fits the model's one-GPU figures; give --tokens up to 2048 or more, at k3 sizes)";
  if (!(stream >= kFitStreamBytes))
    return LTT_USAGE("--machine-out: at the largest M, ", M, ", the streaming kernels move ", fmt("%.2g", stream / 1e6),
                     " MB; their bandwidth is fitted on a run of at least ", kFitStreamBytes / 1e6, " MB", remedy);
  if (M < kFitGemmTokens)
    return LTT_USAGE("--machine-out: the GEMM's rate is fitted at a compute-bound M, at least ", kFitGemmTokens,
                     "; the largest here is ", M, remedy);
  if (std::find(tiers.begin(), tiers.end(), 1) == tiers.end())
    return LTT_USAGE("--machine-out: the warm GEMM is fitted from tier 1's time: give tier 1 in --tier");
  return {};
}

std::string bench_command(const nlohmann::json& b) {
  const auto c = b.find("command");
  return c != b.end() && c->is_string() ? c->get<std::string>() : std::string("an ltt bench run that names no command");
}

Result<Machine> fit_machine(const nlohmann::json& b, const std::string& fitted_by) {
  LTT_TRY(bench_figures(b));
  if (b.contains("processes"))
    return LTT_USAGE("figures of ", json_excerpt(b["processes"]), " processes (mpirun, real ranks): a machine is fitted from one ",
                     "process's fake ranks (ltt bench --backend cuda, without mpirun)");
  if (!b.contains("copy_GBps") || !b["copy_GBps"].is_number() || !(b["copy_GBps"].get<double>() > 0) ||
      !std::isfinite(b["copy_GBps"].get<double>()))
    return LTT_USAGE("not ltt bench figures: no 'copy_GBps' (the copy bandwidth the same run measured, a number > 0)");
  try {
    Machine m;
    m.name = cat(b.value("device", "?"), " (one GPU, fitted; link figures: leads)");
    m.source = cat("one-GPU figures fitted by `", fitted_by.empty() ? bench_command(b) : fitted_by, "`",
                   fitted_by.empty() ? std::string() : cat(" from `", bench_command(b), "`"),
                   "; link, NCCL and network figures are leads: NVLink bus bandwidth 287 GB/s measured by an NCCL all-reduce "
                   "on two H200s (DESIGN.md section 7)");
    m.copy_GBps = b["copy_GBps"].get<double>();
    std::map<std::string, std::vector<const nlohmann::json*>> by;
    for (const auto& r : b["rows"]) by[r["what"].get<std::string>()].push_back(&r);
    for (const char* need : {"launch", "rmsnorm", "widen", "round", "gemm-shard", "gemm-full"})
      if (by[need].empty())
        return LTT_USAGE("the bench figures lack '", need, "' rows (ltt bench --backend cuda writes them; an older ltt bench may not)");
    if (by["tier1-all"].empty())
      return LTT_USAGE("the bench figures lack 'tier1-all' rows: run ltt bench --backend cuda with tier 1 (no --tier, or --tier 1,...)");
    auto us = [](const nlohmann::json* r) { return r->at("median_us").get<double>(); };
    auto by_m = [](const nlohmann::json* a, const nlohmann::json* c) { return a->at("tokens").get<int>() < c->at("tokens").get<int>(); };
    for (auto& [k, v] : by) std::sort(v.begin(), v.end(), by_m);
    // The efficiencies are fitted at the largest runs: those must be large.
    for (const char* what : {"rmsnorm", "widen", "round"}) {
      const auto* r = by[what].back();
      const double bytes = r->at("bytes").get<double>();
      if (!(bytes >= kFitStreamBytes))
        return LTT_USAGE("the largest '", what, "' run (M ", r->at("tokens").get<int>(), ") moves ", fmt("%.2g", bytes / 1e6),
                         " MB: its bandwidth is fitted there and needs a run of at least ", kFitStreamBytes / 1e6,
                         " MB (ltt bench --tokens up to 2048 or more, at k3 sizes)");
    }
    if (by["gemm-full"].back()->at("tokens").get<int>() < kFitGemmTokens)
      return LTT_USAGE("the largest 'gemm-full' run has M ", by["gemm-full"].back()->at("tokens").get<int>(),
                       ": the GEMM's rate is fitted at a compute-bound M, at least ", kFitGemmTokens,
                       " (ltt bench --tokens up to 2048 or more)");
    m.launch_us = us(by["launch"].front());
    const double bw = m.copy_GBps * 1e3;
    // Streaming kernels: RMSNorm at the largest M; the 2-D conversions at the largest M.
    const auto* nm = by["rmsnorm"].back();
    m.elem_eff = nm->at("bytes").get<double>() / (us(nm) * bw);
    const auto* w = by["widen"].back();
    const auto* r = by["round"].back();
    m.elem2d_eff = (w->at("bytes").get<double>() / (us(w) * bw) + r->at("bytes").get<double>() / (us(r) * bw)) / 2;
    m.gemm_floor_us = us(by["gemm-shard"].front());
    const auto* g1 = by["gemm-full"].front();
    const auto* gN = by["gemm-full"].back();
    m.gemm_mem_eff = g1->at("bytes").get<double>() / (us(g1) * bw);
    m.gemm_TFLOPs = gN->at("flops").get<double>() / (us(gN) * 1e6);
    // The warm GEMM: what is left of tier 1's fake-rank time at the smallest M
    // once its other kernels (modelled with the figures above) are taken out,
    // per rank: T full GEMMs back to back on one weight.
    const auto& t1 = by["tier1-all"];
    const int T = t1.front()->at("tp").get<int>(), M = t1.front()->at("tokens").get<int>();
    const Dims d{b.at("dims")[0].get<int>(), b.at("dims")[1].get<int>()};
    if (d.H % T != 0) return LTT_USAGE("not ltt bench figures: tier1-all at T ", T, ", which does not divide H ", d.H);
    LTT_TRY(add_shard_gemms(m, b));
    m.gemm_warm_eff = 1.0;  // placeholder: predict with a free GEMM, then solve for it
    const double gemm_bytes = 2.0 * (static_cast<double>(M) * d.L + static_cast<double>(d.H) * d.L) + 4.0 * M * d.H;
    const double rest = predict_us(m, 1, d, T, M, true) - T * std::max(m.gemm_floor_us, gemm_bytes / bw);
    const double per_gemm = (us(t1.front()) - rest) / T;
    if (!(per_gemm > 0)) return LTT_USAGE("tier 1's measured time is below its modelled non-GEMM kernels: the model does not fit");
    m.gemm_warm_eff = std::min(1.0, gemm_bytes / (per_gemm * bw));
    if (auto st = check_machine(m, "the machine fitted from these bench figures"); !st.ok())
      return LTT_USAGE(st.error().message, " (are they ltt bench's own?)");
    return m;
  } catch (const std::exception& e) {
    return LTT_USAGE("not ltt bench figures: ", json_reason(e));
  }
}

namespace {

std::vector<int> default_tokens() {
  std::vector<int> t;
  for (int M = 1; M <= 16384; M *= 2) t.push_back(M);
  return t;
}

// The fastest tier at M among `tiers` (ties: the lower tier), -1 if none applies.
int fastest(const Machine& m, Dims d, int T, int M, bool fake, const std::vector<int>& tiers) {
  int best = -1;
  double bt = 0;
  for (int k : tiers) {
    const double t = predict_us(m, k, d, T, M, fake);
    if (!std::isnan(t) && (best < 0 || t < bt)) best = k, bt = t;
  }
  return best;
}

// Where the fastest of `tiers` changes: M is the first token count of `to`.
struct Change {
  int M, from, to;
};

// Every M in (lo, hi] whose fastest tier differs from M - 1's, in order.
// Every M is looked at up to lo + 65536; past that, 4096 points evenly
// spaced in log M, with a bisection wherever two neighbours differ (a
// change undone again between two such points, under 0.5% of M apart at
// M 2^30, would not be seen).
std::vector<Change> changes(const Machine& m, Dims d, int T, int lo, int hi, bool fake, const std::vector<int>& tiers) {
  std::vector<Change> out;
  auto best = [&](int M) { return fastest(m, d, T, M, fake, tiers); };
  int at = lo, cur = best(lo);  // cur is the fastest at `at`
  auto advance_to = [&](int M) {
    for (int f = best(M); f != cur; f = best(M)) {
      int a = at, b = M;  // best(a) == cur, best(b) != cur
      while (b - a > 1) {
        const int mid = a + (b - a) / 2;
        (best(mid) == cur ? a : b) = mid;
      }
      out.push_back({b, cur, best(b)});
      cur = best(b), at = b;
    }
    at = M;
  };
  const int dense_end = static_cast<int>(std::min<long long>(hi, static_cast<long long>(lo) + 65536));
  for (int M = lo + 1; M <= dense_end; ++M) advance_to(M);
  if (hi > dense_end) {
    const double r = std::pow(static_cast<double>(hi) / dense_end, 1.0 / 4096);
    for (int i = 1; i <= 4096; ++i) {
      const int M = i == 4096 ? hi : static_cast<int>(std::min<double>(hi, std::round(dense_end * std::pow(r, i))));
      if (M > at) advance_to(M);
    }
  }
  return out;
}

// "tier 0 -> 1 at M 129 (tier 0 does not apply past M 128)", the reason
// said when the tier left behind stops applying rather than being overtaken.
std::string change_text(const Machine& m, Dims d, int T, bool fake, const Change& c) {
  auto tier = [](int k) { return k < 0 ? std::string("no tier") : cat("tier ", k); };
  std::string s = cat(tier(c.from), " -> ", c.to < 0 ? std::string("none") : std::to_string(c.to), " at M ", c.M);
  if (c.from >= 0 && std::isnan(predict_us(m, c.from, d, T, c.M, fake)))
    s += cat(" (tier ", c.from, " does not apply past M ", c.M - 1, ")");
  return s;
}

std::string svg_plot(const Machine& m, const SimulateOptions& o, const std::vector<int>& Ms) {
  const char* colours[kNumTiers] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"};
  // padL: room for the latency labels ("100000 us") left of each panel.
  const int W = 720, Hp = 300, pad = 60, padL = 80, top = 56;
  const int H = static_cast<int>(o.tp.size()) * (Hp + 40) + top;
  std::string s = cat("<svg xmlns='http://www.w3.org/2000/svg' width='", W, "' height='", H,
                      "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n");
  s += cat("<text x='", padL, "' y='20' font-size='14'>ltt simulate: predicted latency per tier (",
           o.fake ? "fake ranks on one GPU" : "one rank per GPU", ")</text>\n<text x='", padL, "' y='38'>", html_escape(m.name),
           "</text>\n");
  for (size_t pi = 0; pi < o.tp.size(); ++pi) {
    const int T = o.tp[pi];
    const int y0 = top + static_cast<int>(pi) * (Hp + 40);
    double lo = 1e300, hi = 0;
    for (int k = 0; k < kNumTiers; ++k)
      for (int M : Ms) {
        const double t = predict_us(m, k, o.dims, T, M, o.fake);
        if (!std::isnan(t)) lo = std::min(lo, t), hi = std::max(hi, t);
      }
    if (hi <= 0 || !std::isfinite(lo) || !std::isfinite(hi)) continue;
    const double lx0 = std::log10(Ms.front()), lx1 = std::log10(std::max(Ms.back(), Ms.front() + 1));
    const double ly0 = std::floor(std::log10(lo)), ly1 = std::ceil(std::log10(hi));
    auto X = [&](double M) { return padL + (std::log10(M) - lx0) / (lx1 - lx0) * (W - padL - pad); };
    auto Y = [&](double t) { return y0 + Hp - (std::log10(t) - ly0) / std::max(ly1 - ly0, 1.0) * Hp; };
    s += cat("<rect x='", padL, "' y='", y0, "' width='", W - padL - pad, "' height='", Hp, "' fill='none' stroke='#888'/>\n");
    s += cat("<text x='", padL + 5, "' y='", y0 + 15, "'>T ", T,
             T > m.gpus_per_node && !o.fake ? cat(" (", (T + m.gpus_per_node - 1) / m.gpus_per_node, " nodes)") : std::string(),
             "</text>\n");
    for (double e = ly0; e <= ly1; ++e)
      s += cat("<text x='5' y='", Y(std::pow(10, e)) + 4, "'>", std::pow(10, e), " us</text>\n");
    for (int M : Ms)
      if ((M & (M - 1)) == 0 && (Ms.size() < 20 || std::log2(M) == std::floor(std::log2(M) / 2) * 2))
        s += cat("<text x='", X(M) - 8, "' y='", y0 + Hp + 14, "'>", M, "</text>\n");
    for (int k = 0; k < kNumTiers; ++k) {
      std::string pts, dots;  // the line, and a dot at each M (a line of one point draws nothing)
      for (int M : Ms) {
        const double t = predict_us(m, k, o.dims, T, M, o.fake);
        if (std::isnan(t)) continue;
        pts += cat(X(M), ",", Y(t), " ");
        dots += cat("<circle cx='", X(M), "' cy='", Y(t), "' r='2.5' fill='", colours[k], "'/>");
      }
      if (pts.empty()) continue;
      s += cat("<polyline fill='none' stroke='", colours[k], "' stroke-width='2' points='", pts, "'/>", dots, "\n");
      s += cat("<text x='", W - pad + 5, "' y='", y0 + 15 + 14 * k, "' fill='", colours[k], "'>tier ", k, "</text>\n");
    }
    // Crossovers of the fastest tier among all five.
    for (const Change& c : changes(m, o.dims, T, Ms.front(), Ms.back(), o.fake, {0, 1, 2, 3, 4})) {
      s += cat("<line x1='", X(c.M), "' x2='", X(c.M), "' y1='", y0, "' y2='", y0 + Hp, "' stroke='black' stroke-dasharray='4 3'/>\n");
      s += cat("<text x='", X(c.M) + 3, "' y='", y0 + Hp - 5, "'>M ", c.M, "</text>\n");
    }
  }
  return s + "<text x='" + std::to_string(padL) + "' y='" + std::to_string(H - 8) +
         "'>tokens M (log), latency (log); dashed: where the fastest tier changes</text>\n</svg>\n";
}

// The tier rows of an ltt bench --json that the model predicts: its
// tierK-all rows (fake ranks, all T on one GPU) and, from a run under mpirun
// with one process per GPU, its tierK rows (real ranks) over the transports
// the model has (tier 0 over peer memory, tiers 1-4 over NCCL).
struct Key {
  bool fake;
  int T, M;
  auto operator<=>(const Key&) const = default;
};
struct Measured {
  Dims d;
  bool has_dims = true;                       // ltt bench before its 'dims' measured k3 sizes only
  std::map<Key, std::map<int, double>> meas;  // -> tier -> us
  size_t other = 0;                           // tier rows the model does not describe
};

// `src` names the source in messages ("--check F", "--fit: F", "this run").
Result<Measured> measured_rows(const nlohmann::json& b, const std::string& src) {
  if (auto why = bench_shape(b, false); !why.empty())
    return LTT_USAGE(src, ": not ltt bench figures (", why, "): give the --json of ltt bench --backend cuda");
  Measured ms;
  ms.has_dims = b.contains("dims");
  ms.d = ms.has_dims ? Dims{b["dims"][0].get<int>(), b["dims"][1].get<int>()} : kDimsK3;
  // One process per rank and per GPU: the real ranks the model predicts.
  const int processes = b.contains("processes") && b["processes"].is_number_integer() ? b["processes"].get<int>() : 0;
  const bool own_gpus = b.contains("own_gpus") && b["own_gpus"].is_boolean() && b["own_gpus"].get<bool>();
  for (const auto& r : b["rows"]) {
    const std::string w = r["what"];
    const bool is_all = w.size() == 9 && w.substr(5) == "-all", is_real = w.size() == 5;
    if (!(is_all || is_real) || w.rfind("tier", 0) != 0 || w[4] < '0' || w[4] > '4') continue;
    const int k = w[4] - '0', T = r["tp"].get<int>(), M = r["tokens"].get<int>();
    if (ms.d.H % T != 0 || ms.d.L % T != 0)
      return LTT_USAGE(src, ": row ", w, " has tp ", T, ", which does not divide H ", ms.d.H, " and L ", ms.d.L,
                       ": ltt bench runs no such case (are the file's dims its own?)");
    if (is_real) {
      const std::string transport = r.contains("transport") && r["transport"].is_string() ? r["transport"].get<std::string>() : "";
      if (T != processes || !own_gpus || transport != (k == 0 ? "ipc" : "nccl")) {
        ++ms.other;
        continue;
      }
    }
    // A median under a nanosecond is no kernel's time: the file was edited.
    const double us = r["median_us"].get<double>();
    if (us < 1e-3) return LTT_USAGE(src, ": row ", w, " at T ", T, " M ", M, " has median_us ", us, ": not a measured time");
    if (!ms.meas[{is_all, T, M}].emplace(k, us).second)
      return LTT_USAGE(src, ": row ", w, " at T ", T, " M ", M, " is given twice: ltt bench times each case once (two ",
                       "runs' rows joined? keep one)");
  }
  return ms;
}

// Predicted against measured: how many (tier, M) lie within 25%, the worst
// error and where, and where the measured fastest tier (winning by more than
// 10%) is not the predicted one. With `t`, a row each and a line per
// mispredicted fastest tier are printed.
struct Comparison {
  size_t n = 0, bad = 0, order_bad = 0, unmodelled = 0;
  double worst = 0;
  std::string worst_at;  // "tier 4 at T 8 M 1 (fake ranks)"
};
Comparison compare(const Machine& m, const Measured& ms, Table* t) {
  Comparison c;
  for (const auto& [key, tiers] : ms.meas) {
    int mbest = -1, pbest = -1;
    double mt = 0, second = 1e300, pt = 0;
    for (const auto& [k, us] : tiers) {
      const double p = predict_us(m, k, ms.d, key.T, key.M, key.fake);
      if (std::isnan(p)) {  // the model's tier 0 stops at M 128 and at a node's GPUs
        ++c.unmodelled;
        if (t)
          t->row({key.fake ? "fake" : "real", std::to_string(key.T), std::to_string(key.M), std::to_string(k), fmt("%.1f", us), "-",
                  "-", "n/a"});
        continue;
      }
      const double e = p / us - 1;
      const bool ok = std::fabs(e) <= 0.25;
      ++c.n;
      c.bad += ok ? 0 : 1;
      if (std::fabs(e) > c.worst) {
        c.worst = std::fabs(e);
        c.worst_at = cat("tier ", k, " at T ", key.T, " M ", key.M, key.fake ? " (fake ranks)" : " (real ranks)");
      }
      if (t)
        t->row({key.fake ? "fake" : "real", std::to_string(key.T), std::to_string(key.M), std::to_string(k), fmt("%.1f", us),
                fmt("%.1f", p), std::fabs(e) < 1e4 ? fmt("%+.1f", 100 * e) : fmt("%+.2g", 100 * e), ok ? "ok" : "OFF"});
      if (mbest < 0 || us < mt) second = mbest < 0 ? second : mt, mbest = k, mt = us;
      else second = std::min(second, us);
      if (pbest < 0 || p < pt) pbest = k, pt = p;
    }
    if (mbest >= 0 && second > 1.1 * mt && pbest != mbest) {
      ++c.order_bad;
      if (t)
        std::printf("#   %s ranks, T %d M %d: measured fastest tier %d (%.1f us, next %.1f), predicted tier %d\n",
                    key.fake ? "fake" : "real", key.T, key.M, mbest, mt, second, pbest);
    }
  }
  return c;
}

std::string percent(double e) { return e < 1e4 ? fmt("%.1f%%", 100 * e) : fmt("%.3g%%", 100 * e); }

// Points (ranks fake or real, T, M, and the tier, or -1 for every tier) a
// run predicts at.
struct Point {
  bool fake;
  int T, M;
  int tier = -1;
};

// Whether the figure what-if `w` sets is read by some prediction at `at`:
// the predictions there under other values of it (a thousandth and a
// thousand times a rate or latency, and 1e-3 and 1e9 themselves, so that a
// given value at an end of its range, whose thousandfold changes nothing, is
// still probed where the figure counts; one GPU per node and the most; the
// other collectives) differ from the given machine's somewhere.
bool what_if_read(const WhatIf& w, const Machine& m, Dims d, const std::vector<Point>& at) {
  std::vector<Machine> others;
  auto with = [&](auto f, auto v) {
    Machine x = m;
    x.*f = v;
    others.push_back(x);
  };
  if (auto f = std::get_if<double Machine::*>(&w.figure))
    for (double v : {m.**f * 1e-3, m.**f * 1e3, 1e-3, 1e9}) with(*f, v);
  else if (auto g = std::get_if<int Machine::*>(&w.figure))
    for (int v : {1, kMaxGpusPerNode}) with(*g, v);
  else
    for (const char* c : {"ring", "tree", "one-shot"}) with(std::get<std::string Machine::*>(w.figure), std::string(c));
  for (const Point& p : at)
    for (int k = p.tier < 0 ? 0 : p.tier; k < (p.tier < 0 ? kNumTiers : p.tier + 1); ++k) {
      const double t = predict_us(m, k, d, p.T, p.M, p.fake);
      for (const Machine& x : others) {
        const double u = predict_us(x, k, d, p.T, p.M, p.fake);
        if (std::isnan(t) != std::isnan(u) || (!std::isnan(t) && t != u)) return true;
      }
    }
  return false;
}

// Machine `x` with the figure what-if `w` sets taken from `from`.
void take_figure(const WhatIf& w, Machine& x, const Machine& from) {
  std::visit([&](auto f) { x.*f = from.*f; }, w.figure);
}
// That figure of `m` as the flag takes it: 100, not 1e+02.
std::string figure_text(const WhatIf& w, const Machine& m) {
  if (auto f = std::get_if<double Machine::*>(&w.figure)) {
    const double v = m.**f;
    return v == std::floor(v) && std::fabs(v) < 1e15 ? fmt("%.0f", v) : shortest(v);
  }
  if (auto g = std::get_if<int Machine::*>(&w.figure)) return std::to_string(m.**g);
  return m.*std::get<std::string Machine::*>(w.figure);
}

// The notes for what-ifs that are read (what_ifs_read) but whose value moves
// no prediction at `at` from the machine's own figure (--gpus-per-node 1024
// where every T fits the machine's 8-GPU node already): said, so that an
// unchanged table is not read as the what-if's effect.
std::vector<std::string> unmoved_what_ifs(const SimulateOptions& o, Dims d, const std::vector<Point>& at) {
  std::vector<std::string> notes;
  for (const WhatIf* wp : o.what_ifs) {
    const WhatIf& w = *wp;
    const std::string flag = w.flag;
    Machine unset = o.m;  // the what-if not given
    take_figure(w, unset, o.base);
    bool moved = false;
    for (const Point& p : at)
      for (int k = p.tier < 0 ? 0 : p.tier; !moved && k < (p.tier < 0 ? kNumTiers : p.tier + 1); ++k) {
        const double t = predict_us(o.m, k, d, p.T, p.M, p.fake), u = predict_us(unset, k, d, p.T, p.M, p.fake);
        moved = std::isnan(t) != std::isnan(u) || (!std::isnan(t) && t != u);
      }
    if (moved) continue;
    const std::string given_text = figure_text(w, o.m), own = figure_text(w, o.base);
    notes.push_back(given_text == own ? cat(flag, " ", given_text, " is the machine's own figure: the predictions are the machine's")
                                      : cat(flag, " ", given_text, " moves no prediction of this run from the machine's own ", own,
                                            flag == "--gpus-per-node" ? " (every T given fits one node either way)" : "",
                                            ": the predictions are the machine's"));
  }
  return notes;
}

// The refusal of a what-if no prediction at `at` reads (what_if_unused's
// reasons first, then the predictions themselves), or ok.
Status what_ifs_read(const SimulateOptions& o, Dims d, const std::vector<Point>& at, const std::string& where) {
  std::vector<int> real_T;
  for (const Point& p : at)
    if (!p.fake && std::find(real_T.begin(), real_T.end(), p.T) == real_T.end()) real_T.push_back(p.T);
  for (const WhatIf* wp : o.what_ifs) {
    const WhatIf& w = *wp;
    const std::string flag = w.flag;
    if (w.between_gpus)
      if (auto why = what_if_unused(flag, o.m, real_T); !why.empty())
        return LTT_USAGE(where, why, ": it would change no figure ", o.check.empty() ? "of this run" : "compared",
                         ", so it is refused, not ignored");
    if (!what_if_read(w, o.m, d, at)) {
      const char* which = flag == "--link-us"   ? " (the peer latency: tier 0's, at M <= 128 on one node, and tiers 1-4's under "
                                                  "--collective tree or one-shot)"
                          : flag == "--nccl-us" ? " (NCCL's ring latency: tiers 1-4's where a node's GPUs reduce by ring)"
                          : flag == "--link-GBps" || flag == "--collective"
                              ? " (the link between one node's GPUs: none where each node has one GPU)"
                              : "";
      return LTT_USAGE(where, flag, " is read by no prediction ", o.check.empty() ? "of this run" : "compared", which,
                       " at these T and M: it would change no figure, so it is refused, not ignored");
    }
  }
  return {};
}

// Predicted times against ltt bench's measured ones (measured_rows).
Result<int> check_against(const Machine& m, const SimulateOptions& o) {
  auto b = read_bench_json(o.check, "--check");
  if (!b.ok()) return b.error();
  auto msr = measured_rows(*b, cat("--check ", o.check));
  if (!msr.ok()) return msr.error();
  const Measured& ms = *msr;
  std::vector<std::string> unmoved;  // as in run_simulate
  if (ms.meas.empty())
    return LTT_USAGE("--check ", o.check, ": no tierK-all rows (fake ranks) and no tierK rows of one process per GPU to compare with");
  {
    std::vector<Point> at;
    bool real = false;
    for (const auto& [key, tiers] : ms.meas) {  // the tiers the file measured: those compared
      for (const auto& [k, us] : tiers) at.push_back({key.fake, key.T, key.M, k});
      real = real || !key.fake;
    }
    LTT_TRY(what_ifs_read(o, ms.d, at, cat("--check ", o.check, real ? "" : " has fake-rank rows alone", ": ")));
    unmoved = unmoved_what_ifs(o, ms.d, at);
  }
  const bool has_fake = std::any_of(ms.meas.begin(), ms.meas.end(), [](const auto& kv) { return kv.first.fake; }),
             has_real = std::any_of(ms.meas.begin(), ms.meas.end(), [](const auto& kv) { return !kv.first.fake; });
  std::printf("# predicted latency against ltt bench's measurement, %s: %s%s%s\n", o.check.c_str(),
              has_fake ? "fake ranks (all T on one GPU; tierK-all rows)" : "", has_fake && has_real ? " and " : "",
              has_real ? "real ranks (one process per GPU; tierK rows)" : "");
  std::printf("# machine: %s%s\n", o.machine.empty() ? "built in (bench/machines/h200.json at build time)" : o.machine.c_str(),
              o.what_ifs.empty() ? "" : ", with the what-if flags");
  for (const std::string& n : unmoved) std::printf("# %s\n", n.c_str());
  if (!ms.has_dims) std::printf("# the file gives no dims (an ltt bench before they were written): k3, H 7168 L 3584\n");
  if (ms.other)
    std::printf("# %zu tierK rows left out: ranks sharing a GPU or a process, or a transport the model has not (tier 0 is modelled "
                "over peer memory, tiers 1-4 over NCCL)\n", ms.other);
  Table t({{"ranks", "", 5}, {"T", "", 3}, {"M", "", 5}, {"tier", "", 4}, {"measured", "us", 9}, {"predicted", "us", 9},
           {"error", "%", 7}, {"ok", "", 4}});
  t.header();
  const Comparison c = compare(m, ms, &t);
  if (c.n == 0) return LTT_USAGE("--check ", o.check, ": none of its tier rows lies where the model predicts (tier 0 past M 128?)");
  std::printf("# %zu (tier, M) measured: %zu within 25%% (worst %s); fastest tier mispredicted where it wins by > 10%%: %zu%s\n",
              c.n, c.n - c.bad, percent(c.worst).c_str(), c.order_bad,
              c.unmodelled ? cat("; ", c.unmodelled, " where the model has no such tier (n/a)").c_str() : "");
  return c.bad == 0 && c.order_bad == 0 ? 0 : 1;
}

}  // namespace

Result<nlohmann::json> read_bench_json(const std::string& file, const std::string& flag) {
  if (auto s = regular_file_to_read(file, true); !s.ok()) return LTT_USAGE(flag, " ", s.error().message, " (ltt bench --json)");
  auto text = read_text_file(file);
  if (!text.ok()) return LTT_USAGE(flag, " ", text.error().message);
  std::string problem;
  try {
    nlohmann::json b = parse_json_once(*text, problem);
    if (!problem.empty())
      return LTT_USAGE(flag, " ", file, ": ", problem, ": not ltt bench's own figures");
    return b;
  } catch (const std::exception& e) {
    return LTT_USAGE(flag, " ", file, ": not JSON: ", json_reason(e));
  }
}

Result<std::string> fit_against(const Machine& m, const nlohmann::json& bench, const std::string& file) {
  auto ms = measured_rows(bench, file);
  if (!ms.ok()) return ms.error();
  const Comparison c = compare(m, *ms, nullptr);
  if (c.n == 0) return cat("# the fitted machine predicts none of ", file, "'s tier rows (tier 0 past M 128 alone?)\n");
  std::string s = cat("# the fitted machine against ", file, ", its own figures: ", c.n - c.bad, " of ", c.n,
                      " (tier, M) within 25% (worst ", percent(c.worst), ", ", c.worst_at, "); fastest tier mispredicted where it wins by > 10%: ",
                      c.order_bad, "\n");
  if (c.bad || c.order_bad)
    s += "# where it misses, the model does not describe these kernels (tier 0's kernel list predates its fusion): its "
         "predictions there are leads, not fits; ltt simulate --check with this machine shows each row\n";
  return s;
}

const std::vector<WhatIf>& what_if_table() {
  static const std::vector<WhatIf> table = {
      {"--copy-GBps", &Machine::copy_GBps, false},   {"--link-GBps", &Machine::link_GBps, true},
      {"--link-us", &Machine::link_us, true},         {"--nccl-us", &Machine::nccl_us, true},
      {"--net-GBps", &Machine::net_GBps, true},       {"--net-us", &Machine::net_us, true},
      {"--gpus-per-node", &Machine::gpus_per_node, true}, {"--collective", &Machine::collective, true}};
  return table;
}

std::string what_if_unused(const std::string& flag, const Machine& m, const std::vector<int>& real_T) {
  // Which fields the model reads (predict_us, nccl, peer): fake ranks' collectives
  // are kernels on one GPU; NCCL's latency is the ring's alone; the network
  // joins only where T spans nodes.
  if (real_T.empty())
    return cat(flag, " is a figure between GPUs, and fake ranks (all T on one GPU) use none: their collectives are kernels on that GPU");
  if (std::all_of(real_T.begin(), real_T.end(), [](int T) { return T == 1; }))
    return cat(flag, " is a figure between GPUs, and at T 1 the one rank exchanges nothing");
  if (flag == "--nccl-us" && m.collective != "ring")
    return cat("--nccl-us is the latency of NCCL's ring, and tiers 1-4 here reduce by ", m.collective,
               ", whose latency is --link-us's: give --link-us, or --collective ring");
  const bool spans = std::any_of(real_T.begin(), real_T.end(), [&m](int T) { return T > m.gpus_per_node; });
  if ((flag == "--net-GBps" || flag == "--net-us") && !spans)
    return cat(flag, " is the network's, which joins only ranks on several nodes, and no T here exceeds ", m.gpus_per_node,
               " GPUs per node: give a larger --tp or a smaller --gpus-per-node");
  return {};
}

Status claim_simulate_reports(const SimulateOptions& o) {
  LTT_TRY(claim_json(o.json, "ltt simulate", o.command));
  if (o.svg.empty()) return {};
  return mark_unfinished("--svg", o.svg,
                         cat("<svg xmlns='http://www.w3.org/2000/svg' width='720' height='60'><text x='10' y='30'>",
                             html_escape(unfinished_note("ltt simulate", o.command)), "</text></svg>\n"));
}

Result<int> run_simulate(const SimulateOptions& o) {
  const Machine& m = o.m;
  if (!o.check.empty()) return check_against(m, o);
  std::vector<int> Ms = o.tokens.empty() ? default_tokens() : o.tokens;
  std::sort(Ms.begin(), Ms.end());
  for (int T : o.tp) LTT_TRY(validate(make_problem(o.dims, T, 1, Dist::realistic, 0, 1e-6)));
  // The production thresholds scan M 1 to at least 16384: the what-ifs are
  // judged there and at the M given (every M to 256, then steps of 5%).
  const int scan_end = std::max(Ms.back(), 16384);
  std::vector<std::string> unmoved;  // what-ifs that leave every prediction as the machine's own figure does
  {
    std::vector<Point> at;
    for (int T : o.tp) {
      for (long long M = 1; M < scan_end; M = M < 256 ? M + 1 : M + M / 20) at.push_back({o.fake, T, static_cast<int>(M)});
      at.push_back({o.fake, T, scan_end});
      for (int M : Ms) at.push_back({o.fake, T, M});
    }
    LTT_TRY(what_ifs_read(o, o.dims, at, ""));
    unmoved = unmoved_what_ifs(o, o.dims, at);
  }
  // The machine's figures are bounded (check_machine); a prediction past 1e12
  // us (11 days) or not finite still says the figures are not a machine's.
  for (int T : o.tp)
    for (int M : Ms)
      for (int k = 0; k < kNumTiers; ++k)
        if (const double t = predict_us(m, k, o.dims, T, M, o.fake); !std::isnan(t) && !(t > 0 && t <= 1e12))
          return LTT_USAGE("the machine's figures predict ", t, " us for tier ", k, " at T ", T, ", M ", M,
                           ": not a latency (past 1e12 us: check the sizes, the machine file and the what-if flags)");
  std::printf("# ltt simulate: %s, dims H %d L %d; %s\n# machine: %s\n", o.fake ? "fake ranks on one GPU" : "one rank per GPU",
              o.dims.H, o.dims.L, m.name.c_str(), o.machine.empty() ? "built in (bench/machines/h200.json at build time)" : o.machine.c_str());
  std::printf("# copy %.0f GB/s, launch %.1f us, elementwise %.2f of copy, GEMM floor %.1f us / %.2f of copy / %.0f TFLOP/s; ",
              m.copy_GBps, m.launch_us, m.elem_eff, m.gemm_floor_us, m.gemm_mem_eff, m.gemm_TFLOPs);
  if (o.fake)  // the figures between GPUs are read by no fake-rank prediction (what_if_unused refuses them)
    std::printf("fake ranks' collectives are kernels on this GPU: no link, NCCL or network figure is read\n");
  else
    std::printf("link %.0f GB/s, peer %.1f us, NCCL %.1f us, %d GPUs per node, network %.0f GB/s + %.1f us; collectives of tiers 1-4: %s\n",
                m.link_GBps, m.link_us, m.nccl_us, m.gpus_per_node, m.net_GBps, m.net_us, m.collective.c_str());
  for (const std::string& n : unmoved) std::printf("# %s\n", n.c_str());
  nlohmann::json jt = nlohmann::json::array();
  const std::vector<int> all = {0, 1, 2, 3, 4}, production = {0, 1, 2};
  for (int T : o.tp) {
    std::printf("# T %d%s\n", T, T > m.gpus_per_node && !o.fake ? cat(" (", (T + m.gpus_per_node - 1) / m.gpus_per_node, " nodes)").c_str() : "");
    std::vector<Column> cols{{"M", "", 6},      {"tier 0", "us", 9}, {"tier 1", "us", 9}, {"tier 2", "us", 9},
                             {"tier 3", "us", 9}, {"tier 4", "us", 9}, {"fastest", "of all", 7}, {"fastest", "of 0-2", 7}};
    std::vector<std::vector<std::string>> table;
    nlohmann::json rows = nlohmann::json::array();
    for (int M : Ms) {
      std::vector<std::string> cells{std::to_string(M)};
      nlohmann::json r{{"tokens", M}};
      for (int k = 0; k < kNumTiers; ++k) {
        const double us = predict_us(m, k, o.dims, T, M, o.fake);
        cells.push_back(std::isnan(us) ? "-" : fmt("%.1f", us));
        r[cat("tier", k, "_us")] = std::isnan(us) ? nlohmann::json(nullptr) : nlohmann::json(us);
      }
      const int f = fastest(m, o.dims, T, M, o.fake, all), fp = fastest(m, o.dims, T, M, o.fake, production);
      cells.push_back(cat("tier ", f));
      cells.push_back(cat("tier ", fp));
      r["fastest"] = f;
      r["fastest_production"] = fp;
      table.push_back(cells);
      rows.push_back(r);
    }
    // Columns widen to their longest figure (M 1e9 takes 10 digits, its times 12).
    for (const auto& cells : table)
      for (size_t c = 0; c < cells.size(); ++c) cols[c].width = std::max(cols[c].width, static_cast<int>(cells[c].size()));
    const Table t(cols);
    t.header();
    for (const auto& cells : table) t.row(cells);
    // Crossovers (every M between the first and last given where the fastest
    // tier changes) and the production selection's thresholds (from M 1 to
    // the largest given, at least 16384, whatever M were listed).
    nlohmann::json cross = nlohmann::json::array();
    std::string cs;
    for (const Change& c : changes(m, o.dims, T, Ms.front(), Ms.back(), o.fake, all)) {
      const bool stops = c.from >= 0 && std::isnan(predict_us(m, c.from, o.dims, T, c.M, o.fake));
      cross.push_back({{"tokens", c.M}, {"from", c.from}, {"to", c.to}, {"from_stops_applying", stops}});
      cs += cat(cs.empty() ? "" : ", ", change_text(m, o.dims, T, o.fake, c));
    }
    std::printf("# crossovers (fastest of all five, M %d to %d): %s\n", Ms.front(), Ms.back(), cs.empty() ? "none" : cs.c_str());
    // The fastest of tiers 0-2 by stretches of M. The production selection
    // (tier 0 up to one threshold, tier 1 up to a second, tier 2 beyond)
    // follows them only where the stretches go up in tier, each tier once.
    struct Stretch {
      int tier, from, to;
    };
    std::vector<Stretch> st{{fastest(m, o.dims, T, 1, o.fake, production), 1, scan_end}};
    for (const Change& c : changes(m, o.dims, T, 1, scan_end, o.fake, production)) {
      st.back().to = c.M - 1;
      st.push_back({c.to, c.M, scan_end});
    }
    bool expressible = true;
    for (size_t i = 1; i < st.size(); ++i) expressible = expressible && st[i].tier > st[i - 1].tier;
    int tier0_max = 0, tier1_max = 0;  // the last M of tier 0's and tier 1's stretches (0: none)
    for (const Stretch& x : st) {
      if (x.tier == 0) tier0_max = x.to;
      if (x.tier == 1) tier1_max = x.to;
    }
    nlohmann::json jst = nlohmann::json::array();
    std::string sts;
    for (const Stretch& x : st) {
      jst.push_back({{"tier", x.tier}, {"from_tokens", x.from}, {"to_tokens", x.to}});
      sts += cat(sts.empty() ? "" : ", ", "tier ", x.tier, " at M ", x.from, x.to == scan_end ? "+" : cat("-", x.to));
    }
    nlohmann::json thr{{"scan_end_tokens", scan_end}, {"fastest_of_0_2", jst}, {"expressible", expressible}};
    if (expressible) {
      const bool t0_applies = !std::isnan(predict_us(m, 0, o.dims, T, 1, o.fake));
      const std::string t0s = tier0_max != 0 ? cat("tier 0 up to M ", tier0_max)
                              : t0_applies   ? std::string("tier 0 never (never the fastest of tiers 0-2)")
                                             : cat("tier 0 never (it does not apply at T ", T,
                                                   T < 2 ? ": one rank" : cat(": its ranks span ", m.gpus_per_node, "-GPU nodes"), ")");
      const std::string t1s = tier1_max == 0 ? std::string("tier 1 never")
                              : tier1_max == scan_end ? cat("tier 1 beyond the largest M simulated (", scan_end, ")")
                                                      : cat("tier 1 (the shared-stream threshold) up to M ", tier1_max);
      std::printf("# the production selection would need: %s, %s (today: 128 and 256)\n", t0s.c_str(), t1s.c_str());
      thr["tier0_max_tokens"] = tier0_max;
      thr["shared_stream_tokens"] = tier1_max;
      thr["tier1_beyond_scan"] = tier1_max == scan_end;
    } else {
      std::printf("# the production selection (tier 0 up to one threshold, tier 1 up to a second, tier 2 beyond) cannot follow "
                  "the fastest of tiers 0-2 here: %s\n", sts.c_str());
      thr["tier0_max_tokens"] = nullptr;
      thr["shared_stream_tokens"] = nullptr;
    }
    jt.push_back({{"tp", T}, {"rows", rows}, {"crossovers", cross}, {"thresholds", thr}});
  }
  // A report that cannot be written costs that report alone: the other is
  // still written, and each one lost is named.
  ReportWrites writes;
  if (!o.json.empty()) {
    nlohmann::json j = report_head(o.command);
    // The figures every prediction above came from: the machine file's (or
    // the built-in one's) with the what-ifs given applied, so that a report
    // says what it assumed.
    std::vector<std::string> what_ifs;
    for (const WhatIf* w : o.what_ifs) what_ifs.push_back(w->flag);
    j.update({{"fake_ranks", o.fake},
              {"machine", m.name},
              {"machine_file", o.machine.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.machine)},
              {"machine_figures", [&] {
                 // A what-if's figure read back by --machine says it was one, not the source's measurement.
                 nlohmann::json f = machine_json(m);
                 if (!what_ifs.empty())
                   f["source"] = cat(m.source, "; what-ifs of `", o.command, "` replace ",
                                     join(o.what_ifs, ", ", [&m](const WhatIf* w) { return cat(w->flag, " ", figure_text(*w, m)); }));
                 return f;
               }()},
              {"what_ifs", what_ifs},
              {"what_ifs_unmoved", unmoved},
              {"collective", m.collective},
              {"dims", {o.dims.H, o.dims.L}},
              {"tp", jt}});
    writes.keep(write_text_file("--json", o.json, json_text(j)));
  }
  if (!o.svg.empty()) writes.keep(write_text_file("--svg", o.svg, svg_plot(m, o, Ms)));
  return exit_after_reports(false, writes.status());
}

}  // namespace ltt
