// The cpu backend and its helpers (backend.hpp).
#include "backend.hpp"

#include <algorithm>

#include "tier.hpp"

namespace ltt {


namespace {
constexpr uint64_t kFnvStart = 1469598103934665603ull, kFnvPrime = 1099511628211ull;
}  // namespace

uint64_t fnv1a(const MatrixB& m) {
  uint64_t h = kFnvStart;
  for (bf16 b : m.v) h = (h ^ b.bits) * kFnvPrime;
  return h;
}

uint64_t fnv1a(std::string_view bytes) {
  uint64_t h = kFnvStart;
  for (unsigned char c : bytes) h = (h ^ c) * kFnvPrime;
  return h;
}

Inputs make_inputs(const Problem& p, const std::vector<int>& local, bool all, const Inputs* weights) {
  if (all) return generate_inputs(p, weights);
  Inputs in;
  in.p = p;
  in.R.resize(static_cast<size_t>(p.T));
  in.S.resize(static_cast<size_t>(p.T));
  for (int r : local) {
    in.R[static_cast<size_t>(r)] = generate(p, TensorId::routed, r, 0, p.M);
    in.S[static_cast<size_t>(r)] = generate(p, TensorId::shared, r, 0, p.M);
  }
  in.g = weights ? weights->g : generate(p, TensorId::norm_weight, 0, 0, 1);
  in.W = weights ? weights->W : generate(p, TensorId::up_weight, 0, 0, p.H);
  return in;
}

Status run_cpu(const Problem& p, int tier, const Contract& contract, const Inputs& in, const MatF& g, const MatF& W,
               Comm<EmulatedArith>& comm, int fault_rank, std::vector<MatrixB>& out, const Member* member) {
  if (member) member->var.calls = 0;
  const FlushGuard flush(member && member->var.ftz());
  // Two output columns across a shard edge swapped: W's rows Hs - 1 and Hs.
  MatF Wswap;
  if (member && member->is(Mutant::swap_shard_edge)) {
    Wswap = W;
    Wswap.row(p.Hs() - 1).swap(Wswap.row(p.Hs()));
  }
  Ctx<EmulatedArith> c{p, contract, comm, {}, {}, g, Wswap.size() ? Wswap : W, {}};
  c.fault_shard_rank = member && member->is(Mutant::shard_last_rank) ? p.T - 1 : fault_rank;
  c.member = member;
  comm.member = member;
  for (int r : comm.local()) {
    c.R.push_back(widen<float>(in.R[static_cast<size_t>(r)]));
    c.S.push_back(widen<float>(in.S[static_cast<size_t>(r)]));
  }
  Status s = tier_def(tier).run_emulated(c);
  comm.member = nullptr;
  LTT_TRY(s);
  for (size_t i = 0; i < out.size(); ++i) {
    if (member && member->is(Mutant::row_scaled)) c.Y[i].row(p.M / 2) *= 1.03f;
    if (member && member->is(Mutant::row_scaled)) round_bf16_inplace(c.Y[i]);
    if (c.Y[i].rows() != p.M || c.Y[i].cols() != p.H)
      return Error{Errc::numerical, cat("output is ", c.Y[i].rows(), " x ", c.Y[i].cols(), ", expected ", p.M, " x ", p.H),
                   __FILE__, __LINE__, c.rank(i)};
    const float* y = c.Y[i].data();
    const size_t n = member && member->is(Mutant::last_row_unwritten) ? out[i].size() - static_cast<size_t>(p.H) : out[i].size();
    for (size_t e = 0; e < n; ++e) out[i].v[e] = to_bf16(y[e]);
  }
  return {};
}

std::vector<MatrixB> poisoned_outputs(size_t n, int M, int H) {
  std::vector<MatrixB> out(n, MatrixB(M, H));
  for (auto& m : out) std::fill(m.v.begin(), m.v.end(), bf16{kPoison});
  return out;
}

}  // namespace ltt
