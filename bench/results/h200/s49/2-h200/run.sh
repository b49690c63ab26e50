# Forty-ninth session, call 2, asking for an H200: the same tree as call 1
# (the harness change; kernels as session 41's). Every target built; the
# speed figures first (the targets name the H200; kernels unchanged,
# so they should repeat session 41's), then device-steps.sh's closing
# checks and memcheck; to the deadline. On another card it stops after the
# build's card check (nothing new to learn there: call 1 ran it all).
. scripts/device-steps.sh
if ! grep -q H200 "$R/gpu.txt"; then echo "not an H200: stopping"; exit 0; fi
build
speed
closing
sanitize memcheck
