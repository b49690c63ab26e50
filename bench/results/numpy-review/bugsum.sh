#!/bin/bash
# bugsum.sh CASEDIR OUTDIR BUG... : per bug, how many tier outputs pass (= missed)
cd /tmp/review
for b in "${@:3}"; do
  /usr/bin/python3 drive.py $1 $2 "$b" > log_$(echo $b|tr ',=' '_-').txt 2>&1
  echo "== $b: $(grep SUMMARY log_$(echo $b|tr ',=' '_-').txt)"
done
