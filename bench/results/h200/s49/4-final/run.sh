# Forty-ninth session, call 4: call 3's steps (build, the suite, speed on an
# H200) on the final tree, which adds to call 3's the shared FIFO test
# helpers, a reworded comment and simulate's named 'name'/'source' type
# errors (faults.unseen 13(j)).
. bench/results/h200/s49/3-final/run.sh
