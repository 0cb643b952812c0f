//! `dem bench`'s rocks section (the polyhedra benchmark): a small pour prints its table
//! with contacts made and the phases summing to 100 %; a size outside the pour's range is
//! refused by name. Its dense section starts from the committed bed.

use dem_verification::cli::{dem, ok, refused};

/// The row of `n` bodies in a bench table: the row, and the numbers of its first part
/// (particle-steps/s, steps/s, ns per contact, mean contacts).
fn row_of(out: &str, n: u64) -> (String, Vec<f64>) {
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{n} ")))
        .unwrap_or_else(|| panic!("a row for {n}: {out}"));
    let rate = row.split('|').nth(1).unwrap();
    let rate = rate
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    (row.to_string(), rate)
}

#[test]
fn the_rocks_section_prints_its_table() {
    let out = ok(&dem(&[
        "bench",
        "--sections",
        "rocks",
        "--rocks",
        "300",
        "--rock-steps",
        "60",
        "--threads",
        "1",
    ]));
    println!("{out}");
    assert!(
        out.starts_with("rocks benchmark (polyhedra), 60 steps"),
        "{out}"
    );
    let (row, rate) = row_of(&out, 300);
    let cols: Vec<&str> = row.split('|').collect();
    // particle-steps/s = N * steps/s; mean contacts.
    assert!((rate[0] / (300.0 * rate[1]) - 1.0).abs() < 1e-3, "{row}");
    assert!(rate[3] >= 1.0, "no contacts in the pour: {row}");
    let phases: f64 = cols[3]
        .split_whitespace()
        .map(|x| x.parse::<f64>().unwrap())
        .sum();
    assert!(
        (phases - 100.0).abs() < 0.5,
        "phases sum to {phases}: {row}"
    );
}

#[test]
fn a_pour_of_one_rock_is_refused() {
    let err = refused(&dem(&["bench", "--sections", "rocks", "--rocks", "1"]));
    assert!(err.contains("bench rocks 1"), "{err}");
}

/// The dense section starts from the settled bed: about 1.6 contacts per sphere (walls
/// included) from its first steps, where LAMMPS counts 14,205 touching sphere pairs on the
/// same bed (bench/lammps/in.dense: 28,410 contacts per atom summed at step 0), besides the
/// walls.
#[test]
fn the_dense_section_starts_from_the_packed_bed() {
    let out = ok(&dem(&[
        "bench",
        "--sections",
        "dense",
        "--dense",
        "10000",
        "--steps",
        "20",
        "--threads",
        "1",
    ]));
    println!("{out}");
    assert!(
        out.starts_with("dense benchmark (hooke), 20 steps"),
        "{out}"
    );
    let (row, rate) = row_of(&out, 10_000);
    let contacts = rate[3];
    assert!(
        (14_205.0..18_000.0).contains(&contacts),
        "{contacts} contacts per step: {row}"
    );
    let err = refused(&dem(&["bench", "--sections", "dense", "--dense", "15000"]));
    assert!(err.contains("bench dense 15000"), "{err}");
}
