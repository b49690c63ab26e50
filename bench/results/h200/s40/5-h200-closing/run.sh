# Fortieth session, call 5 (asked for nvidia-h200; call 4 was given one):
# the closing tree's checks on the card the issue names, last run there in
# session 28 on the code before the row check. Build everything; the suite by
# the README's GPU-machine command; the cuda mutants; process per rank
# (mpirun -np 8, one GPU) against the fake ranks, bitwise; the main job's
# adversarial cases at M 1..2048 with the row check. To the deadline.
. scripts/device-steps.sh
build
s suite 150 "$ROOT/scripts/ctest-gpu-host.sh" -j8
tail -4 "$R/suite.out"
s mutants_cuda 90 "$L" mutants --backend cuda --dims small --tp 8,16 --tokens 5,33 --dist adversarial --json mu.json
s np8_k3 100 $M -np 8 "$L" check --backend cuda --dims k3 --tp 8 --tokens 1,33,257,2048 --dist adversarial --json np8_k3.json
rows np8_k3.json
s main_adv 150 "$L" check --backend cuda --dims k3 --tp 8,16 --tokens 1,5,33,128,256,257,2048 --dist adversarial --json main_adv.json
rows main_adv.json
