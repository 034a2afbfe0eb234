#!/bin/bash
# Instructions per transaction of the LSD microbenchmark, one thread, under
# callgrind: the difference between runs of 60,000 and 20,000 transactions
# over 40,000, so that start-up and set-up cancel out.
#
#     scripts/lsd_instructions.sh [BUILD_DIR] [WORKLOAD ARGS...]
#
# Default workload: -w assert -c 0 (no contention: what the LSD calls cost).
# Prints one line per backend (tl2, 2pl, pot) and mode (std, lsd).
# POTM_MODE=pot-ordered in the environment measures Pot's speculative path.
set -euo pipefail
B=${1:-build}
shift || true
W=("$@")
[ ${#W[@]} -eq 0 ] && W=(-w assert -c 0)
ir() {   # backend mode count
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$B/bench/lsd-$1" "${W[@]}" \
		-m "$2" -p 4 -r 64 -t 1 -n "$3" 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for be in tl2 2pl pot; do
	for m in std lsd; do
		a=$(ir "$be" "$m" 20000)
		b=$(ir "$be" "$m" 60000)
		echo "$be $m ${W[*]}: $(( (b - a) / 40000 )) instructions/transaction"
	done
done
