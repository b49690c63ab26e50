# Forty-fifth session, call 1, a fresh machine, on this session's verdict
# change (the row check's first range is one part per range of rstd, not
# their hull: README 'rstd in steps'): build every target (the GPU machine's
# gcc 13 build of the test sources, which session 44's refused fifth call
# was for), the admissible doctests (the new one among them), the closing
# checks (the suite by the README's GPU-machine command, the cuda mutants,
# process per rank against the fake ranks, the main job's adversarial cases
# under the row check); beside them, code that is not the reference under
# the new check: ltt's cuda backend on seed 4 (row 0 an order probe: the
# one-token probe case), one-shot and ring, and PyTorch's own ops with fp32
# GEMMs on the same case; the speed figures where the card is an H200; to
# the deadline.
. scripts/device-steps.sh
build
s admissible 60 "$ROOT/build/release/bin/ltt_tests" -tc="admissible*"
tail -3 "$R/admissible.out"
s suite 150 "$ROOT/scripts/ctest-gpu-host.sh" -j8
tail -4 "$R/suite.out"
( s torch_k3_s4 150 python3 "$ROOT/scripts/torch_tiers.py" --ltt "$L" --work "$W/torch_k3_s4" --device cuda --gemm fp32 --json torch_k3_s4.json --dims k3 --tp 8,16 --tokens 1,5,33 --dist adversarial --seed 4
  s torch_k3_s4_ring 100 python3 "$ROOT/scripts/torch_tiers.py" --ltt "$L" --work "$W/torch_k3_s4_ring" --device cuda --gemm fp32 --json torch_k3_s4_ring.json --dims k3 --tp 8,16 --tokens 1,5,33 --dist adversarial --seed 4 --algo ring
) > "$R/phase_torch.txt" 2>&1 &
s mutants_cuda 90 "$L" mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --dist adversarial --json mu.json
s np8_k3 100 $M -np 8 "$L" check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist adversarial --json np8_k3.json
rows np8_k3.json
s main_adv 240 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist adversarial --json main_adv.json
rows main_adv.json
for a in one-shot ring; do
  s "cuda_s4_$a" 80 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33 --dist adversarial --seed 4 --algo "$a" --json "cuda_s4_$a.json"
  rows "cuda_s4_$a.json"
done
wait
cat "$R/phase_torch.txt"
speed
