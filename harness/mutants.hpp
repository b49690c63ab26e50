// `ltt mutants`: every planted bug of the cpu backend (member.hpp), one at a
// time, through ltt check's own checks on a set of cases; a table of which
// check caught each, how many elements fell outside their admissible sets,
// and whether the production gate (|y - ref| <= 8e-2 + 3e-2 |ref|) would have.
#pragma once

#include <mpi.h>

#include "check.hpp"

namespace ltt {

// `o` gives the cases (dims, tp, tokens, dists, tiers); each mutant runs on
// the tiers it applies to. Exit 0 when every mutant is caught, 1 otherwise.
// `only`: run just these (names); empty: all.
Result<int> run_mutants(const CheckOptions& o, const std::vector<std::string>& only, MPI_Comm comm);

}  // namespace ltt
