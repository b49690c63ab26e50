// The value of every ltt flag, parsed and validated in one place for every
// subcommand: each parser takes the flag's name and the text as given and
// returns the value or a usage error that names both ("--tokens '1,,2': item 2
// is empty"). Also the checks made before any work: output paths that can be
// written and are none of the run's inputs, sizes that fit in memory, and the
// refusal of subcommands that run in one process when started under mpirun.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "problem.hpp"
#include "status.hpp"

namespace ltt::flags {

// A comma list of integers in [lo, hi]: no empty item, no sign, no junk,
// no duplicate ("1,,2", "", "8,x", "5,5" are refused).
Result<std::vector<int>> int_list(const std::string& flag, const std::string& s, long lo, long hi);
Result<int> integer(const std::string& flag, const std::string& s, long lo, long hi);
// A decimal integer in [0, 2^64 - 1]; "-1" and 18446744073709551616 are refused.
Result<uint64_t> u64(const std::string& flag, const std::string& s);
// A finite number in [lo, hi] (or (lo, hi] with lo_open).
Result<double> real(const std::string& flag, const std::string& s, double lo, double hi, bool lo_open = false);
// "all" or a comma list of tiers 0..4.
Result<std::vector<int>> tiers(const std::string& flag, const std::string& s);
// "all" or a comma list of realistic, exact, adversarial.
Result<std::vector<Dist>> dists(const std::string& flag, const std::string& s);
Result<Dims> dims(const std::string& flag, const std::string& s);
Result<Algo> algo(const std::string& flag, const std::string& s);
Result<NormOrder> norm(const std::string& flag, const std::string& s);
// "7", "0-199" or "0-9,20" (seeds of variants).
Result<std::vector<uint64_t>> seeds(const std::string& flag, const std::string& s);
// A comma list of words, none empty, none twice (what they name is the caller's to check).
Result<std::vector<std::string>> words(const std::string& flag, const std::string& s);
// One of `choices` (the message lists them).
Result<std::string> choice(const std::string& flag, const std::string& s, const std::vector<std::string>& choices);
// A path: not empty.
Result<std::string> path(const std::string& flag, const std::string& s);

// Before the work: a file this run will write (a report) can be created or
// replaced, with the OS's reason when not; a directory this run will create
// (or fill) has an existing, writable ancestor and no file in the way.
Status writable_file(const std::string& flag, const std::string& path);
Status writable_dir(const std::string& flag, const std::string& path);
// An output path that names one of the run's inputs, or lies in an input
// directory (where a link leads included), is refused.
Status not_an_input(const std::string& flag, const std::string& out, const std::vector<std::string>& inputs);
// Whether two paths name one file: however spelled (relative or absolute, a
// symbolic link on the way), or two names (hard links) of one existing file.
bool same_file(const std::string& a, const std::string& b);
// Two outputs of one run may not be the same file.
Status distinct_outputs(const std::vector<std::pair<std::string, std::string>>& flag_paths);

// A lower bound on the memory one case of the reference needs (inputs of
// every rank, W in bf16, fp32 and fp64 and |W| copies, the truth and the
// admissible sets), fitted below the peaks `check` measured (resident set,
// fifty-third session; measured / this): k3 T 1 M 1 1.19 / 1.03 GB, T 16
// M 1 1.12 / 1.03, T 16 M 256 (all dists) 2.18 / 1.73, T 16 M 1024 tier 1
// 4.16 / 3.85, T 8 M 1024 3.84 / 3.14, T 8 M 2048 tier 2 ring 7.34 / 5.25,
// T 8 M 128 tier 0 ring 1.66 / 1.29; H 2048 L 1024 T 8 M 2048 1.83 / 1.29;
// small T 1, 8, 16 at M 16384 1.39 / 0.86, 1.73 / 1.21, 2.33 / 1.61. (The
// earlier form, 14 H L for W, said 1.06 GB where k3 T 16 M 256 tier 1
// peaked at 1.96.)
double case_bytes(const Problem& p);
// Memory the kernel reports available (MemAvailable), or a large number
// when it cannot be read.
double available_bytes();
// The largest case of the run against available memory: a usage error
// naming both figures and the case, and `remedy` (by default: fewer tokens,
// smaller dims or a smaller --tp).
Status fits_in_memory(const std::vector<Problem>& cases, const char* what, const std::string& remedy = {});

// The shapes where a selected tier does not apply (tier 0 at T 1 or past M
// 128), which a run skips: said on stderr, one line per tier, so that a tier
// asked for is never dropped unseen. "ltt check: tier 0 skipped at T 8 M 129,
// T 16 M 129 (tier 0 needs T >= 2 and M <= 128)". The same lines go into
// the reports' notes.
class Skipped {
 public:
  void add(int tier, const Problem& p);
  std::vector<std::string> lines() const;  // "tier 0 skipped at ... (why)", one per tier
  void say(const char* caller) const;

 private:
  std::vector<std::pair<int, std::vector<std::pair<int, int>>>> tiers_;  // tier, (T, M) in order of first skip
};

// Under mpirun with more than one process (Open MPI, MPICH and PMIx set the
// size in the environment): the number of processes, else 1.
int launched_processes();
int launched_rank();

}  // namespace ltt::flags
