#!/bin/sh
# mu(I) study: every run of docs/shear.md, in order, then the table and the plots.
# From the repository root, after `cargo build --release --workspace`:
#   sh examples/mu_i/run_all.sh
# Needs lmp (Debian's lammps package), python3 with numpy and matplotlib, /usr/bin/time.
# About 25 min of CPU for dem and 6 min for LAMMPS (one core each, one run at a time).
set -eu
DEM=${DEM:-./target/release/dem}
OUT=${OUT:-out/mu_i}
HERE=examples/mu_i
RES=$HERE/results
mkdir -p "$OUT/compress" "$RES"
# 1. The packing: dem compresses a random gas to 1 kPa; both codes start from its end.
"$DEM" run --threads 1 $HERE/compress.ron --out "$OUT/compress" > "$OUT/compress/log.txt" 2>&1
python3 $HERE/make_packing.py "$OUT/compress" $HERE
# 2. The shear runs: I, steps, output interval (strain 0.02).
for run in "1e-1 38000 125" "1e-2 380000 1250" "1e-3 2530000 12500"; do
    set -- $run
    /usr/bin/time -v -o "$RES/dem_I$1.time" \
        "$DEM" run --threads 1 $HERE/shear_I$1.ron --out "$OUT/dem/I$1" > "$OUT/dem_I$1.log" 2>&1
    cp "$OUT/dem/I$1/stress.csv" "$RES/dem_I$1.csv"
    (cd $HERE && /usr/bin/time -v -o "results/lammps_I$1.time" \
        lmp -in in.shear -var I $1 -var steps $2 -var every $3 \
            -var out "results/lammps_I$1.txt" -log none -screen none)
done
# 3. The table, and the figures of docs/shear.md.
python3 $HERE/analyze.py $RES --plot docs/shear
