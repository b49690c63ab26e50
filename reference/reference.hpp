// The reference of one input set: the float64 truth, every tier's pipeline in
// exact and emulated arithmetic over all T ranks in this process, and every
// tier's error bound. Widened weights and the truth are computed once and
// shared by all the tiers and modes asked of it.
//
//   Inputs in = generate_inputs(p);
//   Reference ref(in);
//   auto y = ref.emulated(1, tier_def(1).contract);  // T x [M, H] bf16
//   MatD b = ref.bound(1, Mode::emulated, tier_def(1).contract);
#pragma once

#include <memory>
#include <vector>

#include "bounds.hpp"
#include "inputs.hpp"
#include "tier.hpp"

namespace ltt {

class Reference {
 public:
  explicit Reference(const Inputs& in, Family family = {});
  ~Reference();
  const Inputs& inputs() const { return in_; }
  const Truth& truth();
  // Every rank's output of `tier` (validate_for_tier first).
  Result<std::vector<MatD>> exact(int tier, const Contract& c);
  // With `m`: the pipeline as that member or mutant computes it (member.hpp).
  Result<std::vector<MatrixB>> emulated(int tier, const Contract& c, const Member* m = nullptr);
  // Bound on |y - truth| per element, [M, H].
  MatD bound(int tier, Mode mode, const Contract& c);
  // Per element, the bf16 values some member of the tier's family can
  // produce (admissible.hpp), [M, H].
  Interval admissible(int tier, const Contract& c);
  AdmCtx& adm();

  const MatF& W_float();
  const MatD& W_double();
  const MatD& W_abs();

 private:
  template <class P>
  Result<std::vector<Mat<typename P::Real>>> run(int tier, const Contract& c, const Member* m = nullptr);

  const Inputs& in_;
  Family family_;
  MatF Wf_, gf_;
  MatD Wd_, gd_, Wabs_;
  std::unique_ptr<Truth> truth_;
  std::unique_ptr<BoundCtx> bctx_[2];
  std::unique_ptr<AdmCtx> adm_;
};

}  // namespace ltt
