//! Ranks as threads of one test process: a stand-in for MPI, so that the sharing of a
//! simulation among ranks ([`dem_core::engines::ranks`]) is tested by `cargo test` alone. The
//! `dem` executable's MPI exchange is tested end to end under `mpirun` (`tests/mpi.rs`).

use dem_core::engines::ranks::Exchange;
use std::ops::Range;
use std::sync::{Arc, Barrier, Mutex};

/// One rank of a group of threads.
pub struct ThreadRank {
    rank: usize,
    shared: Arc<Shared>,
}

struct Shared {
    size: usize,
    barrier: Barrier,
    posted: Mutex<Vec<Vec<u8>>>,
}

/// `size` ranks, one for each thread of the group.
pub fn group(size: usize) -> Vec<ThreadRank> {
    let shared = Arc::new(Shared {
        size,
        barrier: Barrier::new(size),
        posted: Mutex::new(vec![Vec::new(); size]),
    });
    (0..size)
        .map(|rank| ThreadRank {
            rank,
            shared: shared.clone(),
        })
        .collect()
}

impl Exchange for ThreadRank {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    fn all_gather(&self, mine: &[u8], all: &mut Vec<u8>) -> Vec<Range<usize>> {
        let s = &self.shared;
        s.posted.lock().unwrap()[self.rank] = mine.to_vec();
        // Everyone has posted; everyone reads; then the slots may be reused.
        s.barrier.wait();
        all.clear();
        let mut at = Vec::with_capacity(s.size);
        for m in s.posted.lock().unwrap().iter() {
            at.push(all.len()..all.len() + m.len());
            all.extend_from_slice(m);
        }
        s.barrier.wait();
        at
    }
}

/// A scene for the ranks' tests: 1,200 spheres thrown at random in a box under gravity,
/// their storage reordered every 100 steps; with a wall moving in (a boundary of prescribed
/// motion, whose force every rank needs) where `PISTON` stands.
pub const SCENE: &str = r#"Scene(
    materials: { "m": (density: 2500, young: 1e7, friction: 0.4) },
    laws: [(materials: ("*", "*"), law: "Law2_L6Geom_LinearElPl", params: (restitution: 0.5))],
    bodies: [
        Box(min: (-0.001, -0.001, -0.001), max: (0.03, 0.03, 0.05), material: "m"),
        Lattice(origin: (0.001, 0.001, 0.001), count: (12, 10, 10), spacing: 0.00199,
                radius: 0.001, material: "m", velocity: (0, 0, 0), velocity_spread: 0.1, seed: 5),
        PISTON
    ],
    gravity: (0, 0, -400),
    timestep: Critical(0.2),
    duration: Steps(3000),
    contacts: (skin: 0.3, reorder: 100),
)"#;

/// The moving wall of [`SCENE`].
pub const PISTON: &str = r#"Wall(point: (0.029, 0, 0), normal: (-1, 0, 0), material: "m",
             motion: Translate(velocity: (-0.2, 0, 0))),"#;
