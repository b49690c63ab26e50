// `ltt selftest`: every tier, exact and emulated, at the given sizes, against
// the float64 truth and its derived bound; then, with --bench, the timings of
// the reference at k3 sizes, T 16, M 128 and its GEMM rate beside Eigen's.
#include "selftest.hpp"

#include "flags.hpp"

#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "compare.hpp"
#include "gpu/device.hpp"
#include "inputs.hpp"
#include "kernels.hpp"
#include "reference.hpp"
#include "table.hpp"

namespace ltt {

namespace {

Status bench(const SelftestOptions& o) {
  const Problem p = make_problem(kDimsK3, 16, 128, Dist::realistic, o.seed, o.eps);
  std::printf("\n# bench: k3 sizes (H %d, L %d), T %d, M %d, realistic, %d OpenMP threads\n", p.H, p.L, p.T, p.M,
              omp_get_max_threads());
  // Twice: the first pass also pays for faulting in fresh memory.
  for (int pass = 1; pass <= 2; ++pass) {
    const double t0 = now_seconds();
    const Inputs in = generate_inputs(p);
    const double t1 = now_seconds();
    Reference ref(in);
    ref.truth();
    const double t2 = now_seconds();
    double tiers_s = 0;
    std::string per_tier;
    for (const auto& d : tier_table()) {
      const double a = now_seconds();
      auto ye = ref.exact(d.id, d.contract);
      const double b = now_seconds();
      auto yb = ref.emulated(d.id, d.contract);
      const double c = now_seconds();
      if (!ye.ok()) return ye.status();
      if (!yb.ok()) return yb.status();
      per_tier += cat("#     tier ", d.id, " ", d.name, ": exact ", fmt("%.0f", (b - a) * 1e3), " ms, emulated ",
                      fmt("%.0f", (c - b) * 1e3), " ms\n");
      tiers_s += c - a;
    }
    const double t3 = now_seconds();
    for (const auto& d : tier_table()) {
      ref.bound(d.id, Mode::exact, d.contract);
      ref.bound(d.id, Mode::emulated, d.contract);
    }
    const double t4 = now_seconds();
    std::printf("# pass %d: inputs %.2f s, truth (and widened weights) %.2f s, 5 tiers x 2 modes %.2f s, their bounds %.2f s\n%s",
                pass, t1 - t0, t2 - t1, tiers_s, t4 - t3, per_tier.c_str());
    std::printf("# pass %d: all five tiers, both modes, with inputs, truth and bounds: %.2f s (speed target < 3 s, a figure, not the verdict: %s)\n", pass,
                t4 - t0, t4 - t0 < 3.0 ? "met" : "MISSED");
  }

  // The up-projection GEMMs: the reference's fixed-panel GEMM against Eigen's
  // own product on the same operands, same run.
  std::printf("# GEMM rate, fp32 and fp64, K3 up-projection shapes (median of 5)\n");
  Table tab({{"dtype", "", 6}, {"M", "", 5}, {"N", "", 6}, {"K", "", 6}, {"eigen", "GFLOP/s", 9}, {"ltt", "GFLOP/s", 9},
             {"ratio", "ltt/eig", 8}});
  tab.header();
  bool rate_ok = true;
  auto measure = [&](auto tag, int M, int N, int K) {
    using Real = decltype(tag);
    const Mat<Real> A = Mat<Real>::Random(M, K), B = Mat<Real>::Random(N, K);
    Mat<Real> C(M, N);
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::vector<double> te, tl;
    for (int rep = 0; rep < 5; ++rep) {
      double a = now_seconds();
      C.noalias() = A * B.transpose();
      te.push_back(now_seconds() - a);
      a = now_seconds();
      C = gemm_nt<Real>(A, B);
      tl.push_back(now_seconds() - a);
    }
    const double fl = 2.0 * M * N * K;
    const double re = fl / median(te) / 1e9, rl = fl / median(tl) / 1e9;
    rate_ok = rate_ok && rl >= 0.7 * re;
    tab.row({sizeof(Real) == 4 ? "fp32" : "fp64", std::to_string(M), std::to_string(N), std::to_string(K),
             fmt("%.1f", re), fmt("%.1f", rl), fmt("%.2f", rl / re)});
  };
  for (int M : {128, 2048}) measure(float{}, M, p.H, p.L);
  measure(float{}, 128, p.H / 16, p.L);
  measure(float{}, 128, p.H, p.L / 16);
  measure(double{}, 128, p.H, p.L);
  std::printf("# GEMM rate >= 70%% of Eigen's own (a speed target, not the verdict: exit 0 either way): %s\n", rate_ok ? "met" : "MISSED");
  return {};
}

}  // namespace

Result<int> run_selftest(const SelftestOptions& o) {
  const double wall0 = now_seconds();
  // Every shape valid and the largest one fitting in memory, before the first line.
  std::vector<Problem> all;
  for (int T : o.tp)
    for (int M : o.tokens)
      for (Dist dist : o.dists) {
        all.push_back(make_problem(o.dims, T, M, dist, o.seed, o.eps));
        LTT_TRY(validate(all.back()));
      }
  if (all.empty()) return LTT_USAGE("selftest: nothing to run (no --tp, --tokens or --dist value)");
  // One rank reduces nothing: an --algo there would label rows by a collective that never ran (as check).
  if (o.algo && std::none_of(o.tp.begin(), o.tp.end(), [](int T) { return T > 1; }))
    return LTT_USAGE("--algo ", name(*o.algo), " with --tp ", join(o.tp, ","), ": one rank reduces nothing, so no collective "
                     "runs: drop --algo, or give a --tp of 2 or more");
  LTT_TRY(flags::fits_in_memory(all, "selftest"));
  std::printf("# ltt selftest: the reference of every tier against the float64 truth\n");
  std::printf("# dims H %d L %d, eps %g, seed %llu, %d OpenMP threads; %s\n", o.dims.H, o.dims.L, o.eps,
              static_cast<unsigned long long>(o.seed), omp_get_max_threads(), gpu::device_info().description.c_str());
  std::printf("# err/bound: |y - truth| / rigorous bound (must be <= 1); exact mode must also be within 1e-12 of\n"
              "# sum_k |N_ik||W_jk| + sum_r |S_r,ij| (col 'x1e-12': elements over it)\n");
  Table tab({{"tier", "", 4}, {"T", "", 3}, {"M", "", 4}, {"dist", "", 11}, {"mode", "", 8}, {"algo", "", 8},
             {"norm", "", 17}, {"max", "err/bnd", 9}, {"p99.9", "err/bnd", 9}, {"max_abs", "", 9}, {"over", "elems", 6},
             {"x1e-12", "elems", 6}, {"nonfin", "exp/bad", 7}, {"ranks", "", 5}, {"time", "ms", 8}, {"ok", "", 4}});
  tab.header();
  Progress prog(o.tp.size() * o.tokens.size() * o.dists.size() * static_cast<size_t>(kNumTiers) * 2);
  size_t failed = 0, cases = 0, over_total = 0;
  std::unique_ptr<Inputs> weights;
  flags::Skipped skipped;  // tier 0 beyond its shapes: said at the end, never dropped unseen
  for (int T : o.tp)
    for (int M : o.tokens)
      for (Dist dist : o.dists) {
        const Problem p = make_problem(o.dims, T, M, dist, o.seed, o.eps);
        LTT_TRY(validate(p));
        auto in = std::make_unique<Inputs>(generate_inputs(p, weights.get()));
        Reference ref(*in);
        const Truth& truth = ref.truth();
        for (const auto& d : tier_table()) {
          if (!validate_for_tier(p, d.id).ok()) {
            skipped.add(d.id, p);
            prog.step("skip");
            prog.step("skip");
            continue;
          }
          Contract contract = d.contract;
          if (o.algo) contract.algo = *o.algo;
          for (Mode mode : {Mode::exact, Mode::emulated}) {
            const double a = now_seconds();
            ErrorStats st;
            size_t over12 = 0;
            bool ranks_agree = true;
            if (mode == Mode::exact) {
              auto y = ref.exact(d.id, contract);
              if (!y.ok()) return y.status();
              for (auto& yr : *y)
                ranks_agree = ranks_agree && std::memcmp(yr.data(), (*y)[0].data(), sizeof(double) * yr.size()) == 0;
              st = compare_to_truth((*y)[0], truth.Y, ref.bound(d.id, mode, contract), mode);
              over12 = count_over_scale((*y)[0], truth.Y, truth.scale(), 1e-12);
            } else {
              auto y = ref.emulated(d.id, contract);
              if (!y.ok()) return y.status();
              for (auto& yr : *y) ranks_agree = ranks_agree && first_bitwise_difference(yr, (*y)[0]) < 0;
              st = compare_to_truth((*y)[0], truth.Y, ref.bound(d.id, mode, contract), mode);
            }
            const double ms = (now_seconds() - a) * 1e3;
            const bool ok = st.ok() && over12 == 0 && ranks_agree;
            ++cases;
            failed += ok ? 0 : 1;
            over_total += st.over + over12 + st.nonfinite_mismatch;
            prog.step(cat("tier ", d.id, " T ", T, " M ", M));
            tab.row({std::to_string(d.id), std::to_string(T), std::to_string(M), name(dist), name(mode),
                     name(contract.algo), name(contract.norm), fmt("%.3g", st.max_ratio), fmt("%.3g", st.p999_ratio),
                     fmt("%.3g", st.max_abs), std::to_string(st.over), std::to_string(over12),
                     cat(st.nonfinite_expected, "/", st.nonfinite_mismatch),
                     ranks_agree ? "same" : "DIFF", fmt("%.0f", ms), ok ? "ok" : "FAIL"});
            if (!ok) {  // why, where the columns alone may not say (an all-zero output)
              std::vector<std::string> why;
              if (st.over) why.push_back(cat(st.over, " elements over their bound"));
              if (st.nonfinite_mismatch) why.push_back(cat(st.nonfinite_mismatch, " elements of another NaN/Inf class than the truth's"));
              if (over12) why.push_back(cat(over12, " exact-mode elements over 1e-12 of their scale"));
              if (!ranks_agree) why.push_back("the ranks' outputs differ");
              if (st.all_zero()) why.push_back("an all-zero output where the truth is not within its bound of 0 everywhere");
              std::printf("#   FAIL tier %d T %d M %d %s %s: %s\n", d.id, T, M, name(dist), name(mode), join(why, "; ").c_str());
            }
          }
        }
        if (!weights) weights = std::move(in);
      }
  prog.done();
  skipped.say("selftest");
  std::printf("# Out of bound values : %zu %s\n", over_total, over_total == 0 ? "OK" : "FAILED");
  std::printf("# %zu cases, %zu failed; wall %.1f s\n", cases, failed, now_seconds() - wall0);
  if (o.bench) LTT_TRY(bench(o));
  return failed == 0 ? 0 : 1;
}

}  // namespace ltt
