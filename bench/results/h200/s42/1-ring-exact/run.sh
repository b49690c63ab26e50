# Forty-second session, call 1: the ring's sets on exact inputs are narrower
# (a4380d9: a reduction's terms are multiples of their smallest lowest set
# bit, so a ring whose partial sums stay below 2^8 of it is exact in every
# order). Do correct implementations that are not ltt's reference still
# pass? The suite (numpy.tiers judges five bugs on rings now); PyTorch's own
# ops with rings in a rank order of their own, small and k3, exact inputs
# included; ltt's cuda backend (its own ring order) at k3, every
# distribution; the cuda mutants under a ring on exact inputs.
. scripts/device-steps.sh
build
s suite 150 "$ROOT/scripts/ctest-gpu-host.sh" -j8
tail -4 "$R/suite.out"
tt() { local n=$1 to=$2; shift 2; s "$n" "$to" python3 "$ROOT/scripts/torch_tiers.py" --ltt "$L" --work "$W/$n" --device cuda --json "$n.json" "$@"; }
( tt torch_small_ring 90 --dims small --tp 8,16 --tokens 1,5,33,129,257 --dist realistic,adversarial,exact --algo ring
  tt torch_k3_ring_exact 150 --dims k3 --tp 8,16 --tokens 1,5,33,128,256 --dist exact --algo ring
  s mutants_ring_exact 60 "$L" mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --dist exact --algo ring --json mu_ring_exact.json
) > "$R/phase_torch.txt" 2>&1 &
( s cuda_ring_k3 300 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257 --dist all --algo ring --json cuda_ring_k3.json
  rows cuda_ring_k3.json ) > "$R/phase_cuda.txt" 2>&1 &
wait
cat "$R/phase_torch.txt" "$R/phase_cuda.txt"
