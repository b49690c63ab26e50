// Case files: make_case() and load_case().
#include "casefile.hpp"

#include <set>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "report.hpp"
#include "tier.hpp"

namespace ltt {

Contract CaseContract::for_tier(int tier) const {
  Contract c = tier_def(tier).contract;
  c.algo = algo;
  if (norm) c.norm = *norm;
  return c;
}

std::string CaseContract::norm_name() const { return norm ? name(*norm) : "declared"; }

SafeTensors make_case(const Inputs& in, const Truth& truth, const std::map<int, MatrixB>& expected, const CaseContract& c) {
  SafeTensors st;
  for (int r = 0; r < in.p.T; ++r) {
    st.put_bf16(cat("routed.rank", r), in.R[static_cast<size_t>(r)]);
    st.put_bf16(cat("shared.rank", r), in.S[static_cast<size_t>(r)]);
  }
  st.put_bf16("norm_weight", in.g, true);
  st.put_bf16("up_weight", in.W);
  st.put_f64("expected_exact", truth.Y);
  std::vector<int> tiers;
  for (const auto& [k, y] : expected) {
    st.put_bf16(cat("expected.tier", k), y);
    tiers.push_back(k);
  }
  st.metadata = case_metadata(in.p, tiers, Contract{c.algo, NormOrder::fused});
  st.metadata["rmsnorm_order"] = c.norm_name();
  return st;
}

namespace {

Result<long> meta_int(const SafeTensors& st, const std::string& file, const std::string& key, long lo, long hi) {
  auto it = st.metadata.find(key);
  if (it == st.metadata.end()) return LTT_USAGE(file, ": __metadata__ has no '", key, "' (ltt golden --help lists the keys)");
  char* end = nullptr;
  const long v = std::strtol(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != 0 || v < lo || v > hi)
    return LTT_USAGE(file, ": __metadata__ '", key, "' = '", it->second, "' is not an integer in [", lo, ", ", hi, "]");
  return v;
}

}  // namespace

Result<LoadedCase> case_from_metadata(const SafeTensors& st, const std::string& file) {
  LoadedCase c;
  Problem& p = c.in.p;
  auto T = meta_int(st, file, "tp", 1, 4096);
  auto M = meta_int(st, file, "tokens", 1, 1 << 30);  // --tokens' own limit: every case golden writes reads back
  auto H = meta_int(st, file, "hidden", 1, 1 << 20);
  auto L = meta_int(st, file, "latent", 1, 1 << 20);
  for (auto* r : {&T, &M, &H, &L})
    if (!r->ok()) return r->error();
  p.T = static_cast<int>(*T);
  p.M = static_cast<int>(*M);
  p.H = static_cast<int>(*H);
  p.L = static_cast<int>(*L);
  for (const char* key : {"eps", "seed", "dist", "algo", "rmsnorm_order", "tiers"})
    if (!st.metadata.count(key)) return LTT_USAGE(file, ": __metadata__ has no '", key, "' (ltt golden --help lists the keys)");
  auto get = [&](const char* key) -> std::string { return st.metadata.at(key); };
  char* end = nullptr;
  const std::string eps = get("eps");
  p.eps = std::strtod(eps.c_str(), &end);
  if (eps.empty() || *end != 0) return LTT_USAGE(file, ": __metadata__ 'eps' = '", eps, "' is not a number");
  const std::string seed = get("seed");
  errno = 0;
  p.seed = std::strtoull(seed.c_str(), &end, 10);
  // Digits only: strtoull would take "-1" (as 2^64 - 1), "+5" and " 0".
  if (seed.empty() || seed.find_first_not_of("0123456789") != std::string::npos || *end != 0 || errno == ERANGE)
    return LTT_USAGE(file, ": __metadata__ 'seed' = '", seed, "' is not an unsigned 64-bit integer (digits only)");
  auto dist = parse_dist(get("dist"));
  if (!dist) return LTT_USAGE(file, ": __metadata__ 'dist' = '", get("dist"), "': use realistic, exact or adversarial");
  p.dist = *dist;
  auto algo = parse_algo(get("algo"));
  if (!algo) return LTT_USAGE(file, ": __metadata__ 'algo' = '", get("algo"), "': use one-shot or ring");
  c.contract.algo = *algo;
  const std::string norm = get("rmsnorm_order");
  if (norm != "declared") {
    auto o = parse_norm_order(norm);
    if (!o) return LTT_USAGE(file, ": __metadata__ 'rmsnorm_order' = '", norm, "': use declared, fused or round-then-weight");
    c.contract.norm = *o;
  }
  if (Status s = validate(p); !s.ok()) return LTT_USAGE(file, ": the metadata describe an impossible case: ", s.error().message);
  std::string tiers = get("tiers");
  // "1", "0,2,4": digits 0..4 alternating with single commas, none twice.
  bool good = !tiers.empty() && tiers.size() % 2 == 1;
  for (size_t i = 0; good && i < tiers.size(); ++i) {
    if (i % 2 == 1) {
      good = tiers[i] == ',';
      continue;
    }
    const int k = tiers[i] - '0';
    good = k >= 0 && k <= 4 && std::find(c.tiers.begin(), c.tiers.end(), k) == c.tiers.end();
    if (good) c.tiers.push_back(k);
  }
  if (!good)
    return LTT_USAGE(file, ": __metadata__ 'tiers' = '", tiers, "' is not a comma list of distinct tiers 0..4 (e.g. '1' or '0,2')");
  return c;
}

Result<LoadedCase> load_case(const SafeTensors& st, const std::string& file) {
  auto meta = case_from_metadata(st, file);
  if (!meta.ok()) return meta.error();
  LoadedCase& c = *meta;
  const Problem& p = c.in.p;
  // The tensors, shaped as the metadata say.
  for (int r = 0; r < p.T; ++r) {
    auto R = st.get_bf16(cat("routed.rank", r), p.M, p.L);
    if (!R.ok()) return R.error();
    auto S = st.get_bf16(cat("shared.rank", r), p.M, p.H);
    if (!S.ok()) return S.error();
    c.in.R.push_back(std::move(*R));
    c.in.S.push_back(std::move(*S));
  }
  if (st.tensors.count(cat("routed.rank", p.T)))
    return LTT_USAGE(file, ": tensor 'routed.rank", p.T, "' exists but __metadata__ 'tp' = ", p.T, " (ranks are 0..", p.T - 1, ")");
  auto g = st.get_bf16("norm_weight", 1, p.L);
  if (!g.ok()) return g.error();
  auto W = st.get_bf16("up_weight", p.H, p.L);
  if (!W.ok()) return W.error();
  c.in.g = std::move(*g);
  c.in.W = std::move(*W);
  for (int k = 0; k < kNumTiers; ++k) {
    const std::string n = cat("expected.tier", k);
    if (!st.tensors.count(n)) continue;
    auto y = st.get_bf16(n, p.M, p.H);
    if (!y.ok()) return y.error();
    c.expected[k] = std::move(*y);
  }
  // The metadata's tiers are the expected outputs the file holds, no more, no fewer.
  const std::string tiers = st.metadata.at("tiers");
  for (int k : c.tiers)
    if (!c.expected.count(k))
      return LTT_USAGE(file, ": __metadata__ 'tiers' = '", tiers, "' names tier ", k, " but there is no tensor 'expected.tier", k, "'");
  for (const auto& [k, y] : c.expected)
    if (std::find(c.tiers.begin(), c.tiers.end(), k) == c.tiers.end())
      return LTT_USAGE(file, ": tensor 'expected.tier", k, "' but __metadata__ 'tiers' = '", tiers, "' does not name tier ", k);
  if (!st.tensors.count("expected_exact")) return LTT_USAGE(file, ": no tensor 'expected_exact' (the float64 truth every case file holds)");
  // No tensor but a case file's (and a failure dump's outputs), each name
  // exactly as ltt writes it: another tool's file, or an edited one, is not
  // read as a case by its known parts.
  std::set<std::string> names = {"norm_weight", "up_weight", "expected_exact"};
  for (int r = 0; r < p.T; ++r) {
    names.insert(cat("routed.rank", r));
    names.insert(cat("shared.rank", r));
    for (int k = 0; k < kNumTiers; ++k) names.insert(cat("output.tier", k, ".rank", r));
  }
  for (int k : c.tiers) names.insert(cat("expected.tier", k));
  for (const auto& [n, t] : st.tensors)
    if (!names.count(n))
      return LTT_USAGE(file, ": tensor '", n, "' is none this case file holds (T ", p.T, ", tiers ", join(c.tiers, ","),
                       ": routed.rank{r} and shared.rank{r} for r < T, norm_weight, up_weight, expected_exact, "
                       "expected.tier{k} for its tiers; a failure dump adds output.tier{k}.rank{r}): the file was edited or made "
                       "by another tool; make the case again with ltt golden");
  auto y = st.get_f64("expected_exact", p.M, p.H);
  if (!y.ok()) return y.error();
  c.expected_exact = std::move(*y);
  return std::move(c);
}

}  // namespace ltt
