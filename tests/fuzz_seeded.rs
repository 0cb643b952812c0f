//! A short, seeded run of each fuzz target (`crates/dem-fuzz`, run for long under
//! libFuzzer by `fuzz/`): the inputs the project ships (scenes, meshes, CSV files, a
//! checkpoint, random hulls) mutated by a seeded generator, a few thousand per target. No
//! input may panic. The mutations are those of a byte-level fuzzer: bit flips, bytes set
//! to boundary values, runs deleted, duplicated or spliced from another input.

use dem_core::Checkpoint;
use dem_verification::{plugins, root, sim_from_text};

/// xorshift64*: the mutations' random numbers, seeded.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One to four byte-level mutations of `input`, with `other` to splice from.
fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(6) {
            0 if !v.is_empty() => {
                let i = at.min(v.len() - 1);
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let i = at.min(v.len() - 1);
                v[i] = [0, 0xff, 0x7f, 0x80, b'9', b'-', b'e', b','][rng.below(8)];
            }
            2 => {
                let end = (at + rng.below(16)).min(v.len());
                v.drain(at.min(end)..end);
            }
            3 => {
                let end = (at + rng.below(16)).min(v.len());
                let run = v[at.min(end)..end].to_vec();
                v.splice(at.min(end)..at.min(end), run);
            }
            4 if !other.is_empty() => {
                let from = rng.below(other.len());
                let end = (from + rng.below(64)).min(other.len());
                v.splice(at..at, other[from..end].iter().copied());
            }
            _ => {
                let digits = ["1e308", "-1", "0", "NaN", "inf", "4294967296", "1e-300"];
                v.splice(at..at, digits[rng.below(digits.len())].bytes());
            }
        }
    }
    v
}

/// Runs `target` on `n` mutations of the `seeds` (and on the seeds themselves).
fn campaign(seed: u64, seeds: &[Vec<u8>], n: usize, target: impl Fn(&[u8])) {
    let mut rng = Rng(seed);
    for s in seeds {
        target(s);
    }
    for _ in 0..n {
        let a = &seeds[rng.below(seeds.len())];
        let b = &seeds[rng.below(seeds.len())];
        target(&mutate(&mut rng, a, b));
    }
}

fn files(dir: &str, ext: &str) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert!(!out.is_empty(), "no {ext} file in {dir}");
    out.sort();
    out
}

#[test]
fn scene_parser_and_validation() {
    campaign(1, &files("scenes", "ron"), 3000, dem_fuzz::scene);
}

#[test]
fn stl_and_obj_readers() {
    let stl = files("scenes/meshes", "stl");
    campaign(2, &stl, 1500, |d| dem_fuzz::mesh(d, false));
    let obj = files("scenes/meshes", "obj");
    campaign(3, &obj, 300, |d| dem_fuzz::mesh(d, true));
}

#[test]
fn csv_import() {
    // The head of a benchmark file, and a particles.csv as a run writes it.
    let bench = std::fs::read(root().join("scenes/data/data.settle_N1000.csv")).unwrap();
    let head: Vec<u8> = bench
        .split(|&b| b == b'\n')
        .take(20)
        .collect::<Vec<_>>()
        .join(&b'\n');
    let run = b"id,kind,x,y,z,vx,vy,vz,wx,wy,wz,radius,fx,fy,fz\n\
                0,Sphere,1e-3,2e-3,3e-3,0,0,-1,0,0,0,5e-4,0,0,0\n\
                1,Wall,0,0,0,0,0,0,0,0,0,inf,0,0,0\n"
        .to_vec();
    campaign(4, &[head, run], 5000, dem_fuzz::csv);
}

#[test]
fn checkpoint_reader() {
    let text = std::fs::read_to_string(root().join("scenes/bounce.ron")).unwrap();
    let mut sim = sim_from_text(&text, "bounce.ron").unwrap();
    sim.run_steps(20).unwrap();
    let bytes = Checkpoint::capture(&sim, plugins(), vec![7; 16]).to_bytes();
    campaign(5, &[bytes], 3000, dem_fuzz::checkpoint);
}

#[test]
fn convex_contact_of_random_hulls() {
    // Two overlapping boxes, corners in thousandths (i16): 8 points each.
    let corners = |o: i16| -> Vec<u8> {
        (0..8)
            .flat_map(|i: i16| {
                [
                    o + 100 * (i & 1),
                    o + 100 * ((i >> 1) & 1),
                    o + 100 * (i >> 2),
                ]
                .map(|c| c.to_le_bytes())
            })
            .flatten()
            .collect()
    };
    let mut input = vec![4u8];
    input.extend(corners(0));
    input.extend(corners(50));
    let mut rng = Rng(6);
    let random: Vec<u8> = (0..97).map(|_| rng.next() as u8).collect();
    campaign(7, &[input, random], 3000, dem_fuzz::convex);
}
