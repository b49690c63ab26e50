#!/usr/bin/env bash
# valgrind's memcheck over ltt's commands at small sizes: ltt check over
# every tier (T 2 and 8, all distributions, JSON and Markdown reports); a
# planted fault with its dump; ltt verify of that dump (HTML and JSON); ltt
# golden and ltt regress of what it wrote. Each step passes only with ltt's
# expected exit code, no memcheck error (uninitialised values, bad reads and
# writes: what the sanitizer build does not see) and memcheck's own summary
# closing its log, which proves that ltt ran to its end under memcheck and
# did not leave it by re-executing itself.
#   memcheck.sh VALGRIND LTT SUPPRESSIONS WORKDIR
# Exit 77 (skipped) where valgrind is not installed.
set -u
vg=$1 ltt=$2 supp=$3 work=$4
if [ -z "$vg" ] || [ ! -x "$vg" ]; then
  echo "memcheck: valgrind is not installed: skipped (apt-get install valgrind)"
  exit 77
fi
ltt=$(realpath "$ltt") supp=$(realpath "$supp") || exit 1
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work") && cd "$work" || exit 1
failed=0
# step NAME EXPECTED_EXIT LTT_ARGS...
step() {
  local name=$1 want=$2; shift 2
  local log=$work/$name.memcheck.log
  "$vg" --tool=memcheck --error-exitcode=99 --suppressions="$supp" --num-callers=30 --log-file="$log" \
    "$ltt" "$@" > "$work/$name.out" 2>&1
  local rc=$?
  echo "$name: ltt $* -> exit $rc; $(grep -E 'ERROR SUMMARY' "$log" | tail -1 | sed 's/^==[0-9]*== //')"
  if [ "$rc" -eq 99 ]; then
    echo "$name: memcheck found errors ($log):"
    grep -E -A12 "^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|Source and|Argument)" "$log" | head -60
    failed=1
  elif [ "$rc" -ne "$want" ]; then
    echo "$name: exit $rc, expected $want:"; tail -5 "$work/$name.out"; failed=1
  elif ! tail -1 "$log" | grep -qE "ERROR SUMMARY: 0 errors from 0 contexts"; then
    echo "$name: the log does not end with memcheck's summary of 0 errors: ltt left memcheck ($log)"; failed=1
  fi
}
step check 0 check --dims small --tp 2,8 --tokens 1,5 --dist all --json r.json --markdown r.md
grep -qE "^# 60 cases, 0 failed" check.out || { echo "check: its summary is not '60 cases, 0 failed'"; failed=1; }
step planted 1 check --dims small --tp 8 --tokens 33 --tier 2 --dist realistic --plant shard-off-by-one --dump-dir dump
dump=$(find dump -name "*.safetensors" 2>/dev/null | head -1)
if [ -z "$dump" ]; then echo "planted: no dump written"; failed=1; else
  step verify 1 verify --case "$dump" --output "$dump" --html v.html --json v.json
  grep -qE "Out of bound values : [1-9][0-9]* FAILED" verify.out || { echo "verify: the dump's fault not found"; failed=1; }
fi
step golden 0 golden --dims small --tp 2 --tokens 1,5 --out g
step regress 0 regress g
grep -qE "Drifted sets : 0 OK" regress.out || { echo "regress: not 'Drifted sets : 0 OK'"; failed=1; }
[ "$failed" -eq 0 ] && echo "memcheck: every step ran to its end under memcheck, 0 errors"
exit "$failed"
