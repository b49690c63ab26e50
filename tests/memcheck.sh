#!/usr/bin/env bash
# valgrind's memcheck over ltt check: every tier at small sizes, T 2 and 8,
# the reports written. Passes only when ltt passes, memcheck finds no error
# (uninitialised values, bad reads and writes: what the sanitizer build
# does not see) and memcheck's own summary closes the log, which proves that
# ltt ran to its end under memcheck and did not leave it by re-executing.
#   memcheck.sh VALGRIND LTT SUPPRESSIONS WORKDIR
# Exit 77 (skipped) where valgrind is not installed.
set -u
vg=$1 ltt=$2 supp=$3 work=$4
if [ -z "$vg" ] || [ ! -x "$vg" ]; then
  echo "memcheck: valgrind is not installed: skipped (apt-get install valgrind)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
log=$work/memcheck.log
"$vg" --tool=memcheck --error-exitcode=3 --suppressions="$supp" --num-callers=30 --log-file="$log" \
  "$ltt" check --dims small --tp 2,8 --tokens 1,5 --dist all --json "$work/r.json" --markdown "$work/r.md" \
  > "$work/stdout" 2>&1
rc=$?
tail -3 "$work/stdout"
grep -E "ERROR SUMMARY" "$log" | tail -1
if [ "$rc" -ne 0 ]; then
  echo "memcheck: exit $rc (3: memcheck found errors; log $log)"
  grep -E -A12 "^==[0-9]+== (Invalid|Conditional|Use of|Syscall|Mismatched|Source and)" "$log" | head -60
  exit 1
fi
if ! tail -1 "$log" | grep -qE "ERROR SUMMARY: 0 errors from 0 contexts"; then
  echo "memcheck: the log does not end with memcheck's summary of 0 errors: ltt left memcheck ($log)"
  exit 1
fi
grep -qE "cases, 0 failed" "$work/stdout" || { echo "memcheck: ltt's summary line is missing"; exit 1; }
echo "memcheck: ltt check ran to its end under memcheck, 0 errors"
