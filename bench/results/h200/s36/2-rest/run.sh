# Thirty-sixth session, call 2 (asked for nvidia-h200): the rest of the
# closing tree on the GPU, the row check where call 1 did not reach: the main
# job's M 8192 adversarial cases (T 16, then T 8); PyTorch's own tiers at
# T 16 and the ring at small sizes (fp32 GEMMs: members; with their planted
# bugs); process per rank (mpirun -np 8, one GPU) against the fake ranks,
# bitwise; to the deadline. Helpers: scripts/device-steps.sh.
. scripts/device-steps.sh
build ltt
s m8192_adv_t16 200 $L check --backend cuda --dims k3 --tp 16 --tokens 8192 --dist adversarial --json m8192_t16.json
rows m8192_t16.json
s torch_T16 90 python3 $ROOT/scripts/torch_tiers.py --ltt $L --work $W/tt16 --dims k3 --tp 16 --tokens 5,33,128 --dist adversarial --device cuda --gemm fp32 --json $R/torch_T16.json --out $R/torch_T16.md
s torch_ring 90 python3 $ROOT/scripts/torch_tiers.py --ltt $L --work $W/ttr --dims small --tp 8,16 --tokens 5,33,129 --dist adversarial --algo ring --device cuda --gemm fp32 --json $R/torch_ring.json --out $R/torch_ring.md
s np8_k3 120 $M -np 8 $L check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist adversarial --json np8_k3.json
s m8192_adv_t8 200 $L check --backend cuda --dims k3 --tp 8 --tokens 8192 --dist adversarial --json m8192_t8.json
rows m8192_t8.json
(cd $W && cp *.json $R/ 2>/dev/null)
$L --version
echo "total $(( $(date +%s) - t0 )) s"
