# Thirty-fourth session, call 4 (the same warm H100 as call 3, which built
# ltt; 299 s of device time left): the main job's realistic cases at M 8192
# and T 16 that call 2's deadline cut. Run as typed, in the repo root:
R=$OUT/r; mkdir -p $R; cd $(mktemp -d); timeout -k 5 185 $OLDPWD/build/release/bin/ltt check --backend cuda --dims k3 --tp 16 --tokens 8192 --dist realistic --json $R/m8192_t16_real.json > $R/m8192_t16_real.out 2>&1; echo "exit $?"; grep -E "^ +[0-4] +16 +8192|cases,|Out of" $R/m8192_t16_real.out | cut -c1-160
