// ltt bench: timings of the cuda backend against the memory roofline.
#include "bench.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <tuple>
#include <nlohmann/json.hpp>

#include "backend.hpp"
#include "cuda_backend.hpp"
#include "cuda_bench.hpp"
#include "flags.hpp"
#include "gpu/device.hpp"
#include "shard_plan.hpp"
#include "inputs.hpp"
#include "jsononce.hpp"
#include "outfile.hpp"
#include "peers_mpi.hpp"
#include "report.hpp"
#include "simulate.hpp"
#include "table.hpp"
#include "tier.hpp"

namespace ltt {

namespace {

// The cases to time, checked before any work: the backend, a GPU, every
// shape, P processes dividing every T, the memory they need.
Result<std::vector<Problem>> bench_problems(const BenchOptions& o, int P) {
  if (o.backend != "cuda") return LTT_USAGE("ltt bench times the cuda backend: --backend cuda");
  std::vector<Problem> ps;
  for (int T : o.tp) {
    if (T % P != 0) return LTT_USAGE("--tp ", T, " over ", P, " processes: P must divide T");
    for (int M : o.tokens) {
      ps.push_back(make_problem(o.dims, T, M, Dist::realistic, 0, 1e-6));
      LTT_TRY(validate(ps.back()));
    }
  }
  LTT_TRY(gpu::cuda_available());  // after the shapes: a bad --tp is said on any machine
  LTT_TRY(flags::fits_in_memory(ps, "bench"));
  return ps;
}

// The MMA kernel's timeline in its last launch, after a row that ran it, in
// a diagnostic build (CMake's LTT_MMA_TRACE); nothing in any other build.
Status print_mma_trace([[maybe_unused]] const char* what, [[maybe_unused]] const Problem& p) {
#if defined(LTT_MMA_TRACE)
  auto tr = gpu::mma_trace();
  if (!tr.ok()) return tr.error();
  std::printf("# %s T %d M %d:\n%s", what, p.T, p.M, tr->c_str());
#endif
  return {};
}

// While the run is on, --json holds the rows timed so far, as check's
// reports hold their cases (Checkpoints, report.hpp): "finished": false.
void rows_so_far(Checkpoints& cp, const BenchOptions& o, const nlohmann::json& rows) {
  auto so_far = [&] {
    nlohmann::json j = report_head(o.command);
    j.update({{"finished", false}, {"note", so_far_note("ltt bench", rows.size(), 0, "row", o.command)}, {"rows", rows}});
    return json_text(j);
  };
  cp.update(rows.size(), "the rows so far", {{"--json", o.json, so_far}});
}

}  // namespace

Result<int> run_bench(const BenchOptions& o) {
  if (o.peer_memory != "cuda-ipc")
    return LTT_USAGE("--peer-memory ", o.peer_memory, " is the memory sibling processes share: run under mpirun -np 2 or "
                     "more, one process per GPU (one process has no siblings)");
  if (!o.machine_out.empty()) LTT_TRY(fit_possible(o.dims, o.tokens, o.tiers));
  auto cases = bench_problems(o, 1);
  if (!cases.ok()) return cases.error();
  const std::vector<Problem>& ps = *cases;
  const double wall0 = now_seconds();
  LTT_TRY(gpu::warm_up(500));  // clocks out of idle before the first figure
  auto bw = gpu::copy_bandwidth(size_t(1) << 31, o.reps);
  if (!bw.ok()) return bw.error();
  const double GBps = *bw;
  std::printf("# ltt bench --backend cuda: %s\n# dims H %d L %d, realistic inputs, %d timed runs after 3 warm-ups (median, min),"
              " device events; copy bandwidth %.0f GB/s (2 GiB device-to-device, read + written)\n",
              gpu::device_info().description.c_str(), o.dims.H, o.dims.L, o.reps, GBps);
  std::printf("# roofline: the least bytes the step must move (inputs read once, outputs written once) / the copy bandwidth\n");
  Table tab({{"what", "", 21}, {"T", "", 3}, {"M", "", 5}, {"median", "us", 10}, {"min", "us", 10}, {"bytes", "MB", 9},
             {"roofline", "us", 9}, {"x", "roof", 6}, {"TFLOP/s", "", 8}});
  tab.header();
  nlohmann::json rows = nlohmann::json::array();
  Checkpoints so_far;
  std::vector<std::string> read_shapes;  // read-tier0's fastest shape, per (T, M)
  std::map<std::tuple<int, int, bool>, gpu::Timing> chains;  // chain-(read-)tier0 by (H/T, L, read)
  auto row = [&](const char* what, const Problem& p, const gpu::Timing& t, double bytes, double flops) {
    const double roof = bytes / GBps / 1e3;
    tab.row({what, std::to_string(p.T), std::to_string(p.M), fmt("%.1f", t.median_us), fmt("%.1f", t.min_us),
             bytes > 0 ? fmt("%.2f", bytes / 1e6) : "-", bytes > 0 ? fmt("%.2f", roof) : "-",
             bytes > 0 ? fmt("%.2f", t.median_us / roof) : "-", flops > 0 ? fmt("%.1f", flops / (t.median_us * 1e6)) : "-"});
    rows.push_back({{"what", what}, {"tp", p.T}, {"tokens", p.M}, {"median_us", t.median_us}, {"min_us", t.min_us},
                    {"bytes", bytes}, {"roofline_us", bytes > 0 ? nlohmann::json(roof) : nlohmann::json(nullptr)},
                    {"flops", flops}});
    rows_so_far(so_far, o, rows);
  };
  // A row that does not apply here (a kernel that does not take the shape,
  // no programmatic launch on this device: a usage error) is said and left
  // out; any other failure (a CUDA error, a variant's output that fails its
  // check) ends the benchmark with that error.
  auto not_taken = [](const char* what, const Problem& p, const Status& st) -> Status {
    if (st.ok()) return {};
    if (st.error().code != Errc::usage) return st;
    std::printf("# %s not timed at M %d: %s\n", what, p.M, st.error().describe().c_str());
    return {};
  };
  {
    auto l = gpu::time_launch(200, o.reps);
    if (!l.ok()) return l.error();
    row("launch", Problem{}, *l, 0, 0);
    auto lg = gpu::time_launch_graph(o.reps);
    if (!lg.ok()) return lg.error();
    row("launch-graph", Problem{}, *lg, 0, 0);
    // A grid of the MMA kernel's shape doing nothing: plainly, in clusters
    // of 8 along K, and with its two cluster barriers in clusters of 8 and
    // of 4 (cuda_bench.hpp); the cluster rows only on Hopper.
    for (const auto& [what, ck, sync] : {std::tuple{"launch-grid", 0, false}, std::tuple{"launch-grid-c8", 8, false},
                                         std::tuple{"launch-grid-c8-sync", 8, true}, std::tuple{"launch-grid-c4-sync", 4, true}}) {
      auto lc = gpu::time_launch_clusters(ck, sync, o.reps);
      LTT_TRY(not_taken(what, Problem{}, lc.status()));
      if (lc.ok()) row(what, Problem{}, *lc, 0, 0);
    }
  }
  for (const Problem& p : ps) {
    const Inputs in = generate_inputs(p);
    const double M = p.M, L = p.L, H = p.H, Hs = p.Hs();
    // ltt's RMSNorm (its default kernel), then each kernel and shape forced.
    const double norm_bytes = bench_rmsnorm_bytes(M, L);
    struct NormRow {
      const char* what;
      gpu::NormChoice k;
    };
    const NormRow variants[] = {{"rmsnorm", {}},
                                {"rmsnorm-pdl", {-1, 0, 0, false, 256, true}},
                                {"rmsnorm-block", {1, 0, 0, false}},
                                {"rmsnorm-block512", {1, 0, 0, false, 512, false}},
                                {"rmsnorm-warp", {0, 1, 0, false}},
                                {"rmsnorm-warp-p2", {0, 2, 0, false}},
                                {"rmsnorm-warp-s", {0, 1, 0, true}},
                                {"rmsnorm-1pass-2r", {0, 0, 2, false}},
                                {"rmsnorm-1pass-8r", {0, 0, 8, false}}};
    {
      auto t = gpu::time_copy(static_cast<size_t>(p.M) * p.L, o.reps);
      if (!t.ok()) return t.error();
      row("copy-norm", p, *t, norm_bytes - 2 * L, 0);
    }
    for (const NormRow& v : variants) {
      if (!gpu::norm_choice_applies(v.k, p.L)) continue;  // that kernel does not take this L
      auto t = gpu::time_rmsnorm(p, in, o.reps, v.k);
      LTT_TRY(not_taken(v.what, p, t.status()));
      if (t.ok()) row(v.what, p, *t, norm_bytes, 0);
    }
    if (p.M <= 128 && p.T >= 2) {
      // Z, g, W's shard, S's shard read; Y's shard written (bf16).
      const double bytes = 2 * (M * L + L + Hs * L + 2 * M * Hs), flops = 2 * M * Hs * L;
      auto tc = gpu::time_tier0_rank_cublas(p, in, o.reps);
      if (!tc.ok()) return tc.error();
      // Tier 0's kernel, refused where it does not take the shape.
      auto tf = gpu::time_tier0_kernel(p, in, o.reps, true), ts = gpu::time_tier0_kernel(p, in, o.reps, false);
      LTT_TRY(not_taken("tier0-fused", p, tf.status()));
      LTT_TRY(not_taken("tier0-split", p, ts.status()));
      auto tg = gpu::time_tier0_kernel(p, in, o.reps, true, gpu::Tier0Variant{0, false, true});
      auto tgs = gpu::time_tier0_kernel(p, in, o.reps, false, gpu::Tier0Variant{0, false, true});
      LTT_TRY(not_taken("tier0-gemv", p, tg.status()));
      LTT_TRY(not_taken("tier0-gemv-split", p, tgs.status()));
      gpu::Tier0Variant mv;
      mv.mma = true;
      auto tm = gpu::time_tier0_kernel(p, in, o.reps, false, mv);
      LTT_TRY(not_taken("tier0-mma", p, tm.status()));
      if (tm.ok()) LTT_TRY(print_mma_trace("tier0-mma (behind the RMSNorm kernel)", p));
      auto tmf = gpu::time_tier0_kernel(p, in, o.reps, true, mv);
      LTT_TRY(not_taken("tier0-mma-fused", p, tmf.status()));
      if (tmf.ok()) LTT_TRY(print_mma_trace("tier0-mma-fused (normalising Z itself)", p));
      // The split forms warm: W brought into L2 by the kernel before, as the
      // pipeline's collective does (cuda_bench.hpp's Tier0Variant::warm).
      gpu::Tier0Variant gw{0, false, true};
      gw.warm = true;
      gpu::Tier0Variant mw = mv;
      mw.warm = true;
      auto tgw = gpu::time_tier0_kernel(p, in, o.reps, false, gw), tmw = gpu::time_tier0_kernel(p, in, o.reps, false, mw);
      LTT_TRY(not_taken("tier0-gemv-split-warm", p, tgw.status()));
      LTT_TRY(not_taken("tier0-mma-warm", p, tmw.status()));
      auto path = gpu::tier0_path(p);
      if (!path.ok()) return path.error();
      // The pipeline's own choice, from the same timings (its split forms
      // warm where they run: programmatic launch, the block-a-row RMSNorm kernel).
      auto& mine = *path == gpu::Tier0Path::fused        ? tf
                   : *path == gpu::Tier0Path::split      ? ts
                   : *path == gpu::Tier0Path::gemv       ? tg
                   : *path == gpu::Tier0Path::gemv_split ? (tgw.ok() ? tgw : tgs)
                   : *path == gpu::Tier0Path::mma        ? (tmw.ok() ? tmw : tm)
                   : *path == gpu::Tier0Path::mma_fused  ? tmf
                                                         : tc;
      if (!mine.ok()) return mine.error();
      row("tier0-rank", p, *mine, bytes, flops);
      {
        // W's shard: what the tier 0 rows' calls bring from memory (they
        // rotate over copies of it; their other operands stay in L2).
        const double wbytes = 2 * Hs * L;
        gpu::ReadShape sh;
        auto tr = gpu::time_read(static_cast<size_t>(wbytes), o.reps, &sh);
        if (!tr.ok()) return tr.error();
        row("read-tier0", p, *tr, wbytes, 0);
        read_shapes.push_back(cat("T ", p.T, " M ", p.M, ": ", sh.blocks, " x ", sh.threads, ", ", sh.unroll));
        // The warm step's chain with none of its work (where the warm rows
        // run): it does nothing that depends on M, so it is timed once a
        // shard shape and its figure printed at every M.
        if (tgw.ok() || tmw.ok())
          for (bool rd : {false, true}) {
            const char* what = rd ? "chain-read-tier0" : "chain-tier0";
            const auto key = std::tuple{p.Hs(), p.L, rd};
            if (auto at = chains.find(key); at != chains.end()) {
              row(what, p, at->second, wbytes, 0);
              continue;
            }
            auto tch = gpu::time_chain(p, o.reps, rd);
            LTT_TRY(not_taken(what, p, tch.status()));
            if (!tch.ok()) continue;
            chains.emplace(key, *tch);
            row(what, p, *tch, wbytes, 0);
          }
      }
      row("tier0-cublas", p, *tc, bytes, flops);
      if (tf.ok()) row("tier0-fused", p, *tf, bytes, flops);
      if (ts.ok()) row("tier0-split", p, *ts, bytes, flops);
      if (tg.ok()) row("tier0-gemv", p, *tg, bytes, flops);
      if (tgs.ok()) row("tier0-gemv-split", p, *tgs, bytes, flops);
      if (tgw.ok()) row("tier0-gemv-split-warm", p, *tgw, bytes, flops);
      if (tgs.ok()) {
        auto tgk = gpu::time_tier0_kernel(p, in, o.reps, false, gpu::Tier0Variant{0, false, true, true});
        if (!tgk.ok()) return tgk.error();
        row("tier0-gemv-kernel", p, *tgk, bytes - 2 * L, flops);
      }
      if (tm.ok()) row("tier0-mma", p, *tm, bytes, flops);
      if (tmw.ok()) row("tier0-mma-warm", p, *tmw, bytes, flops);
      if (tmf.ok()) row("tier0-mma-fused", p, *tmf, bytes, flops);
      // The MMA kernel alone (N given), by its own plan and with each
      // cluster size along K forced.
      if (tm.ok()) {
        gpu::Tier0Variant v = mv;
        v.bare = true;
        auto tk = gpu::time_tier0_kernel(p, in, o.reps, false, v);
        if (!tk.ok()) return tk.error();
        row("tier0-mma-kernel", p, *tk, bytes - 2 * L, flops);
        LTT_TRY(print_mma_trace("tier0-mma-kernel", p));
        for (int ck : {1, 2, 4, 8}) {
          if (!gpu::mma_takes(ck, p.M, p.Hs(), p.L)) continue;
          v.mma_ck = ck;
          const std::string what = cat("tier0-mma-kernel-k", ck);
          auto tv = gpu::time_tier0_kernel(p, in, o.reps, false, v);
          LTT_TRY(not_taken(what.c_str(), p, tv.status()));
          if (tv.ok()) row(what.c_str(), p, *tv, bytes - 2 * L, flops);
        }
      }
      // The few-token kernel alone (N given) with each plan forced
      // (shard_plan.hpp's GemvPlan): the one-block form and the cluster forms.
      for (const gpu::GemvPlan pl : {gpu::GemvPlan{1, 1}, gpu::GemvPlan{2, 2}, gpu::GemvPlan{4, 2}, gpu::GemvPlan{2, 4},
                                     gpu::GemvPlan{4, 4}, gpu::GemvPlan{2, 8}, gpu::GemvPlan{4, 8}}) {
        if (!gpu::gemv_plan_takes(pl, p.M, p.Hs(), p.L)) continue;
        const std::string what = cat("tier0-gemv-kernel-", pl.cn, "x", pl.ck);
        gpu::Tier0Variant v{0, false, true, true};
        v.plan = pl;
        auto tv = gpu::time_tier0_kernel(p, in, o.reps, false, v);
        LTT_TRY(not_taken(what.c_str(), p, tv.status()));
        if (tv.ok()) row(what.c_str(), p, *tv, bytes - 2 * L, flops);
      }
      if (tg.ok()) {
        auto tgp = gpu::time_tier0_kernel(p, in, o.reps, true, gpu::Tier0Variant{0, true, true});
        LTT_TRY(not_taken("tier0-gemv-pdl", p, tgp.status()));
        if (tgp.ok()) row("tier0-gemv-pdl", p, *tgp, bytes, flops);
      }
      // The fused kernel's column tiles a cluster forced, and its calls
      // chained by programmatic launch (cuda_bench.hpp's Tier0Variant).
      if (tf.ok()) {
        for (int ct : {1, 2, 4}) {
          auto tv = gpu::time_tier0_kernel(p, in, o.reps, true, gpu::Tier0Variant{ct, false});
          const std::string what = cat("tier0-fused-c", ct);
          LTT_TRY(not_taken(what.c_str(), p, tv.status()));
          if (tv.ok()) row(what.c_str(), p, *tv, bytes, flops);
        }
        auto tp = gpu::time_tier0_kernel(p, in, o.reps, true, gpu::Tier0Variant{0, true});
        LTT_TRY(not_taken("tier0-fused-pdl", p, tp.status()));
        if (tp.ok()) row("tier0-fused-pdl", p, *tp, bytes, flops);
      }
    }
    auto wd = gpu::time_widen(p, in, o.reps);
    if (!wd.ok()) return wd.error();
    row("widen", p, *wd, bench_conv_bytes(M, H), 0);
    auto rd = gpu::time_round(p, in, o.reps);
    if (!rd.ok()) return rd.error();
    row("round", p, *rd, bench_conv_bytes(M, H), 0);
    auto gs = gpu::time_gemm_shard_seq(p, in, 20, o.reps);
    if (!gs.ok()) return gs.error();
    row("gemm-shard", p, *gs, 2 * (M * L + Hs * L) + 8 * M * Hs, 2 * M * Hs * L);
    // ltt's all-reduce kernel on the T fake ranks, where its operands cannot sit in L2.
    const double ar_bytes = 2.0 * 2 * p.T * M * L;  // every rank's R read, every rank's Z written
    if (ar_bytes >= 2.0 * static_cast<double>(gpu::l2_cache_bytes()))
      for (Algo a : {Algo::one_shot, Algo::ring}) {
        auto ar = gpu::time_fake_allreduce(p, in, o.reps, a);
        if (!ar.ok()) return ar.error();
        row(a == Algo::ring ? "allreduce-ring" : "allreduce-1shot", p, *ar, ar_bytes, 0);
      }
    if (p.T >= 2) {  // the Lamport all-gather: clear, publish, every rank's read (cuda_bench.hpp)
      auto lg = gpu::time_fake_lamport(p, o.reps);
      if (!lg.ok()) return lg.error();
      row("lamport-allgather", p, *lg, 2.0 * M * H * (3 + 2.0 * p.T), 0);
    }
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
              "# tier0-rank: one rank's RMSNorm + shard GEMM + S add + rounding as the pipeline runs it (tier0-gemv-split-warm,\n"
              "# -split, -mma-warm or -cublas by M), collectives excluded; tier0-fused: tier 0's kernel normalising too (one launch);\n"
              "# -warm: the RMSNorm kernel, standing in for the collective, brings the call's W shard into L2 at its start and\n"
              "# is a programmatic dependent of the call before (the pipeline's first step kernel, the collective's programmatic\n"
              "# dependent, loads W while the collective runs), so W's bytes move under the step before (from memory where the\n"
              "# rotation's copies cover twice the L2); without the warm form (before Hopper) tier0-rank takes the cold one;\n"
              "# tier0-split: the RMSNorm kernel, then that kernel; tier0-gemv: the few-token kernel (M <= 16) normalising\n"
              "# too (one launch); tier0-gemv-split: the RMSNorm kernel, then that kernel; tier0-gemv-kernel: that kernel\n"
              "# alone (N given, no RMSNorm), by its own plan; tier0-gemv-kernel-CxK: the same with plan CxK forced (1x1: one\n"
              "# block 8 columns over all of K; else clusters of K blocks along K, C groups of 8 columns a block: Hopper);\n"
              "# tier0-gemv-pdl: tier0-gemv's calls chained by programmatic launch; tier0-mma: the RMSNorm kernel, then\n"
              "# the MMA kernel (Hopper's warpgroup products, N given, compute capability 9.0); tier0-mma-fused: the MMA\n"
              "# kernel normalising Z itself (one launch); tier0-mma-kernel: the MMA kernel\n"
              "# kernel alone, by its own plan; tier0-mma-kernel-kC: the same with C blocks a cluster along K;\n"
              "# tier0-fused-cN: the cluster kernel with N 16-column tiles a cluster; every tier0-* row's output is checked\n"
              "# against a rigorous bound around the exact step (gpu/step_check.hpp) before its figure is printed;\n"
              "# tier0-fused-pdl: its calls chained by programmatic launch (a call's W prefetch overlaps the call before);\n"
              "# read-tier0: a kernel that only reads W's shard once (the bytes the tier0-* rows' calls bring from memory;\n"
              "# their other operands stay in L2 between calls) with 16-byte streaming loads, the fastest over\n"
              "# blocks of 256, 512, 1024 threads, 1, 2, 4, 8 loads in flight a thread, 1 .. 8 blocks an SM), replayed the\n"
              "# same way: the floor any kernel for that step meets at this size;\n"
              "# chain-tier0: the -warm rows' chain with none of their work: a call's two kernels, each a programmatic\n"
              "# dependent of the one before, the first bringing W's shard into L2 on the warm RMSNorm kernel's grid (block 0\n"
              "# waits for the call before), the second on the few-token kernel's grid waiting for the first; chain-read-tier0:\n"
              "# the second also loads its 8 rows of W before its wait, as the few-token kernel does (the floor under\n"
              "# tier0-gemv-split-warm; timed once a shard shape, the same figure at every M);\n"
              "# copy-norm: the driver's device-to-device copy of M L bf16 (RMSNorm's bytes less g's), replayed the same way:\n"
              "# what any kernel moving those bytes once can reach at this size;\n"
              "# rmsnorm: ltt's kernel (a block of 256 threads a row for L <= 4096); rmsnorm-pdl: the same, each call a\n"
              "# programmatic dependent of the one before (its launch overlaps that call's tail; it reads Z after that call ends);\n"
              "# tier0-cublas: the library composition (RMSNorm, widen, cuBLAS with the\n"
              "# addend, round); rmsnorm*, tier0-*, gemm-full and launch-graph by CUDA-graph replay of 20 calls in a row (per\n"
              "# call); launch: one small kernel inside a stream of 200; gemm-shard: one of 20 back-to-back shard GEMMs;\n"
              "# allreduce-*: ltt's all-reduce kernel over the T fake ranks (R to Z), where T M L elements exceed twice the L2;\n"
              "# lamport-allgather: tier 0's all-gather on the T fake ranks (the receive buffer cleared to -0, the T shards\n"
              "# published into it, T reads of it into each rank's Y: bytes 2 M H (3 + 2 T)); wall %.1f s\n",
              now_seconds() - wall0);
  if (!read_shapes.empty()) {
    std::string line;
    for (const std::string& r : read_shapes) line += (line.empty() ? "" : "; ") + r;
    std::printf("# read-tier0's fastest shape (blocks x threads, loads in flight a thread): %s\n", line.c_str());
  }
  nlohmann::json doc = report_head(o.command);
  doc.update({{"device", gpu::device_info().description}, {"copy_GBps", GBps}, {"reps", o.reps}, {"dims", {o.dims.H, o.dims.L}},
              {"rows", rows}});
  if (!o.json.empty()) {
    LTT_TRY(write_text_file("--json", o.json, json_text(doc)));
  }
  if (!o.machine_out.empty()) {  // the calibration ltt simulate reads
    auto m = fit_machine(doc);
    if (!m.ok()) return m.error();
    auto against = fit_against(*m, doc, "this run");
    if (!against.ok()) return against.error();
    LTT_TRY(save_machine(*m, o.machine_out));
    std::printf("%s", against->c_str());
    std::printf("# calibration written to %s (ltt simulate --machine %s)\n", o.machine_out.c_str(), o.machine_out.c_str());
  }
  return 0;
}

Result<int> run_bench_ranks(const BenchOptions& o, MPI_Comm comm) {
  if (!o.machine_out.empty()) return LTT_USAGE("--machine-out fits the one-GPU figures: run it without mpirun");
  if (o.peer_memory != "cuda-ipc" && o.peer_memory != "nccl" && o.peer_memory != "both")
    return LTT_USAGE("--peer-memory '", o.peer_memory, "': use cuda-ipc, nccl or both");
  const gpu::Peers peers = mpi_peers(comm);
  // ltt's kernels over each peer memory asked for: "ipc" rows over CUDA IPC,
  // "sym" rows over NCCL symmetric windows.
  std::vector<std::pair<gpu::Peers, const char*>> mems;
  if (o.peer_memory != "nccl") mems.push_back({peers, "ipc"});
  if (o.peer_memory != "cuda-ipc") {
    gpu::Peers w = peers;
    w.memory = gpu::PeerMemory::nccl_window;
    mems.push_back({w, "sym"});
  }
  const bool root = peers.pid == 0;
  const int P = peers.procs;
  auto cases = bench_problems(o, P);
  if (!cases.ok()) return cases.error();
  const std::vector<Problem>& ps = *cases;
  auto info = gpu::ranks_info(peers);
  if (!info.ok()) return info.error();
  const bool nccl = info->own_gpus && gpu::have_nccl();
  const double wall0 = now_seconds();
  LTT_TRY(gpu::warm_up(500));
  if (root) {
    std::printf("# ltt bench --backend cuda over %d processes: %s; %s; fences between processes on the %s\n", P,
                gpu::device_info().description.c_str(),
                info->own_gpus ? "every process on a GPU of its own" : "processes sharing GPUs",
                info->device_fences ? "device (flags in peer memory)" : "host (streams drained, MPI barrier)");
    std::printf("# transport: ipc = ltt's collective kernels over CUDA IPC peer memory; sym = the same kernels over NCCL"
                " symmetric windows (--peer-memory); nccl = NCCL's collectives\n");
    std::printf("# dims H %d L %d, realistic inputs; each figure: the median over %d runs (after 3) of the slowest process's"
                " time, runs started together, device events\n", o.dims.H, o.dims.L, o.reps);
  }
  Table tab({{"what", "", 14}, {"T", "", 3}, {"M", "", 5}, {"transport", "", 9}, {"median", "us", 10}, {"min", "us", 10}});
  if (root) tab.header();
  nlohmann::json rows = nlohmann::json::array();
  Checkpoints so_far;
  std::map<std::pair<int, int>, std::map<int, double>> by;  // (T, M) -> tier -> us (ipc)
  auto row = [&](const std::string& what, const Problem& p, const char* transport, const gpu::Timing& t) {
    if (root) tab.row({what, std::to_string(p.T), std::to_string(p.M), transport, fmt("%.1f", t.median_us), fmt("%.1f", t.min_us)});
    rows.push_back({{"what", what}, {"tp", p.T}, {"tokens", p.M}, {"transport", transport}, {"median_us", t.median_us},
                    {"min_us", t.min_us}});
    if (root) rows_so_far(so_far, o, rows);
  };
  for (const Problem& p : ps) {
    const int lo = peers.pid * (p.T / P);
    std::vector<int> local;
    for (int r = lo; r < lo + p.T / P; ++r) local.push_back(r);
    const Inputs in = make_inputs(p, local, false, nullptr);
    for (int tier : o.tiers) {
      if (!validate_for_tier(p, tier).ok()) continue;
      for (const auto& [mp, label] : mems) {
        auto t = gpu::time_tier_ranks(p, tier, tier_def(tier).contract, in, o.reps, mp, gpu::Transport::ipc);
        if (!t.ok()) return t.error();
        row(cat("tier", tier), p, label, *t);
        if (&mp == &mems.front().first) by[{p.T, p.M}][tier] = t->median_us;
      }
      if (nccl && p.T == P && tier != 0) {
        auto tn = gpu::time_tier_ranks(p, tier, tier_def(tier).contract, in, o.reps, peers, gpu::Transport::nccl);
        if (!tn.ok()) return tn.error();
        row(cat("tier", tier), p, "nccl", *tn);
      }
    }
    if (nccl && p.T == P && validate_for_tier(p, 0).ok()) {
      auto tu = gpu::time_tier0_unfused(p, in, o.reps, peers);
      if (!tu.ok()) return tu.error();
      row("tier0-unfused", p, "nccl", *tu);
    }
  }
  // The all-reduce alone, one rank per process: time, algorithm and bus bandwidth.
  Table bw({{"all-reduce", "", 10}, {"bytes", "", 11}, {"median", "us", 10}, {"algbw", "GB/s", 9}, {"busbw", "GB/s", 9}});
  if (root) {
    std::printf("# the all-reduce of bf16 over the %d processes, one rank each, 20 calls in a row (per call); algbw = bytes /"
                " time, busbw = algbw * 2 (P - 1) / P (nccl-tests' definition); ipc: ltt's one-shot kernel with its fence\n", P);
    bw.header();
  }
  nlohmann::json bws = nlohmann::json::array();
  std::vector<std::tuple<gpu::Transport, const gpu::Peers*, const char*>> ways;
  if (nccl) ways.emplace_back(gpu::Transport::nccl, &peers, "nccl");
  for (const auto& [mp, label] : mems) ways.emplace_back(gpu::Transport::ipc, &mp, label);
  for (const auto& [tr, pp, name] : ways) {
    for (size_t bytes = 1024; bytes <= (size_t(1) << 30); bytes *= 4) {
      auto t = gpu::time_allreduce(bytes, o.reps, *pp, tr);
      if (!t.ok()) return t.error();
      const double alg = static_cast<double>(bytes) / (t->median_us * 1e3), bus = alg * 2.0 * (P - 1) / P;
      if (root) bw.row({name, std::to_string(bytes), fmt("%.1f", t->median_us), fmt("%.1f", alg), fmt("%.1f", bus)});
      bws.push_back({{"transport", name}, {"bytes", bytes}, {"median_us", t->median_us}, {"algbw_GBps", alg}, {"busbw_GBps", bus}});
    }
  }
  // Where the fastest of tiers 0, 1 and 2 changes with M, per T.
  nlohmann::json cross = nlohmann::json::array();
  if (root) {
    std::map<int, std::vector<std::pair<int, int>>> fastest;  // T -> (M, tier)
    for (const auto& [key, tiers] : by) {
      int best = -1;
      for (const auto& [tier, us] : tiers)
        if (tier <= 2 && (best < 0 || us < tiers.at(best))) best = tier;
      if (best >= 0) fastest[key.first].push_back({key.second, best});
    }
    for (const auto& [T, list] : fastest) {
      std::string line;
      for (size_t i = 0; i < list.size(); ++i)
        if (i == 0 || list[i].second != list[i - 1].second) {
          line += cat(i ? "; " : "", "tier ", list[i].second, " from M ", list[i].first);
          cross.push_back({{"tp", T}, {"from_tokens", list[i].first}, {"fastest_tier", list[i].second}});
        }
      std::printf("# fastest of tiers 0-2 at T %d (%s): %s\n", T, mems.front().second, line.c_str());
    }
    std::printf("# tierK: the tier end to end over the processes' ranks (fences included); tier0-unfused: NCCL all-reduce of R"
                " and S, RMSNorm, cuBLAS shard GEMM + S, NCCL all-gather; wall %.1f s\n", now_seconds() - wall0);
  }
  if (root && !o.json.empty()) {
    nlohmann::json doc = report_head(o.command);
    doc.update({{"device", gpu::device_info().description}, {"processes", P}, {"own_gpus", info->own_gpus},
                {"device_fences", info->device_fences}, {"reps", o.reps}, {"peer_memory", o.peer_memory},
                {"dims", {o.dims.H, o.dims.L}}, {"rows", rows}, {"allreduce", bws}, {"crossover", cross}});
    LTT_TRY(write_text_file("--json", o.json, json_text(doc)));
  }
  return 0;
}

}  // namespace ltt
