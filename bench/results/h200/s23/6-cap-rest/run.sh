# Twenty-third session, call 6 (one H200, warm after call 5, same tree and
# build, the last 110 s of device time): the rest of the main job's
# distributions at M 1 .. 257 under the Cauchy-Schwarz cap.
mkdir -p $OUT/r; export NCCL_NVLS_ENABLE=0 OMP_NUM_THREADS=16; a=$(date +%s); timeout 75 build/release/bin/ltt check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257 --dist realistic,exact --json $OUT/r/cap_rest.json > $OUT/r/cap_rest.log 2>&1; echo "cap_rest: exit $? $(( $(date +%s) - a )) s"; grep -E "cases, |Out of" $OUT/r/cap_rest.log; tar czf $OUT/r.tgz -C $OUT r
