# Forty-first session, call 2 and its retries (each asked for nvidia-h200):
# on an H100 it stops at once (call 1 ran the same checks on one), so each
# try costs the start alone; on an H200, the closing tree's checks where the
# suite last ran in session 28, the speed figures, then compute-sanitizer.
# Each try's logs are in r-N/ (N the try), the archive's r/ renamed.
. scripts/device-steps.sh
grep -q H200 "$R/gpu.txt" || { echo "not an H200: nothing run (call 1 ran these checks on an H100)"; exit 0; }
build
closing
speed
sanitize memcheck racecheck synccheck initcheck
