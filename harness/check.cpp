// `ltt check`: the driver. It never names a tier: it loops over the tier
// table, runs each case on the backend over this process's TP ranks, and on
// process 0 checks rank 0's output against the reference, the other ranks'
// against rank 0's (by hash, then element by element where they differ).
#include "check.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

#include "backend.hpp"
#include "cuda_backend.hpp"
#include "peers_mpi.hpp"
#include "casefile.hpp"
#include "bf16.hpp"
#include "compare.hpp"
#include "flags.hpp"
#include "outfile.hpp"
#include "golden.hpp"
#include "inputs.hpp"
#include "mpi_comm.hpp"
#include "reference.hpp"
#include "report.hpp"
#include "safetensors.hpp"
#include "table.hpp"
#include "watchdog.hpp"

namespace ltt {

std::string self_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "ltt";
  buf[n] = 0;
  return buf;
}

std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || (c && std::strchr("_-+=.,:/@%", c));
  });
  if (plain) return s;
  // A control character (a newline in a file's name) or a byte that is no
  // part of UTF-8 (a name in another encoding) in bash's $'...' form, so the
  // word stays on its line, a JSON report can hold it (JSON is UTF-8), and
  // the shell reads back the same bytes.
  if (printable(s) != s) {
    std::string q = "$'";
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      const size_t n = utf8_length(s, i);
      if (n > 1) {
        q.append(s, i, n);
        i += n - 1;
        continue;
      }
      if (c == '\'' || c == '\\') q += '\\';
      q += n == 0 || static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? printable(std::string(1, c)) : std::string(1, c);
    }
    return q + "'";
  }
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

namespace {

// --inject: this rank hangs, crashes or exits here (the stage names it).
void inject_fault(const std::string& what, const std::string& stage) {
  watchdog_stage(stage);
  std::fflush(stdout);
  if (what == "crash") std::raise(SIGSEGV);
  if (what == "exit") std::exit(0);
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// The backend's GEMMs back on ltt's own path when a case's runs end, however they end.
struct GemmAlgoReset {
  ~GemmAlgoReset() { gpu::use_gemm_algo(-1); }
};

// The environment that steers the cuda backend's paths, as a reproduce
// line's prefix ("" when none is set).
std::string cuda_env_prefix() {
  std::string s;
  for (const char* v : {"LTT_TIER0_PATH", "LTT_TIER0_COLUMNS", "LTT_TIER0_GEMV_PLAN", "LTT_GEMM_LT_INPLACE"})
    if (const char* e = std::getenv(v); e && *e) s += cat(v, "=", shell_word(e), " ");
  return s;
}

// What only process 0 does (the report's claim, a case's reference and
// checks) ends every process alike when it fails: the others would wait in
// the next collective. Process 0 gets its own error back; the others end
// quietly, as for a usage error (process 0 alone prints the reason, main.cpp,
// and aborts the job with its code where the error is not a usage error).
Status shared_by_root(const Status& s, bool root, int P, MPI_Comm comm) {
  if (P > 1) {
    int code = s.ok() ? 0 : static_cast<int>(s.error().code);
    MPI_Bcast(&code, 1, MPI_INT, 0, comm);
    if (code != 0 && !root) return LTT_USAGE("process 0 stopped the run: its message says why");
  }
  return s;
}

// Refused unless every process was given the same arguments (argv[0] aside:
// one program may be named two ways), compared by a hash (fnv1a over their
// bytes), naming the first process that differs.
Status same_command(const std::string& command, int P, MPI_Comm comm) {
  if (P == 1) return {};
  unsigned long long h = fnv1a(command);
  std::vector<unsigned long long> all(static_cast<size_t>(P));
  MPI_Allgather(&h, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG, comm);
  for (int q = 1; q < P; ++q)
    if (all[static_cast<size_t>(q)] != all[0])
      return LTT_USAGE("process ", q, " of ", P, " was given another command line than process 0: every process must run "
                       "the same ltt check (one mpirun command, not 'A : B'); this process's arguments: ", command);
  return {};
}

}  // namespace

std::vector<int> default_tokens(int tier) {
  if (tier == 0) return {1, 5, 33, 128};
  return {1, 5, 33, 128, 256, 257, 2048};
}

Result<std::vector<int>> select_gemm_algos(const std::string& sel, const std::vector<std::string>& list) {
  std::vector<int> out;
  if (sel == "all" || sel == "listed" || sel == "split-k") {
    for (size_t i = 0; i < list.size(); ++i) {
      const bool split = list[i].rfind(gpu::kGemmSplitForm, 0) == 0;
      if (sel == "all" || split == (sel == "split-k")) out.push_back(static_cast<int>(i));
    }
    return out;
  }
  auto idx = flags::seeds("--gemm-algos", sel);
  if (!idx.ok()) return LTT_USAGE("--gemm-algos '", sel, "': use all, listed, split-k or indices like 0, 0-3 or 0-3,9");
  for (uint64_t i : *idx)
    if (i < list.size()) out.push_back(static_cast<int>(i));
  return out;
}

Result<int> run_check(const CheckOptions& o, MPI_Comm comm, std::vector<CaseResult>* results) {
  int pid = 0, P = 1;
  MPI_Comm_rank(comm, &pid);
  MPI_Comm_size(comm, &P);
  const bool root = pid == 0;
  const double wall0 = now_seconds();
  // Timed from the first collective: a process that never comes to it (one
  // given another subcommand) is a wait --timeout ends, naming it.
  Watchdog dog(o.timeout, P == 1 ? std::string("process 0 of 1 (fake ranks)") : cat("process ", pid, " of ", P));
  // Every process must run one command: processes given other flags
  // (mpirun's "A : B") would meet in different collectives, hang or corrupt
  // memory, or fail the ranks check for a launch mistake. The first
  // collective of the run compares them; its refusal comes after the claim.
  watchdog_stage("comparing the processes' command lines (the first collective)");
  const Status one_command = same_command(o.command_args, P, comm);
  // Before anything can refuse the run: a run refused (exit 2) leaves "did
  // not finish", never an earlier run's passing report. A claim that fails
  // ends every process (the others would wait in the next collective), said
  // by process 0 alone.
  Report report(o, P);
  {
    watchdog_stage("writing the reports' notes that the run has not finished", 120);
    Status claimed;
    if (root && !o.quiet && !o.plan_only) claimed = report.claim();
    LTT_TRY(shared_by_root(claimed, root, P, comm));
  }
  LTT_TRY(one_command);
  watchdog_own_work("checking the flags and shapes");

  const bool cuda = o.backend == "cuda";
  if (!cuda && o.backend != "cpu") return LTT_USAGE("--backend '", o.backend, "': use cpu or cuda");
  if (!cuda && o.transport != "ipc")
    return LTT_USAGE("--transport ", o.transport, " is for --backend cuda under mpirun (the cpu backend's processes use MPI)");
  if (o.transport != "ipc" && o.transport != "nccl") return LTT_USAGE("--transport '", o.transport, "': use ipc or nccl");
  if (o.peer_memory != "cuda-ipc" && o.peer_memory != "nccl")
    return LTT_USAGE("--peer-memory '", o.peer_memory, "': use cuda-ipc or nccl");
  if (o.peer_memory != "cuda-ipc" && (!cuda || P == 1))
    return LTT_USAGE("--peer-memory ", o.peer_memory, " is where sibling processes' buffers live: it needs --backend cuda "
                     "under mpirun -np 2 or more (one process per GPU)");
  // The defaults, named where they choose nothing, would be taken for a choice made.
  if (!cuda || P == 1) {
    const char* where = !cuda ? "the cpu backend's processes use MPI" : "one process runs the T ranks as fake ranks";
    for (const auto& [given, flag, what] :
         {std::tuple{o.transport_given && o.transport == "ipc", "--transport ipc", "the collectives between processes"},
          std::tuple{o.peer_memory_given && o.peer_memory == "cuda-ipc", "--peer-memory cuda-ipc",
                     "where sibling processes' buffers live"}})  // the others are refused above or below, by name
      if (given)
        return LTT_USAGE(flag, " is for --backend cuda under mpirun (it chooses ", what, "); here ", where,
                         ", so it would do nothing: drop it");
  }
  gpu::Peers peers;
  if (cuda) {
    LTT_TRY(gpu::cuda_available());
    if (o.transport == "nccl") {
      if (P == 1) return LTT_USAGE("--transport nccl runs one rank per process: mpirun -np T ltt check --backend cuda --tp T");
      if (std::all_of(o.tiers.begin(), o.tiers.end(), [](int k) { return k == 0; }))
        return LTT_USAGE("--transport nccl chooses the collectives of tiers 1-4, and tier 0's fused collective always runs over "
                         "peer memory: with --tier 0 alone it would do nothing: drop it");
      if (!gpu::have_nccl()) return LTT_USAGE("--transport nccl: this build has no NCCL (nccl.h and libnccl at configure time)");
      for (int T : o.tp)
        if (T != P)
          return LTT_USAGE("--transport nccl runs one rank per process: --tp ", T, " with ", P,
                           " processes (use --tp ", P, ", or --transport ipc for several ranks per process)");
    }
    if (P > 1) peers = mpi_peers(comm);
    if (o.peer_memory == "nccl") peers.memory = gpu::PeerMemory::nccl_window;
    if (!o.variants.empty())
      return LTT_USAGE("--variant makes the cpu backend a random member of the family: use it with --backend cpu");
  }
  if (!o.gemm_algos.empty()) {
    if (!cuda)
      return LTT_USAGE("--gemm-algos runs the cuda backend's GEMMs by each of cuBLASLt's algorithms: use it with --backend cuda");
    if (P > 1) return LTT_USAGE("--gemm-algos runs fake ranks in one process: run it without mpirun");
    if (!o.variants.empty()) return LTT_USAGE("--gemm-algos and --variant: the variants are the cpu backend's; give one");
    LTT_TRY(select_gemm_algos(o.gemm_algos, {}).status());  // well formed
  }
  // A fault that cannot apply is refused, never silently skipped.
  if (o.plant == "shard-off-by-one")
    for (int t : o.tiers)
      if (t != 0 && t != 2)
        return LTT_USAGE("--plant shard-off-by-one swaps the last rank's shard of W, which only tiers 0 and 2 shard: "
                         "tier ", t, " would run unplanted (select --tier 0, 2 or 0,2)");
  if (o.plant == "shard-off-by-one")
    for (int T : o.tp)
      if (T < 2)
        return LTT_USAGE("--plant shard-off-by-one gives the last rank shard 0's rows of W: at T = ", T,
                         " the last rank is rank 0, whose shard that is (nothing planted; select --tp 2 or more)");
  if (o.plant == "rank-differs")
    for (int T : o.tp)
      if (T < 2) return LTT_USAGE("--plant rank-differs changes the last rank's output: T = ", T, " has no second rank");
  if (!o.inject.empty())
    for (int T : o.tp)
      if (o.inject_rank >= T)
        return LTT_USAGE("--inject ", o.inject, " on rank ", o.inject_rank, ": T = ", T, " has no such rank (ranks 0..", T - 1,
                         "; choose --inject-rank below every --tp)");
  for (int T : o.tp)
    if (T % P != 0)
      return LTT_USAGE("--tp ", T, " with ", P, " MPI processes: each process holds T/P ranks, so P must divide T (run mpirun -np P with P dividing every --tp)");
  // One rank reduces nothing: an --algo there would label rows by a collective that never ran.
  if (o.algo && std::none_of(o.tp.begin(), o.tp.end(), [](int T) { return T > 1; }))
    return LTT_USAGE("--algo ", name(*o.algo), " with --tp ", join(o.tp, ","), ": one rank reduces nothing, so no collective "
                     "runs: drop --algo, or give a --tp of 2 or more");
  for (int t : o.tiers)
    if (t < 0 || t >= kNumTiers) return LTT_USAGE("--tier ", t, " does not exist: tiers are 0..", kNumTiers - 1);
  if (o.plant != "" && o.plant != "shard-off-by-one" && o.plant != "rank-differs")
    return LTT_USAGE("--plant '", o.plant, "': use shard-off-by-one or rank-differs (hang is --inject hang)");
  Member member;
  const MutantDef* mutant_def = o.mutant.empty() ? nullptr : find_mutant(o.mutant);
  if (!o.mutant.empty()) {
    const MutantDef* d = mutant_def;
    if (!d) {
      return LTT_USAGE("--mutant '", o.mutant, "' does not exist: use one of ",
                       join(mutants(), ", ", [](const auto& m) { return m.name; }), " (ltt mutants --list)");
    }
    member.mut = d->m;
    for (int T : o.tp)
      if (T < d->min_tp)
        return LTT_USAGE("--mutant ", o.mutant, " is a bug only at T >= ", d->min_tp, " (below, it is the correct code or names a rank "
                         "that is not there): leave T = ", T, " out of --tp");
    if (cuda && !gpu::supported_mutant(d->m))
      return LTT_USAGE("--mutant ", o.mutant, ": the cuda backend cannot plant it (ltt mutants --backend cuda runs those it can)");
    if (d->m == Mutant::gemm_round_then_add && !o.gemm_algos.empty())
      return LTT_USAGE("--mutant gemm-round-then-add replaces the cuBLASLt call that --gemm-algos chooses algorithms for "
                       "(its own cuBLAS product, then a rounding kernel): give one of them");
  }
  if ((!o.variants.empty() || !o.mutant.empty()) && P > 1)
    return LTT_USAGE("--variant and --mutant run fake ranks in one process: run them without mpirun");
  // The runs of every case: the backend as it is, or once per variant seed
  // (or, per case below, once per cuBLASLt algorithm: --gemm-algos).
  struct Run {
    std::optional<uint64_t> seed;
    int gemm_algo = -1;  // an entry of the case's gpu::gemm_algos() list, or ltt's own GEMM path
  };
  std::vector<Run> members;
  if (o.variants.empty()) members.push_back(Run{});
  for (uint64_t v : o.variants) members.push_back(Run{v, -1});
  std::set<std::string> algos_shown;  // the (tier, T, M) whose cuBLASLt list was printed

  // The case list: every (T, M, dist, tier) the tier accepts.
  // Cases grouped by input set: inputs, truth and bounds are made once per set.
  struct Set {
    Problem p;
    std::vector<int> tiers;
  };
  std::vector<Set> sets;
  size_t n_cases = 0;
  flags::Skipped skipped;
  for (int T : o.tp)
    for (Dist dist : o.dists) {
      std::vector<int> Ms = o.tokens;
      if (Ms.empty()) Ms = default_tokens(1);
      for (int M : Ms) {
        Set set;
        for (int tier : o.tiers) {
          if (o.tokens.empty() && M > 128 && tier == 0) continue;
          const Problem p = make_problem(o.dims, T, M, dist, o.seed, o.eps);
          LTT_TRY(validate(p));
          if (!validate_for_tier(p, tier).ok()) {  // e.g. tier 0 past M 128: not where it applies
            skipped.add(tier, p);
            continue;
          }
          set.p = p;
          set.tiers.push_back(tier);
        }
        n_cases += set.tiers.size();
        if (!set.tiers.empty()) sets.push_back(set);
      }
    }
  if (sets.empty()) return LTT_USAGE("no case to run: every selected tier refuses every selected shape (", kTier0Applies, ")");
  if (const MutantDef* d = mutant_def) {  // a mutant no selected case carries would pass unseen: refused, as ltt mutants skips it
    bool carried = false;
    for (const auto& set : sets)
      for (int tier : set.tiers)
        carried |= set.p.T >= d->min_tp && std::find(d->tiers.begin(), d->tiers.end(), tier) != d->tiers.end();
    if (!carried) {
      return LTT_USAGE("--mutant ", o.mutant, " acts on tier", d->tiers.size() > 1 ? "s " : " ", join(d->tiers, ","), d->min_tp > 1 ? cat(" at T >= ", d->min_tp) : std::string(),
                       ": no selected case is one, so it could not show (select such a case with --tier and --tp)");
    }
  }
  {
    std::vector<Problem> ps;
    for (const Set& st : sets) ps.push_back(st.p);
    LTT_TRY(flags::fits_in_memory(ps, o.caller.c_str()));
  }
  if (root && !o.quiet) skipped.say(o.caller.c_str());
  if (o.plan_only) return 0;

  for (const auto& line : skipped.lines()) report.note(line);  // said on stderr above; kept in the reports
  if (root && !o.quiet) report.header();
  // Fake ranks keep one communicator per T for the whole run, as a real
  // job keeps its buffers (tier 0's Lamport buffers rotate across cases).
  std::map<int, std::unique_ptr<Comm<EmulatedArith>>> comms;
  Progress prog(n_cases);
  report.planned(n_cases);
  size_t failed = 0;
  size_t dumps_lost = 0;  // failing cases whose --dump-dir file could not be written (the first said at once)
  std::unique_ptr<Inputs> weights;  // g and W, shared by cases of the same dims, seed and dist family
  std::unique_ptr<MatF> Wf, gf;
  size_t tier0_cases_run = 0;

  for (const Set& set : sets) {
    const Problem& p = set.p;
    auto& cm = comms[p.T];
    if (!cm) {
      if (P == 1) cm = std::make_unique<LocalComm<EmulatedArith>>(p.T);
      else cm = std::make_unique<MpiComm<EmulatedArith>>(p.T, comm);
    }
    const std::vector<int>& local = cm->local();

    watchdog_own_work(cat("T ", p.T, " M ", p.M, " ", name(p.dist), ": generating inputs"));
    const bool same_weights = weights && weights->p.H == p.H && weights->p.L == p.L && weights->p.seed == p.seed &&
                              (weights->p.dist == Dist::exact) == (p.dist == Dist::exact);
    const Inputs in = make_inputs(p, local, root, same_weights ? weights.get() : nullptr);
    if (!same_weights) {
      weights = std::make_unique<Inputs>();
      weights->p = p;
      weights->g = in.g;
      weights->W = in.W;
      Wf = std::make_unique<MatF>(widen<float>(in.W));
      gf = std::make_unique<MatF>(widen<float>(in.g));
    }
    std::unique_ptr<Reference> ref;
    if (root) ref = std::make_unique<Reference>(in);
    if (P > 1) {
      // Process 0 makes every rank's inputs (for the reference), the others
      // their own: they wait for it here, untimed, not in the backend's first
      // collective, whose wait --timeout watches.
      watchdog_own_work(cat("T ", p.T, " M ", p.M, " ", name(p.dist), ": waiting for process 0 to make every rank's inputs"));
      MPI_Barrier(comm);
    }

  for (int tier : set.tiers) {
    // Tier 0's Lamport buffers rotate across the cases of this process (as a
    // real job's do): a case after others may fail through what they left
    // there, which its one-case command would not run.
    const bool after_tier0_cases = tier == 0 && tier0_cases_run++ > 0;
    Contract contract = tier_def(tier).contract;
    if (o.algo) contract.algo = *o.algo;
    const std::string name_case = cat("tier ", tier, " T ", p.T, " M ", p.M, " ", name(p.dist));
    const int fault = o.plant == "shard-off-by-one" ? p.T - 1 : -1;
    CaseResult worst;  // over the variants (or cuBLASLt algorithms): the worst member, as below
    std::optional<uint64_t> worst_seed;
    bool have = false;
    size_t n_failed_variants = 0;
    std::vector<uint64_t> failed_seeds;
    std::vector<Run> runs = members;
    std::vector<std::string> algo_list;  // --gemm-algos: the case's cuBLASLt algorithms
    std::optional<MatrixB> rounded_twice;  // the diagnosis's reference run, once for the case's runs
    std::vector<CaseResult::GemmAlgoRun> algo_runs;
    std::string algo_note;
    GemmAlgoReset algo_reset;
    if (!o.gemm_algos.empty()) {
      watchdog_stage(cat(name_case, ": listing cuBLASLt's algorithms"));
      auto list = gpu::gemm_algos(p, tier);
      if (!list.ok()) return list.status();
      algo_list = std::move(*list);
      auto sel = select_gemm_algos(o.gemm_algos, algo_list);
      if (!sel.ok()) return sel.status();
      const std::string key = cat(tier, " ", p.T, " ", p.M);
      if (root && !algo_list.empty() && algos_shown.insert(key).second) {
        size_t split = 0;
        for (const auto& a : algo_list) split += a.rfind(gpu::kGemmSplitForm, 0) == 0;
        std::string lines = cat("cuBLASLt for tier ", tier, " T ", p.T, " M ", p.M, ": ", algo_list.size(),
                                " algorithms (", algo_list.size() - split, " listed by its heuristic, ", split,
                                " split-K forms)\n");
        for (size_t i = 0; i < algo_list.size(); ++i) lines += cat("  [", i, "] ", algo_list[i], "\n");
        std::fputs(lines.c_str(), stderr);
      }
      if (algo_list.empty()) algo_note = "no cuBLAS GEMM on this path: ltt's kernels ran";
      else if (sel->empty()) algo_note = cat("none of --gemm-algos ", o.gemm_algos, " among the ", algo_list.size(), " cuBLASLt algorithms: ltt's own GEMM ran");
      else {
        runs.clear();
        for (int i : *sel) runs.push_back(Run{std::nullopt, i});
      }
    }
    for (size_t run_i = 0; run_i < runs.size(); ++run_i) {
      const Run& member_run = runs[run_i];
      const std::optional<uint64_t>& vseed = member_run.seed;
      if (root && runs.size() > 1)
        prog.within(cat(name_case, vseed ? ": variant " : ": cuBLASLt algorithm ", run_i + 1, " of ", runs.size()));
      gpu::use_gemm_algo(member_run.gemm_algo);
      if (vseed) {
        member.var.on = true;
        member.var.seed = *vseed;
      }
      const Member* mem = (vseed || member.mut != Mutant::none) ? &member : nullptr;
      const double t0 = now_seconds();

      // Two runs into poisoned outputs: the second must give the same bits.
      std::array<std::vector<MatrixB>, 2> out;
      std::string stopped;
      for (int run = 0; run < 2; ++run) {
        out[static_cast<size_t>(run)] = poisoned_outputs(local.size(), p.M, p.H);
        watchdog_stage(cat(name_case,
                            member_run.gemm_algo >= 0 ? cat(" (cuBLASLt algorithm ", member_run.gemm_algo, ")") : std::string(),
                            ": backend run ", run + 1, " (ranks ", local.front(), "..", local.back(), ")"));
        if (!o.inject.empty() && run == 0 && local.front() <= o.inject_rank && o.inject_rank <= local.back())
          inject_fault(o.inject, cat(name_case, ": backend run 1: rank ", o.inject_rank, " of ", p.T, " ",
                                     o.inject == "hang" ? "hangs" : o.inject == "crash" ? "crashes" : "exits",
                                     " (--inject ", o.inject, ")"));
        Status s = cuda ? gpu::run_cuda(p, tier, contract, in, fault, out[static_cast<size_t>(run)], member.mut,
                                        P > 1 ? &peers : nullptr,
                                        o.transport == "nccl" ? gpu::Transport::nccl : gpu::Transport::ipc)
                        : run_cpu(p, tier, contract, in, *gf, *Wf, *cm, fault, out[static_cast<size_t>(run)], mem);
        // --plant rank-differs: the last rank's output one bf16 step off in one element.
        if (s.ok() && o.plant == "rank-differs" && local.back() == p.T - 1 && p.T > 1) {
          MatrixB& y = out[static_cast<size_t>(run)].back();
          y.at(p.M / 2, p.H / 2).bits ^= 1;
        }
        if (!s.ok() && s.error().code == Errc::numerical && P == 1) {
          stopped = s.error().message;  // the pipeline could not finish: a failed case, not a failed run
          break;
        }
        if (!s.ok()) {
          if (s.error().rank < 0) s.on_rank(local.front());
          Error e = s.error();
          e.message = cat(name_case, ": ", e.message);
          return e;
        }
      }
      const double backend_s = now_seconds() - t0;

      // Cross-rank and run-to-run agreement, by hash, then by element.
      watchdog_stage(cat(name_case, ": comparing ranks"));
      std::vector<unsigned long long> mine, all(static_cast<size_t>(p.T));
      int nondet = 0;
      for (size_t i = 0; i < local.size(); ++i) {
        mine.push_back(fnv1a(out[0][i]));
        nondet |= stopped.empty() && first_bitwise_difference(out[0][i], out[1][i]) >= 0;
      }
      MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_UNSIGNED_LONG_LONG, all.data(),
                    static_cast<int>(mine.size()), MPI_UNSIGNED_LONG_LONG, comm);
      int nondet_any = 0;
      MPI_Allreduce(&nondet, &nondet_any, 1, MPI_INT, MPI_MAX, comm);
      int bad_rank = -1;
      for (int r = 1; r < p.T && bad_rank < 0; ++r)
        if (all[static_cast<size_t>(r)] != all[0]) bad_rank = r;
      MatrixB other;  // the first differing rank's output, on process 0
      if (bad_rank >= 0) {
        const int owner = bad_rank / (p.T / P);
        if (owner == pid && !root)
          MPI_Send(out[0][static_cast<size_t>(bad_rank - local.front())].v.data(), static_cast<int>(out[0][0].size()),
                   MPI_UNSIGNED_SHORT, 0, 7, comm);
        if (root) {
          if (owner == 0) other = out[0][static_cast<size_t>(bad_rank)];
          else {
            other = MatrixB(p.M, p.H);
            MPI_Recv(other.v.data(), static_cast<int>(other.size()), MPI_UNSIGNED_SHORT, owner, 7, comm, MPI_STATUS_IGNORE);
          }
        }
      }

      // What process 0 alone does. An error there ends every process alike:
      // the others would wait in the next collective.
      Status root_s;
      if (root) root_s = [&]() -> Status {
        // Ranks in several processes: the same case on fake ranks in process 0,
        // every rank's output compared bit for bit.
        int fake_ranks_differ = -1;
        long fake_elems_differ = -1;
        if (cuda && P > 1 && stopped.empty()) {
          watchdog_stage(cat(name_case, ": the same case on fake ranks"));
          std::vector<MatrixB> fake = poisoned_outputs(static_cast<size_t>(p.T), p.M, p.H);
          Status s = gpu::run_cuda(p, tier, contract, in, fault, fake);
          if (!s.ok()) {
            Error e = s.error();
            e.message = cat(name_case, ": the fake-rank run: ", e.message);
            return e;
          }
          fake_ranks_differ = 0;
          for (int r = 0; r < p.T; ++r) fake_ranks_differ += fnv1a(fake[static_cast<size_t>(r)]) != all[static_cast<size_t>(r)];
          fake_elems_differ = 0;
          for (size_t e = 0; e < fake[0].v.size(); ++e) fake_elems_differ += fake[0].v[e].bits != out[0][0].v[e].bits;
        }

        watchdog_own_work(cat(name_case, ": reference"));
        const Truth& truth = ref->truth();
        // The emulated reference (a diagnostic now): the plain cpu backend on
        // fake ranks runs the reference's own pipeline in this process, so its
        // output is that reference, bit for bit (the reference tests hold it);
        // anything else is compared with a fresh run of the reference.
        const bool plain = !cuda && mem == nullptr && o.plant.empty() && P == 1 && stopped.empty();
        std::vector<MatrixB> yref;
        if (!plain) {
          auto r = ref->emulated(tier, contract);
          if (!r.ok()) return r.status();
          yref = std::move(*r);
        }
        const MatD bound = ref->bound(tier, Mode::emulated, contract);
        watchdog_own_work(cat(name_case, ": checking"));
        const MatrixB& y = out[0][0];
        const MatrixB& want = plain ? y : yref[0];
        CaseResult res;
        res.tier = tier;
        res.p = p;
        res.contract = contract;
        res.bad_rank = bad_rank;
        if (stopped.empty())
          for (unsigned long long h : all) res.digest = (res.digest ^ h) * 1099511628211ull + 1;
        res.stopped = stopped;
        if (bad_rank >= 0) res.bad_rank_elem = first_bitwise_difference(other, y);
        res.deterministic = nondet_any == 0;
        res.fake_ranks_differ = fake_ranks_differ;
        res.fake_elems_differ = fake_elems_differ;
        res.fake_must_match = o.transport == "ipc" || tier == 0;
        if (stopped.empty())
          for (bf16 v : y.v) res.poisoned += v.bits == kPoison;
        const MatD yd = widen<double>(y);
        const Interval adm = ref->admissible(tier, contract);
        evaluate(yd, want, truth, bound, adm, o, res);
        if (!res.ok) {
          watchdog_own_work(cat(name_case, ": the reference with the GEMM's output rounded before the add (a diagnosis)"));
          diagnose_product_rounded(*ref, tier, contract, yd, adm, res, rounded_twice);
          watchdog_own_work(cat(name_case, ": checking"));
        }
        if (bad_rank >= 0) heat_rank_diff(res, yd, widen<double>(other));
        res.seconds = now_seconds() - t0;
        res.backend_seconds = backend_s;
        // Timed again from here: a case file and the reports are writes, which
        // can hang (a stalled file system). A case file at k3 sizes is
        // gigabytes: 120 s beyond --timeout for it, so a short --timeout ends
        // no healthy write.
        watchdog_stage(cat(name_case, ": recording its verdict (the case file, the reports)"), 120);
        if (!res.ok) {
          res.repro = cat(cuda ? cuda_env_prefix() : std::string(), P > 1 ? cat("mpirun -np ", P, " ") : std::string(), shell_word(self_path()), " check --tier ", tier,
                          " --tp ", p.T, " --tokens ", p.M, " --dims ", p.H, ",", p.L, " --dist ", name(p.dist),
                          " --seed ", p.seed, " --eps ", shortest(p.eps),
                          p.T > 1 ? cat(" --algo ", name(contract.algo)) : std::string(),  // refused at T 1 (no collective)
                          o.plant.empty() ? std::string() : cat(" --plant ", shell_word(o.plant)),
                          o.backend == "cpu" ? std::string() : cat(" --backend ", o.backend),
                          o.mutant.empty() ? std::string() : cat(" --mutant ", shell_word(o.mutant)),
                          vseed ? cat(" --variant ", *vseed) : std::string(),
                          member_run.gemm_algo >= 0 ? cat(" --gemm-algos ", member_run.gemm_algo) : std::string(),
                          o.ulp_max >= 0 ? cat(" --ulp-max ", shortest(o.ulp_max)) : std::string(),
                          o.ulp_frac >= 0 ? cat(" --ulp-frac ", shortest(o.ulp_frac)) : std::string(),
                          after_tier0_cases ? "  # tier 0 ran other cases before it in this process, and its "
                                              "Lamport buffers carry over: if this passes alone, rerun the whole command"
                                            : "");
          if (!o.dump_dir.empty()) {
            SafeTensors st = make_case(in, truth, {{tier, want}}, CaseContract{contract.algo, contract.norm});
            for (size_t i = 0; i < local.size(); ++i) st.put_bf16(cat("output.tier", tier, ".rank", local[i]), out[0][i]);
            if (bad_rank >= 0 && P > 1) st.put_bf16(cat("output.tier", tier, ".rank", bad_rank), other);
            // The case file's own name (dims, T, M, dist, seed, algo, norm, eps) after the tier, then
            // what made this output: runs that differ in any of these never share a file.
            std::string stem = case_file_name(p, {tier}, CaseContract{contract.algo, contract.norm});
            stem.resize(stem.size() - std::string(".safetensors").size());
            const std::string file =
                cat(o.dump_dir, "/tier", tier, "_", stem, o.backend == "cpu" ? std::string() : cat("_", o.backend),
                    P > 1 ? cat("_np", P) : std::string(), o.mutant.empty() ? std::string() : cat("_mutant-", o.mutant),
                    o.plant.empty() ? std::string() : cat("_plant-", o.plant), vseed ? cat("_variant", *vseed) : std::string(),
                    member_run.gemm_algo >= 0 ? cat("_gemm-algo", member_run.gemm_algo) : std::string(), ".safetensors");
            // A dump that cannot be written loses the file, not the run: the
            // case's verdict, the table and the reports stand (exit 1: a case
            // failed), and the reason is said.
            std::error_code ec;
            std::filesystem::create_directories(o.dump_dir, ec);
            // A report that bears a case file's name is not written over (nor
            // later over the case file): the dump is the one lost, and said.
            std::string report_there;
            for (const auto& [f, path] : {std::pair{"--json", o.json}, std::pair{"--markdown", o.markdown}, std::pair{"--html", o.html}})
              if (report_there.empty() && !path.empty() && !own_descriptor(path) && flags::same_file(path, file)) report_there = f;
            Status w = ec ? LTT_USAGE("--dump-dir ", o.dump_dir, ": cannot create the directory: ", ec.message(),
                                       " (give --dump-dir a folder that can be made and written)")
                       : !report_there.empty() ? LTT_USAGE(file, " is the ", report_there, " report's file: give the report another name")
                                               : write_safetensors(file, st);
            if (w.ok()) res.dump = file;
            else if (dumps_lost++ == 0)
              std::fprintf(stderr, "ltt: %s: no case file for this failure (its verdict stands): %s\n", name_case.c_str(),
                           w.error().describe().c_str());
          }
        }
        if (!res.ok) {
          ++n_failed_variants;
          if (vseed) failed_seeds.push_back(*vseed);
        }
        if (member_run.gemm_algo >= 0)
          algo_runs.push_back({member_run.gemm_algo, algo_list[static_cast<size_t>(member_run.gemm_algo)], res.ok});
        // The row shows the worst member: a failing one before any that
        // passes, the most elements outside their sets (then the farthest),
        // then the farthest from the emulated reference (elements 3+ ULPs
        // away, then 2, then 1; then the largest error over its bound). The
        // sets are the contract's, the same for every member, so they cannot
        // tell members apart; on a tie the first stays.
        auto badness = [](const CaseResult& r) {
          return std::tuple{!r.ok, r.outside, r.steps_max, r.ulp_hist[3], r.ulp_hist[2], r.ulp_hist[1], r.vs_truth.max_ratio};
        };
        if (!have || badness(res) > badness(worst)) {
          worst = res;
          worst_seed = vseed;
        }
        have = true;
        return {};
      }();
      if (!root) watchdog_own_work(cat(name_case, ": waiting for process 0 to check it"));
      LTT_TRY(shared_by_root(root_s, root, P, comm));
    }
    if (root) {
      if (!o.variants.empty()) {
        worst.note = cat(o.variants.size(), " variants, ", n_failed_variants, " failed",
                         failed_seeds.empty() ? std::string() : cat(" (seeds ",
                                                 join(std::span(failed_seeds).first(std::min<size_t>(failed_seeds.size(), 10)), ","),
                                                 failed_seeds.size() > 10 ? ",..." : "", ")"),
                         o.variants.size() > 1 && worst_seed ? cat("; the row is seed ", *worst_seed, "'s, the worst") : std::string());
        worst.variants = o.variants.size();
        worst.variants_failed = n_failed_variants;
        worst.variant_shown = worst_seed;
      }
      if (!o.gemm_algos.empty()) {
        if (algo_runs.empty()) worst.note = algo_note;
        else {
          std::string failing;
          size_t nf = 0;
          for (const auto& a : algo_runs)
            if (!a.ok) failing += cat(nf++ ? "; " : " (", a.index, ": ", a.algo);
          worst.note = cat(algo_runs.size(), " cuBLASLt algorithms, ", nf, " failed", nf ? failing + ")" : std::string());
        }
        worst.gemm_algos = algo_runs;
      }
      prog.step(name_case);
      if (!worst.ok) ++failed;
      if (!o.quiet) report.add(worst);
      else report.keep(worst);
      if (results) results->push_back(worst);
    }
    int any_failed = root ? (worst.ok ? 0 : 1) : 0;
    MPI_Bcast(&any_failed, 1, MPI_INT, 0, comm);
    if (!root && any_failed) ++failed;
  }
  }
  prog.done();
  if (dumps_lost > 1)
    std::fprintf(stderr, "ltt: %zu failing cases in all have no case file in --dump-dir %s\n", dumps_lost, o.dump_dir.c_str());
  if (root && !o.quiet && mutant_def) {
    // Selected tiers the mutant does not act on ran as the clean backend:
    // said, where their rows would read as the mutant's passes.
    std::set<int> unplanted;  // of the tiers that ran (a tier no selected shape takes ran nowhere)
    for (const Set& set : sets)
      for (int t : set.tiers)
        if (std::find(mutant_def->tiers.begin(), mutant_def->tiers.end(), t) == mutant_def->tiers.end()) unplanted.insert(t);
    if (!unplanted.empty())
      report.note(cat("--mutant ", mutant_def->name, " acts on tier", mutant_def->tiers.size() > 1 ? "s " : " ",
                      join(mutant_def->tiers, ","), ": tier", unplanted.size() > 1 ? "s " : " ", join(unplanted, ","),
                      " ran unplanted (the clean backend; select --tier ", join(mutant_def->tiers, ","), " for the mutant alone)"));
  }
  if (root && !o.quiet && o.algo && std::find(o.tp.begin(), o.tp.end(), 1) != o.tp.end())
    report.note(cat("--algo ", name(*o.algo), ": T 1 has one rank, which reduces nothing: its rows ran no collective"));
  if (root && !o.quiet && mutant_def && failed == 0) {
    // A planted bug every case passed: say so, where the table alone would read as a plain pass.
    const MutantDef* d = mutant_def;
    report.note(cat("--mutant ", d->name, " was planted and every case passed: it changed no output of these cases (it shows only on ",
                    d->needs ? d->needs : "other data", "), or the checks missed it; ltt mutants --only ", d->name,
                    " with the same selection tells which (it compares the outputs with the clean run's)"));
  }
  if (root && !o.quiet) {
    watchdog_stage("writing the reports (--json, --markdown, --html)", 120);
    return exit_after_reports(failed > 0, report.finish(now_seconds() - wall0));
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace ltt
