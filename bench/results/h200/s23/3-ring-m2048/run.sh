# Twenty-third session, call 3 (one H200, warm after call 2, same tree):
# the cuda backend's ring cases at M 2048 against the sharper sets.
mkdir -p $OUT/r; export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=16; a=$(date +%s); timeout 420 build/release/bin/ltt check --backend cuda --dims k3 --tp 16,8 --tokens 2048 --dist realistic,adversarial --algo ring --json $OUT/r/cuda_ring_m2048.json > $OUT/r/cuda_ring_m2048.log 2>&1; echo "exit $? $(( $(date +%s) - a )) s"; grep -E "^ +[0-9] +(8|16) +2048|cases, |Out of" $OUT/r/cuda_ring_m2048.log; tar czf $OUT/r.tgz -C $OUT r
