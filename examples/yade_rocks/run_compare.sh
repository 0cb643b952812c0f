#!/bin/sh
# dem against Yade's Polyhedra on scenes/rocks.ron, one thread each (see README.md).
# Run from the workspace root after `cargo build --release --workspace`, with Yade
# installed (Debian: apt-get install yade). Whole-process wall times go to
# $WORK/times.csv, the output of every run to $WORK/logs/.
#   RUNS    timed runs of each code and phase, alternated (default 3)
#   SPARSE  steps of the pour phase, from t = 0 (default 2000: most rocks still falling)
#   DENSE   steps of the dense phase (default 200: Yade takes about 0.4 s per step there;
#           0: the pour only)
#   LONG    steps of an extra dem-only run of the dense phase (default 5000; 0: none)
#   SETTLE  step at which the dense phase starts (default 15000, t = 0.68 s: at rest)
#   WORK    scratch directory (default /tmp/yade_rocks)
# Untimed preparation runs under nice; the timed runs do not.
set -eu
RUNS=${RUNS:-3}
SPARSE=${SPARSE:-2000}
DENSE=${DENSE:-200}
LONG=${LONG:-5000}
SETTLE=${SETTLE:-15000}
WORK=${WORK:-/tmp/yade_rocks}
DEM=${DEM:-target/release/dem}
HERE=$(dirname "$0")
mkdir -p "$WORK/logs"

# Scene variants: only the duration and the output interval differ from scenes/rocks.ron.
variant() { # steps every out
    sed -e "s/duration: Time(1.0)/duration: Steps($1)/" \
        -e "s/output: (every: 1000)/output: (every: $2)/" scenes/rocks.ron >"$3"
    grep -q "Steps($1)" "$3" && grep -q "every: $2)" "$3"
}
variant "$SPARSE" "$SPARSE" "$WORK/pour.ron"
variant $((SETTLE + DENSE)) "$SETTLE" "$WORK/dense.ron"
variant $((SETTLE + LONG)) "$SETTLE" "$WORK/long.ron"

# The rocks at step 0 and, after untimed runs to SETTLE, the settled pile and checkpoints
# (the same state at SETTLE; they differ only in the duration they resume to).
prep() { # scene out (kept from an earlier call with the same scene)
    cmp -s "$WORK/$1" "$WORK/$2/scene.ron" 2>/dev/null && return
    rm -rf "$WORK/$2"
    nice -n 10 "$DEM" run "$WORK/$1" --threads 1 --checkpoint-every "$SETTLE" --out "$WORK/$2" \
        >"$WORK/logs/$2.txt" 2>&1
    cp "$WORK/$1" "$WORK/$2/scene.ron"
}
prep pour.ron prep0
[ "$DENSE" -gt 0 ] && prep dense.ron prep
[ "$DENSE" -gt 0 ] && [ "$LONG" -gt 0 ] && prep long.ron prep_long
# dem's time step, to all digits: the time of the last energy row over its step
DT=$(python3 -c "import sys; r = open(sys.argv[1]).read().split()[-1].split(','); print(repr(float(r[1]) / int(r[0])))" "$WORK/prep0/energy.csv")
echo "dt = $DT s"
python3 "$HERE/export_rocks.py" "$WORK/prep0/polyhedra_000000000.vtu" "$WORK/rocks_pour.jsonl"
if [ "$DENSE" -gt 0 ]; then
    python3 "$HERE/export_rocks.py" "$(printf '%s/prep/polyhedra_%09d.vtu' "$WORK" "$SETTLE")" \
        "$WORK/rocks_dense.jsonl"
fi

# Contacts of Yade's runs, counted in untimed runs (the count is a Python loop).
nice -n 10 yade -j1 -n -x "$HERE/yade_rocks.py" "$WORK/rocks_pour.jsonl" "$SPARSE" "$DT" 0 \
    $((SPARSE / 20)) >"$WORK/logs/yade_pour_count.txt" 2>&1
if [ "$DENSE" -gt 0 ]; then
    nice -n 10 yade -j1 -n -x "$HERE/yade_rocks.py" "$WORK/rocks_dense.jsonl" "$DENSE" "$DT" 0.2 \
        $((DENSE / 10)) >"$WORK/logs/yade_dense_count.txt" 2>&1
fi

timed() { # label log command...
    label=$1 log=$2
    shift 2
    start=$(date +%s.%N)
    "$@" >"$log" 2>&1
    end=$(date +%s.%N)
    echo "$label,$(echo "$end - $start" | bc)" >>"$WORK/times.csv"
}
echo "run,seconds" >"$WORK/times.csv"
uptime >"$WORK/load.txt"
for i in $(seq "$RUNS"); do
    rm -rf "$WORK/dem_pour" "$WORK/dem_dense" "$WORK/dem_long"
    timed dem_pour "$WORK/logs/dem_pour_$i.txt" \
        "$DEM" run "$WORK/pour.ron" --threads 1 --out "$WORK/dem_pour"
    timed yade_pour "$WORK/logs/yade_pour_$i.txt" \
        yade -j1 -n -x "$HERE/yade_rocks.py" "$WORK/rocks_pour.jsonl" "$SPARSE" "$DT" 0
    if [ "$DENSE" -gt 0 ]; then
        timed dem_dense "$WORK/logs/dem_dense_$i.txt" \
            "$DEM" resume "$WORK/prep/checkpoint.ckpt" --threads 1 --out "$WORK/dem_dense"
        timed yade_dense "$WORK/logs/yade_dense_$i.txt" \
            yade -j1 -n -x "$HERE/yade_rocks.py" "$WORK/rocks_dense.jsonl" "$DENSE" "$DT" 0.2
    fi
    if [ "$DENSE" -gt 0 ] && [ "$LONG" -gt 0 ]; then
        timed dem_long "$WORK/logs/dem_long_$i.txt" \
            "$DEM" resume "$WORK/prep_long/checkpoint.ckpt" --threads 1 --out "$WORK/dem_long"
    fi
    uptime >>"$WORK/load.txt"
done
cat "$WORK/times.csv" "$WORK/load.txt"
