//! The processes of one run: one, or the ranks `mpirun` starts (built with the cargo
//! feature `mpi`, against the system's MPI through the `mpi` crate). Each rank reads the
//! scene and loads the plugins itself; the simulation is then shared among them (see
//! `dem_core::engines::ranks`). Rank 0 writes the outputs and the checkpoints, and reports.

use dem_core::engines::ranks::Exchange;
use dem_core::DemError;
#[cfg(feature = "mpi")]
use std::ops::Range;

/// This process's place in the run.
pub struct World {
    #[cfg(feature = "mpi")]
    universe: Option<mpi::environment::Universe>,
}

impl World {
    /// Starts MPI when this `dem` has it and `mpirun` (or another launcher) started
    /// several processes. Without the feature, such a launch is refused: the processes
    /// would each run the whole scene into the same files.
    pub fn start() -> Result<World, DemError> {
        #[cfg(feature = "mpi")]
        {
            let universe = launched().map(|_| {
                mpi::initialize_with_threading(mpi::Threading::Serialized)
                    .map(|(u, _)| u)
                    .ok_or_else(|| DemError::Rank {
                        rank: 0,
                        message: "MPI could not be initialised".into(),
                    })
            });
            Ok(World {
                universe: universe.transpose()?,
            })
        }
        #[cfg(not(feature = "mpi"))]
        match launched() {
            Some(n) => Err(DemError::Rank {
                rank: 0,
                message: format!(
                    "started as one of {n} MPI processes, but this dem was built without \
                     MPI: build it with `cargo build --release --features mpi` (needs an MPI \
                     library, e.g. Debian's libopenmpi-dev)"
                ),
            }),
            None => Ok(World {}),
        }
    }

    /// One process, without MPI (for the commands that do not run a scene).
    pub fn alone() -> World {
        World {
            #[cfg(feature = "mpi")]
            universe: None,
        }
    }

    /// This process's rank, from 0.
    pub fn rank(&self) -> usize {
        #[cfg(feature = "mpi")]
        if let Some(u) = &self.universe {
            use mpi::traits::Communicator;
            return u.world().rank() as usize;
        }
        0
    }

    /// How many processes run.
    pub fn size(&self) -> usize {
        #[cfg(feature = "mpi")]
        if let Some(u) = &self.universe {
            use mpi::traits::Communicator;
            return u.world().size() as usize;
        }
        1
    }

    /// The exchange among the ranks, when there are several.
    pub fn exchange(&self) -> Option<Box<dyn Exchange>> {
        #[cfg(feature = "mpi")]
        if let Some(u) = &self.universe {
            use mpi::traits::Communicator;
            if u.world().size() > 1 {
                return Some(Box::new(Mpi(u.world())));
            }
        }
        None
    }

    /// Stops every rank (after an error on this one that the others may not know of).
    pub fn abort(&self, code: i32) {
        #[cfg(feature = "mpi")]
        if let Some(u) = &self.universe {
            use mpi::traits::Communicator;
            if u.world().size() > 1 {
                u.world().abort(code);
            }
        }
        let _ = code;
    }
}

impl World {
    /// Was this process started by an MPI launcher, with other ranks?
    pub fn launched_by_mpi() -> bool {
        launched().is_some() || Self::local_ranks() > 1
    }

    /// How many processes of this run the launcher started on this machine (1 without a
    /// launcher): OpenMPI's and MPICH's variables.
    pub fn local_ranks() -> usize {
        [
            "OMPI_COMM_WORLD_LOCAL_SIZE",
            "MPI_LOCALNRANKS",
            "PMI_LOCAL_SIZE",
        ]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1)
    }
}

/// How many processes the launcher started, when it says so and they are several
/// (OpenMPI's and the PMI launchers' variables, as MPICH's Hydra sets them).
fn launched() -> Option<usize> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse::<usize>().ok())
        .filter(|&n| n > 1)
}

/// The ranks' exchange over MPI's world communicator.
#[cfg(feature = "mpi")]
struct Mpi(mpi::topology::SimpleCommunicator);

// SAFETY: MPI is initialised with `Threading::Serialized`: any thread may call it, one at
// a time. A simulation calls its exchange from the thread that steps it, never two at
// once (stepping takes the simulation mutably).
#[cfg(feature = "mpi")]
unsafe impl Send for Mpi {}
#[cfg(feature = "mpi")]
unsafe impl Sync for Mpi {}

#[cfg(feature = "mpi")]
impl Exchange for Mpi {
    fn rank(&self) -> usize {
        use mpi::traits::Communicator;
        self.0.rank() as usize
    }

    fn size(&self) -> usize {
        use mpi::traits::Communicator;
        self.0.size() as usize
    }

    fn all_gather(&self, mine: &[u8], all: &mut Vec<u8>) -> Vec<Range<usize>> {
        use mpi::datatype::PartitionMut;
        use mpi::traits::{Communicator, CommunicatorCollectives};
        let size = self.0.size() as usize;
        let count = i32::try_from(mine.len()).expect("under 2 GiB per rank and exchange");
        let mut counts = vec![0i32; size];
        self.0.all_gather_into(&count, &mut counts[..]);
        let displs: Vec<i32> = counts
            .iter()
            .scan(0i32, |at, &c| {
                let d = *at;
                *at += c;
                Some(d)
            })
            .collect();
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        all.clear();
        all.resize(total, 0);
        // Nothing to send anywhere (OpenMPI refuses a gather of nothing at all).
        if total > 0 {
            let mut parts = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
            self.0.all_gather_varcount_into(mine, &mut parts);
        }
        counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| d as usize..(d + c) as usize)
            .collect()
    }
}
