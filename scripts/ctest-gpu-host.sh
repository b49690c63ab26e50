#!/usr/bin/env bash
# ctest on a GPU host: `ctest --preset release` with the given arguments, and
# then a skip is a failure. ctest counts a skipped test as passed ("100%
# tests passed" with every GPU test skipped); here only these may skip:
# html.report where chromium is missing and valgrind.memcheck where valgrind
# is missing (neither needs a GPU), and the two tests that need two GPUs
# (gpu.ranks_nccl, gpu.ranks_sym) on a host with one.
# Exit: ctest's own code if it failed, 1 for a skip not allowed, 2 without a GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$gpus" -lt 1 ]; then
  echo "ctest-gpu-host: nvidia-smi lists no GPU on this host: run scripts/run-tests.sh here (GPU tests skip there)" >&2
  exit 2
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
ctest --preset release "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
allowed='html.report'
command -v valgrind >/dev/null || allowed="$allowed valgrind.memcheck"
[ "$gpus" -lt 2 ] && allowed="$allowed gpu.ranks_nccl gpu.ranks_sym"
bad=""
for t in $(sed -n '/The following tests did not run:/,$p' "$log" | sed -nE 's/^[[:space:]]*[0-9]+ - ([^ ]+) \(Skipped\).*/\1/p'); do
  case " $allowed " in
    *" $t "*) ;;
    *) bad="$bad $t" ;;
  esac
done
if [ -n "$bad" ]; then
  echo "ctest-gpu-host: skipped on a host with $gpus GPU(s), where they must run:$bad" >&2
  [ "$rc" -ne 0 ] || rc=1
fi
[ "$rc" -eq 0 ] && echo "ctest-gpu-host: no test skipped but those allowed here ($allowed)"
exit "$rc"
