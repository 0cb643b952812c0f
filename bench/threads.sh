#!/usr/bin/env bash
# Does the default thread count ever lose to one thread? Runs bounce.ron, settle.ron cut to
# 20,000 steps and drum.ron cut to 20,000 steps, each 3 times, alternating the default
# thread count with --threads 1: once on the idle machine, once with two busy processes
# (`yes > /dev/null`) beside it. Prints one row per (load, scene): the median wall time of
# each and their ratio. A benchmark, not a test: run it by hand.
#
#   bash bench/threads.sh [path/to/dem]     (default: target/release/dem; build it first)
#
# The scenes run with --quiet into a temporary directory; the cut copies are written beside
# the originals (scenes/.cut-*.ron) and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
dem=$(realpath "${1:-target/release/dem}")
rounds=${ROUNDS:-3}
# Outputs go to memory where there is a tmpfs: bounce.ron writes 2,000 small files, each
# synced to disk, and the disk's time would swamp the threads' (1 to 4 s from run to run).
work=$(mktemp -d -p "$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")")
busy=()
stop_busy() {
    for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
    busy=()
}
trap 'stop_busy; rm -rf "$work"' EXIT

# A scene cut to `steps` steps (its `duration:` line replaced), beside the original so that
# its relative paths (meshes) still resolve.
cut() {
    local scene=$1 steps=$2 out
    out=scenes/.cut-$(basename "$scene" .ron)-$steps.ron
    sed -E "s/duration: *[A-Za-z]+\([^)]*\)/duration: Steps($steps)/" "$scene" >"$out"
    echo "$out"
}

# Wall time of a command, s. Its output directory (the argument after --out) is removed
# first, so that every run writes new files (overwriting costs another time).
seconds() {
    local start end prev=""
    for a in "$@"; do
        [ "$prev" = --out ] && rm -rf "$a"
        prev=$a
    done
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

settle=$(cut scenes/settle.ron 20000)
drum=$(cut scenes/drum.ron 20000)
trap 'stop_busy; rm -rf "$work" "$settle" "$drum"' EXIT
scenes=(scenes/bounce.ron "$settle" "$drum")
names=(bounce "settle 20k" "drum 20k")

printf '| load | scene | default (s) | --threads 1 (s) | default / one |\n|---|---|---|---|---|\n'
for load in idle busy; do
    if [ "$load" = busy ]; then
        yes >/dev/null & busy+=($!)
        yes >/dev/null & busy+=($!)
        sleep 1
    fi
    for k in "${!scenes[@]}"; do
        scene=${scenes[$k]}
        d=() o=()
        for _ in $(seq "$rounds"); do
            d+=("$(seconds "$dem" run "$scene" --quiet --out "$work/d")")
            o+=("$(seconds "$dem" run "$scene" --quiet --threads 1 --out "$work/o")")
        done
        md=$(printf '%s\n' "${d[@]}" | median)
        mo=$(printf '%s\n' "${o[@]}" | median)
        printf '| %s | %s | %.2f | %.2f | %.2f |\n' "$load" "${names[$k]}" "$md" "$mo" \
            "$(echo "$md / $mo" | bc -l)"
    done
    stop_busy
done
