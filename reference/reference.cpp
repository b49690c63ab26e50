// Reference: runs the tier pipelines in-process and caches what they share.
#include "reference.hpp"

#include "comm.hpp"

namespace ltt {

Reference::Reference(const Inputs& in, Family family) : in_(in), family_(family) {}
Reference::~Reference() = default;

const MatF& Reference::W_float() {
  if (Wf_.size() == 0) Wf_ = widen<float>(in_.W);
  return Wf_;
}
const MatD& Reference::W_double() {
  if (Wd_.size() == 0) Wd_ = widen<double>(in_.W);
  return Wd_;
}
const MatD& Reference::W_abs() {
  if (Wabs_.size() == 0) Wabs_ = W_double().cwiseAbs();
  return Wabs_;
}

const Truth& Reference::truth() {
  if (!truth_) truth_ = std::make_unique<Truth>(compute_truth(in_, W_double(), W_abs()));
  return *truth_;
}

template <class P>
Result<std::vector<Mat<typename P::Real>>> Reference::run(int tier, const Contract& c, const Member* m) {
  using Real = typename P::Real;
  LTT_TRY(validate_for_tier(in_.p, tier));
  const Mat<Real>* W;
  const Mat<Real>* g;
  if constexpr (std::is_same_v<Real, float>) {
    if (gf_.size() == 0) gf_ = widen<float>(in_.g);
    W = &W_float();
    g = &gf_;
  } else {
    if (gd_.size() == 0) gd_ = widen<double>(in_.g);
    W = &W_double();
    g = &gd_;
  }
  LocalComm<P> comm(in_.p.T);
  Ctx<P> ctx{in_.p, c, comm, {}, {}, *g, *W, {}};
  ctx.member = m;
  comm.member = m;
  for (int r = 0; r < in_.p.T; ++r) {
    ctx.R.push_back(widen<Real>(in_.R[static_cast<size_t>(r)]));
    ctx.S.push_back(widen<Real>(in_.S[static_cast<size_t>(r)]));
  }
  const TierDef& d = tier_def(tier);
  Status s;
  if constexpr (std::is_same_v<Real, float>) s = d.run_emulated(ctx);
  else s = d.run_exact(ctx);
  if (!s.ok()) return s.error();
  return std::move(ctx.Y);
}

Result<std::vector<MatD>> Reference::exact(int tier, const Contract& c) { return run<ExactArith>(tier, c); }

Result<std::vector<MatrixB>> Reference::emulated(int tier, const Contract& c, const Member* m) {
  auto y = run<EmulatedArith>(tier, c, m);
  if (!y.ok()) return y.error();
  std::vector<MatrixB> out;
  for (auto& yr : *y) out.push_back(narrow(yr));
  return out;
}

MatD Reference::bound(int tier, Mode mode, const Contract& c) {
  auto& b = bctx_[mode == Mode::exact ? 0 : 1];
  if (!b) b = std::make_unique<BoundCtx>(in_, truth(), W_double(), W_abs(), mode);
  return tier_def(tier).bound(*b, c);
}

}  // namespace ltt

namespace ltt {

AdmCtx& Reference::adm() {
  if (!adm_) adm_ = std::make_unique<AdmCtx>(in_, truth(), W_double(), family_);
  return *adm_;
}

// A ring of T <= 2 ranks is judged by one-shot's sets (judged_algo()).
Interval Reference::admissible(int tier, const Contract& c) {
  Contract k = c;
  k.algo = judged_algo(c.algo, in_.p.T);
  return tier_def(tier).admissible(adm(), k);
}

}  // namespace ltt
