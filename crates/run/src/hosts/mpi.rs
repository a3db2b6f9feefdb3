//! The MPI transport of a many-rank run (rsmpi, the `mpi` crate, over the system's MPI
//! library): the world, the common start (MPI_Barrier, then MPI_Bcast of rank 0's instant),
//! the stonewall across ranks (a non-blocking MPI_Iprobe for the first rank's word, checked
//! every [`POLL`] while the run goes on in its own thread), and the results gathered on rank
//! 0 as serde JSON through MPI_Gather of their lengths and MPI_Gatherv of their bytes.
//!
//! MPI is initialised with `MPI_THREAD_FUNNELED`: only the main thread calls MPI; the run's
//! threads never do.

use std::time::Duration;

use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::request::WaitGuard;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Destination, Root, Source};
use mpi::{Count, Tag, Threading};
use serde::{Deserialize, Serialize};

use iolab_core::stop::Stop;
use iolab_stats::hosts::HostRun;

use super::{realtime_ns, wait_until, HostsError, Stonewall, START_LEAD};

/// How often a rank running under `--mpi-stonewall=first` looks for another rank's word.
pub const POLL: Duration = Duration::from_millis(10);

/// The tag of "this rank is done" (stonewall first).
const DONE: Tag = 29;

/// What a rank sends rank 0: its run, or why it has none.
#[derive(Debug, Serialize, Deserialize)]
pub enum Outcome {
    Ran {
        host: Box<HostRun>,
        interrupted: bool,
        /// The rank's `--status-interval` deltas, the final remainder last.
        #[serde(default)]
        intervals: Vec<iolab_stats::hosts::delta::HostInterval>,
    },
    Failed {
        hostname: String,
        error: String,
    },
}

/// This process in the MPI world (MPI_Finalize when dropped).
pub struct World {
    _universe: Universe,
    world: SimpleCommunicator,
    rank: u32,
    size: u32,
    hostname: String,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World").field("rank", &self.rank).field("size", &self.size).finish()
    }
}

impl World {
    /// MPI initialised (MPI_Init_thread, funneled) and this rank's place in the world.
    pub fn init() -> Result<World, HostsError> {
        let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)
            .ok_or_else(|| HostsError::Mpi("MPI was initialised already".into()))?;
        let world = universe.world();
        let (rank, size) = (world.rank(), world.size());
        let to_u32 = |n: i32, what: &str| {
            u32::try_from(n).map_err(|_| HostsError::Mpi(format!("{what} {n} is negative")))
        };
        let (rank, size) = (to_u32(rank, "rank")?, to_u32(size, "world size")?);
        let name = mpi::environment::processor_name()
            .map_err(|e| HostsError::Mpi(format!("processor name: {e}")))?;
        let hostname = format!("{name}/{rank}");
        Ok(World { _universe: universe, world, rank, size, hostname })
    }

    pub fn rank(&self) -> u32 {
        self.rank
    }

    pub fn size(&self) -> u32 {
        self.size
    }

    /// fio's `hostname` of this rank's entries: the MPI processor name, `/`, the rank.
    pub fn hostname(&self) -> &str {
        &self.hostname
    }

    /// Whether every rank is ready: each gives its refusal, if any; rank 0 gathers them and
    /// broadcasts the verdict. `(all ready, the refusals by rank on rank 0)`.
    pub fn agree(&self, mine: Option<String>) -> Result<(bool, Vec<(u32, String)>), HostsError> {
        let bytes = mine.unwrap_or_default().into_bytes();
        let failed: Vec<(u32, String)> = self
            .gather(&bytes)?
            .into_iter()
            .enumerate()
            .filter(|(_, b)| !b.is_empty())
            .map(|(r, b)| (r as u32, String::from_utf8_lossy(&b).into_owned()))
            .collect();
        let mut n = failed.len() as u64;
        self.world.process_at_rank(0).broadcast_into(&mut n);
        Ok((n == 0, failed))
    }

    /// Every rank at the barrier, then asleep until rank 0's instant; this rank's skew.
    pub fn start_together(&self) -> i64 {
        self.world.barrier();
        let mut at = if self.rank == 0 { realtime_ns() + START_LEAD.as_nanos() as u64 } else { 0 };
        self.world.process_at_rank(0).broadcast_into(&mut at);
        wait_until(at)
    }

    /// `run` in a thread of its own; under `Stonewall::First` the first rank done sets every
    /// other rank's `stop`. Every rank tells every other when it is done and hears every other
    /// before it goes on, so no message is left unmatched.
    pub fn run_stonewalled<T: Send>(
        &self,
        mode: Stonewall,
        stop: &Stop,
        run: impl FnOnce() -> T + Send,
    ) -> T {
        if mode == Stonewall::Last || self.size < 2 {
            return run();
        }
        let out = std::thread::scope(|s| {
            let h = s.spawn(run);
            let mut told = false;
            while !h.is_finished() {
                if !told && self.world.any_process().immediate_probe_with_tag(DONE).is_some() {
                    stop.set();
                    told = true;
                }
                std::thread::sleep(POLL);
            }
            h.join()
        });
        let out = out.unwrap_or_else(|p| std::panic::resume_unwind(p));
        let one = 1u8;
        mpi::request::scope(|scope| {
            let mut sent = Vec::new();
            for r in (0..self.size).filter(|&r| r != self.rank) {
                let p = self.world.process_at_rank(r as i32);
                sent.push(WaitGuard::from(p.immediate_send_with_tag(scope, &one, DONE)));
            }
            for _ in 1..self.size {
                let _: (u8, _) = self.world.any_process().receive_with_tag(DONE);
            }
        });
        out
    }

    /// Each rank's outcome on rank 0, in rank order (`None` on the others).
    pub fn gather_outcomes(&self, mine: &Outcome) -> Result<Option<Vec<Outcome>>, HostsError> {
        let mut bytes = serde_json::to_vec(mine).map_err(|e| HostsError::Mpi(e.to_string()))?;
        if Count::try_from(bytes.len() + 1).is_err() {
            let too_big = Outcome::Failed {
                hostname: self.hostname.clone(),
                error: format!("its result is {} bytes, past MPI's 2 GiB message", bytes.len()),
            };
            bytes = serde_json::to_vec(&too_big).map_err(|e| HostsError::Mpi(e.to_string()))?;
        }
        let gathered = self.gather(&bytes)?;
        if self.rank != 0 {
            return Ok(None);
        }
        let parse = |(r, b): (usize, Vec<u8>)| {
            serde_json::from_slice(&b)
                .map_err(|e| HostsError::Mpi(format!("rank {r}'s result does not read: {e}")))
        };
        gathered.into_iter().enumerate().map(parse).collect::<Result<_, _>>().map(Some)
    }

    /// Every rank's bytes on rank 0, in rank order (empty elsewhere). Each is sent after one
    /// leading byte, so no send buffer is empty: an empty slice's dangling address is 0x1,
    /// which is Open MPI's `MPI_IN_PLACE` (MPI_Gatherv then fails with MPI_ERR_ARG).
    fn gather(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, HostsError> {
        let framed: Vec<u8> = std::iter::once(b'#').chain(bytes.iter().copied()).collect();
        let bytes = &framed[..];
        let root = self.world.process_at_rank(0);
        let n = Count::try_from(bytes.len())
            .map_err(|_| HostsError::Mpi(format!("{} bytes past MPI's 2 GiB", bytes.len())))?;
        if self.rank != 0 {
            root.gather_into(&n);
            root.gather_varcount_into(bytes);
            return Ok(Vec::new());
        }
        let mut counts = vec![0 as Count; self.size as usize];
        root.gather_into_root(&n, &mut counts[..]);
        let mut displs = Vec::with_capacity(counts.len());
        let mut total: Count = 0;
        for &c in &counts {
            displs.push(total);
            total = match total.checked_add(c) {
                Some(t) => t,
                // The other ranks are inside MPI_Gatherv: ending them all beats a hang.
                None => {
                    eprintln!("iolab: MPI: the ranks' results pass 2 GiB together; aborting");
                    self.world.abort(1)
                }
            };
        }
        let mut buf = vec![0u8; total as usize];
        {
            let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(bytes, &mut part);
        }
        // Each rank sent at least its leading byte.
        let cut = |(&d, &c): (&Count, &Count)| {
            buf.get((d as usize + 1)..(d as usize + c as usize)).unwrap_or_default().to_vec()
        };
        Ok(displs.iter().zip(&counts).map(cut).collect())
    }
}
