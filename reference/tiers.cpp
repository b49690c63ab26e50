// The tier table.
#include "tier.hpp"

namespace ltt {

const std::array<TierDef, kNumTiers>& tier_table() {
  static const std::array<TierDef, kNumTiers> table = {
      tier0::def(), tier1::def(), tier2::def(), tier3::def(), tier4::def(),
  };
  return table;
}

const TierDef& tier_def(int tier) { return tier_table().at(static_cast<size_t>(tier)); }

}  // namespace ltt
