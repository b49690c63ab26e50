# Twenty-sixth session, call 2 (one H200): the tree after the review of the
# change (e17996b: verify reads its one pair before claiming its report, a
# failed claim ends every process, lost dumps counted, one helper each for the
# placeholder and a report's head), configured by cmake 4 there: the build,
# the whole suite by the README's GPU-machine command, the new paths on the
# GPU, and ltt mutants on the cuda backend (its plan now made before the table).
set -uo pipefail
R=$OUT/r; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s)
(cmake --preset release -DLTT_WITH_FUZZ=OFF -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$PWD/.device-deps/usr > $R/build.log 2>&1 && cmake --build --preset release -j16 >> $R/build.log 2>&1) || { grep -E "error" $R/build.log | head; tail -30 $R/build.log; tar czf $OUT/r.tgz -C $OUT r; exit 2; }
echo "build $(( $(date +%s) - t0 )) s; warnings: $(grep -c -i warning $R/build.log); cmake $(cmake --version | head -1)"
a=$(date +%s); OMP_NUM_THREADS=2 timeout 300 scripts/ctest-gpu-host.sh -j8 > $R/ctest_all.log 2>&1; echo "ctest-gpu-host, whole suite: exit $? $(( $(date +%s) - a )) s"
grep -E "tests passed|tests failed|ctest-gpu-host|\(Failed\)|Timeout" $R/ctest_all.log
B=build/release/bin/ltt
# The cuda backend: a report claimed, then finished; a hung fake rank leaves "did not finish"; a lost dump keeps the verdict.
$B check --backend cuda --dims k3 --tp 8 --tokens 1,33 --dist realistic --json $R/k3.json > $R/k3.log 2>&1; echo "k3 T 8 M 1,33 cuda: exit $?; $(tail -1 $R/k3.log)"
python3 -c "import json,sys; j=json.load(open('$R/k3.json')); print('finished', j['finished'], 'summary', j['summary'])"
$B check --backend cuda --dims small --tp 8 --tokens 5 --tier 1 --dist realistic --json $R/hang.json --inject hang --timeout 3 > $R/hang.log 2>&1; echo "cuda --inject hang: exit $?"
python3 -c "import json; j=json.load(open('$R/hang.json')); print('finished', j['finished'], 'cases' in j)"
mkdir -p $R/dd; $B check --backend cuda --dims small --tp 8 --tokens 5 --tier 1 --dist realistic --mutant drop-rank --dump-dir $R/dd > $R/dump1.log 2>&1; echo "cuda mutant dump: exit $? $(ls $R/dd | wc -l) file"
f=$(ls $R/dd); rm $R/dd/$f; mkdir -p $R/dd/$f/x
$B check --backend cuda --dims small --tp 8 --tokens 5 --tier 1 --dist realistic --mutant drop-rank --dump-dir $R/dd > $R/dump2.log 2>&1; echo "cuda dump blocked: exit $?; $(grep -c 'no case file' $R/dump2.log) said; $(grep '# 1 case' $R/dump2.log)"
rm -rf $R/dd
$B check --backend cuda --dims small --tp 8 --tokens 5,129 --tier 0,1 --dist realistic 2>&1 | grep -E "skipped|cases"
B=build/release/bin/ltt; $B mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --json $R/mut.json > $R/mutants.log 2>&1; echo "mutants cuda: exit $?; $(grep "Mutants caught" $R/mutants.log)"
echo "total $(( $(date +%s) - t0 )) s"
tar czf $OUT/r.tgz -C $OUT r
