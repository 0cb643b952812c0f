#!/usr/bin/env bash
# Two commands timed side by side: both at the same time, each pinned to its own core, then
# again with the cores swapped, for several rounds. On a shared machine one process's time
# moves by 10-20 % from run to run; two processes that run together share the same load,
# so their ratio is what to quote (the same binary against itself: 0.90-1.05 a round on
# this 2-core machine). Prints each run's wall time and the ratio A/B, then the median
# ratio. A benchmark, not a test: run it by hand.
#
#   bash bench/pair.sh 'COMMAND A' 'COMMAND B' [ROUNDS]      (default 3 rounds: 6 pairs)
#
# For example two builds of dem on the dense bed (each finds its plugins beside it), or dem
# beside LAMMPS on the same bed:
#   bash bench/pair.sh 'new/dem bench --one 10000 --sections dense --steps 3000 --threads 1' \
#                      'old/dem bench --one 10000 --sections dense --steps 3000 --threads 1'
#   (cd bench/lammps && bash ../pair.sh \
#       '../../target/release/dem bench --one 10000 --sections dense --steps 10000 --threads 1' \
#       'lmp -in in.dense -var law hooke -var rep 1 -var steps 10000 -log none -screen none')
# Needs `taskset` (util-linux) and two cores. The commands' own output is thrown away.
set -euo pipefail
a=$1
b=$2
rounds=${3:-3}
ratios=()

# Runs `cmd` on core `cpu`, writing its wall time (s) to file `out`.
timed() {
    local cpu=$1 cmd=$2 out=$3 t0
    t0=$EPOCHREALTIME
    # Word splitting of `cmd` is wanted: it is a command line.
    # shellcheck disable=SC2086
    taskset -c "$cpu" $cmd >/dev/null 2>&1 || echo "failed: $cmd" >&2
    awk -v t1="$EPOCHREALTIME" -v t0="$t0" 'BEGIN { print t1 - t0 }' >"$out"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for round in $(seq "$rounds"); do
    for cores in "0 1" "1 0"; do
        read -r ca cb <<<"$cores"
        timed "$ca" "$a" "$work/a" &
        timed "$cb" "$b" "$work/b" &
        wait
        ta=$(cat "$work/a")
        tb=$(cat "$work/b")
        r=$(awk -v a="$ta" -v b="$tb" 'BEGIN { print a / b }')
        ratios+=("$r")
        printf 'round %d, A on core %s: A %.2f s, B %.2f s, A/B %.3f\n' "$round" "$ca" "$ta" "$tb" "$r"
    done
done
median=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')
printf 'median A/B over %d pairs: %.3f\n' "${#ratios[@]}" "$median"
