// ltt bench: timings of the cuda backend against the memory roofline.
#include "bench.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cuda_backend.hpp"
#include "cuda_bench.hpp"
#include "flags.hpp"
#include "gpu/device.hpp"
#include "inputs.hpp"
#include "simulate.hpp"
#include "table.hpp"
#include "tier.hpp"

namespace ltt {

Result<int> run_bench(const BenchOptions& o) {
  if (o.backend != "cuda") return LTT_USAGE("ltt bench times the cuda backend: --backend cuda");
  LTT_TRY(gpu::cuda_available());
  std::vector<Problem> ps;
  for (int T : o.tp)
    for (int M : o.tokens) {
      ps.push_back(make_problem(o.dims, T, M, Dist::realistic, 0, 1e-6));
      LTT_TRY(validate(ps.back()));
    }
  LTT_TRY(flags::fits_in_memory(ps, "bench"));
  const double wall0 = now_seconds();
  LTT_TRY(gpu::warm_up(500));  // clocks out of idle before the first figure
  auto bw = gpu::copy_bandwidth(size_t(1) << 31, o.reps);
  if (!bw.ok()) return bw.error();
  const double GBps = *bw;
  std::printf("# ltt bench --backend cuda: %s\n# dims H %d L %d, realistic inputs, %d timed runs after 3 warm-ups (median, min),"
              " device events; copy bandwidth %.0f GB/s (2 GiB device-to-device, read + written)\n",
              gpu::device_info().description.c_str(), o.dims.H, o.dims.L, o.reps, GBps);
  std::printf("# roofline: the least bytes the step must move (inputs read once, outputs written once) / the copy bandwidth\n");
  Table tab({{"what", "", 12}, {"T", "", 3}, {"M", "", 5}, {"median", "us", 10}, {"min", "us", 10}, {"bytes", "MB", 9},
             {"roofline", "us", 9}, {"x", "roof", 6}, {"TFLOP/s", "", 8}});
  tab.header();
  nlohmann::json rows = nlohmann::json::array();
  auto row = [&](const char* what, const Problem& p, const gpu::Timing& t, double bytes, double flops) {
    const double roof = bytes / GBps / 1e3;
    tab.row({what, std::to_string(p.T), std::to_string(p.M), fmt("%.1f", t.median_us), fmt("%.1f", t.min_us),
             bytes > 0 ? fmt("%.2f", bytes / 1e6) : "-", bytes > 0 ? fmt("%.2f", roof) : "-",
             bytes > 0 ? fmt("%.2f", t.median_us / roof) : "-", flops > 0 ? fmt("%.1f", flops / (t.median_us * 1e6)) : "-"});
    rows.push_back({{"what", what}, {"tp", p.T}, {"tokens", p.M}, {"median_us", t.median_us}, {"min_us", t.min_us},
                    {"bytes", bytes}, {"roofline_us", bytes > 0 ? nlohmann::json(roof) : nlohmann::json(nullptr)},
                    {"flops", flops}});
  };
  {
    auto l = gpu::time_launch(200, o.reps);
    if (!l.ok()) return l.error();
    row("launch", Problem{}, *l, 0, 0);
  }
  for (const Problem& p : ps) {
    const Inputs in = generate_inputs(p);
    const double M = p.M, L = p.L, H = p.H, Hs = p.Hs();
    auto norm = gpu::time_rmsnorm(p, in, o.reps);
    if (!norm.ok()) return norm.error();
    row("rmsnorm", p, *norm, 2 * (2 * M * L) + 2 * L, 0);
    if (p.M <= 128 && p.T >= 2) {
      auto t0 = gpu::time_tier0_rank(p, in, o.reps);
      if (!t0.ok()) return t0.error();
      // Z, g, W's shard, S's shard read; Y's shard written (bf16).
      row("tier0-rank", p, *t0, 2 * (M * L + L + Hs * L + 2 * M * Hs), 2 * M * Hs * L);
      auto tc = gpu::time_tier0_rank_cublas(p, in, o.reps);
      if (!tc.ok()) return tc.error();
      row("tier0-cublas", p, *tc, 2 * (M * L + L + Hs * L + 2 * M * Hs), 2 * M * Hs * L);
    }
    auto wd = gpu::time_widen(p, in, o.reps);
    if (!wd.ok()) return wd.error();
    row("widen", p, *wd, 6 * M * H, 0);
    auto rd = gpu::time_round(p, in, o.reps);
    if (!rd.ok()) return rd.error();
    row("round", p, *rd, 6 * M * H, 0);
    auto gs = gpu::time_gemm_shard_seq(p, in, 20, o.reps);
    if (!gs.ok()) return gs.error();
    row("gemm-shard", p, *gs, 2 * (M * L + Hs * L) + 8 * M * Hs, 2 * M * Hs * L);
    auto gm = gpu::time_gemm_full(p, in, o.reps);
    if (!gm.ok()) return gm.error();
    row("gemm-full", p, *gm, 2 * (M * L + H * L) + 4 * 2 * M * H, 2 * M * H * L);
    for (int tier : o.tiers) {
      if (!validate_for_tier(p, tier).ok()) continue;
      auto t = gpu::time_tier(p, tier, tier_def(tier).contract, in, o.reps);
      if (!t.ok()) return t.error();
      const std::string what = cat("tier", tier, "-all");
      row(what.c_str(), p, *t, 0, 0);
    }
  }
  std::printf("# tierK-all: the whole tier on all T fake ranks of one GPU (T RMSNorms and GEMMs, collective kernels);\n"
              "# tier0-rank: one rank's RMSNorm + skinny shard GEMM with the S add and rounding in its epilogue, collectives\n"
              "# excluded; tier0-cublas: the same step as the library composition (RMSNorm, widen, cuBLAS with the addend,\n"
              "# round); rmsnorm, tier0-rank, tier0-cublas and gemm-full by CUDA-graph replay of 20 calls in a row (per call);\n"
              "# launch: one small kernel inside a stream of 200; gemm-shard: one of 20 back-to-back shard GEMMs; wall %.1f s\n",
              now_seconds() - wall0);
  const nlohmann::json doc{{"command", o.command}, {"device", gpu::device_info().description}, {"copy_GBps", GBps},
                           {"reps", o.reps}, {"dims", {o.dims.H, o.dims.L}}, {"rows", rows}};
  if (!o.json.empty()) {
    std::ofstream f(o.json);
    f << doc.dump(2) << "\n";
    f.close();
    if (!f) return LTT_USAGE("cannot write --json ", o.json, ": ", std::strerror(errno));
  }
  if (!o.machine_out.empty()) {  // the calibration ltt simulate reads
    auto m = fit_machine(doc);
    if (!m.ok()) return m.error();
    LTT_TRY(save_machine(*m, o.machine_out));
    std::printf("# calibration written to %s (ltt simulate --machine %s)\n", o.machine_out.c_str(), o.machine_out.c_str());
  }
  return 0;
}

}  // namespace ltt
