# Tenth session, call 2 (one H200): call 1 with the prefetch's pieces dealt
# to the blocks round robin (call 1 gave them all to the first two blocks,
# and the -warm rows were slower), and the RMSNorm kernel given
# prefetch-only blocks where it has few rows. A quick verdict on tier 0 at
# k3 through the pipeline (its collective now prefetches), then tier 0's rows.
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=4
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log)"
L=$PWD/build/release/bin/ltt
s() { local n=$1 to=$2; shift 2; local a=$(date +%s); timeout $to "$@" > $R/$n.log 2>&1; echo "$n: exit $? $(( $(date +%s) - a )) s: $(grep -E '^# ([0-9]+ cases|Out of|Mutants)|ERROR SUMMARY|hazards|test cases' $R/$n.log | sort | uniq -c | tr '\n' ' ')"; grep -E "FAIL|ltt:|rror:|wrong" $R/$n.log | head -4; }
s t0_k3 120 $L check --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,16,17,64,128 --dist realistic,adversarial
s bench 200 $L bench --backend cuda --dims k3 --tp 8,16 --tier 0 --tokens 1,8,16,17,33,64,96,128 --json $R/bench.json
grep -hE "^ +(tier0-(rank|mma|mma-warm|mma-kernel|gemv-split|gemv-split-warm|cublas)|read-tier0) " $R/bench.log | awk '{print $1, $2, $3, $4}' | sort -k1,1 -k2n -k3n | awk '{a[$1" T"$2]=a[$1" T"$2]" "$3":"$4} END{for(k in a) print k, a[k]}' | sort
tar czf $OUT/r.tgz -C $OUT r
echo "total $(( $(date +%s) - t0 )) s"
