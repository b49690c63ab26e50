// The tier table: one entry per tier, the only place that names them all.
// Adding a tier: reference/tierK.cpp (pipeline and bound), gpu/tierK.cu, and
// one line in tiers.cpp. Everything else loops over tier_table().
#pragma once

#include <array>

#include "admissible.hpp"
#include "arith.hpp"
#include "bounds.hpp"
#include "ctx.hpp"

namespace ltt {

struct TierDef {
  int id;
  const char* name;         // the production enum's name
  const char* arrangement;  // what each rank does
  const char* selected;     // when the production runner picks it
  Contract contract;        // the rounding contract its implementations declare
  Status (*run_exact)(Ctx<ExactArith>&);
  Status (*run_emulated)(Ctx<EmulatedArith>&);
  // Bound on |emulated - truth| (or |exact - truth| in exact mode), [M, H].
  MatD (*bound)(BoundCtx&, const Contract&);
  // The order-free contract: per element, the bf16 values some member of
  // the tier's family can produce (admissible.hpp), [M, H].
  Interval (*admissible)(AdmCtx&, const Contract&);
};

const std::array<TierDef, kNumTiers>& tier_table();
const TierDef& tier_def(int tier);

// Declared by each tier file.
namespace tier0 { TierDef def(); }
namespace tier1 { TierDef def(); }
namespace tier2 { TierDef def(); }
namespace tier3 { TierDef def(); }
namespace tier4 { TierDef def(); }

}  // namespace ltt
