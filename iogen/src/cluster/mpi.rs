//! [`Cluster`] over MPI (the `mpi` feature: rsmpi over the system's MPI library). Only the thread
//! that initialised MPI calls it (`MPI_THREAD_FUNNELED`): the scheduler's thread; engine worker
//! threads never do.

use std::time::Duration;

use mpi::collective::{CommunicatorCollectives, Root as _};
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::request::{scope, Request, Scope};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::{Count, Threading};

use super::Cluster;

/// Sleep between looks at a collective not yet complete. Open MPI's blocking collectives poll
/// without sleeping; ranks that arrive first then take the CPU from the ranks they wait for, which
/// on a host with more ranks than free cores stretched an exchange from ~1 ms to hundreds of ms.
const POLL: Duration = Duration::from_micros(100);

/// Wait for `req`, sleeping [`POLL`] between tests (each test drives the collective on).
fn wait_gently<'a, D: ?Sized, S: Scope<'a>>(mut req: Request<'a, D, S>) {
    loop {
        match req.test() {
            Ok(_) => return,
            Err(r) => {
                req = r;
                std::thread::sleep(POLL);
            }
        }
    }
}

/// This process as one rank of an MPI job.
pub struct MpiCluster {
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
    /// Dropping it finalises MPI, so it lives as long as the cluster.
    _universe: Universe,
}

impl MpiCluster {
    /// Initialise MPI. A panic afterwards aborts the whole job (an unwinding panic would leave
    /// this rank in `MPI_Finalize` and the others waiting in a collective forever).
    pub fn init() -> anyhow::Result<Self> {
        let (universe, _provided) = mpi::initialize_with_threading(Threading::Funneled)
            .ok_or_else(|| anyhow::anyhow!("MPI was initialised already"))?;
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            SimpleCommunicator::world().abort(70);
        }));
        Ok(MpiCluster { world, rank, size, _universe: universe })
    }
}

impl Cluster for MpiCluster {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn barrier(&self) {
        wait_gently(self.world.immediate_barrier());
    }

    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        // Never an empty buffer: Open MPI defines MPI_IN_PLACE as (void *) 1, which is exactly
        // the dangling pointer of an empty Rust slice of bytes (MPI_ERR_ARG in MPI_Gatherv).
        let mut framed = Vec::with_capacity(bytes.len() + 1);
        framed.push(0u8);
        framed.extend_from_slice(bytes);
        let bytes = &framed[..];
        let root = self.world.process_at_rank(0);
        let len = bytes.len() as Count;
        if self.rank != 0 {
            scope(|s| wait_gently(root.immediate_gather_into(s, &len)));
            scope(|s| wait_gently(root.immediate_gather_varcount_into(s, bytes)));
            return None;
        }
        let mut counts = vec![0 as Count; self.size];
        scope(|s| wait_gently(root.immediate_gather_into_root(s, &len, &mut counts[..])));
        let displs: Vec<Count> = counts
            .iter()
            .scan(0, |at, &n| {
                let d = *at;
                *at += n;
                Some(d)
            })
            .collect();
        let mut buf = vec![0u8; counts.iter().map(|&n| n as usize).sum()];
        {
            let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            scope(|s| wait_gently(root.immediate_gather_varcount_into_root(s, bytes, &mut part)));
        }
        Some(counts.iter().zip(&displs).map(|(&n, &d)| buf[d as usize + 1..(d + n) as usize].to_vec()).collect())
    }

    fn broadcast(&self, bytes: &[u8]) -> Vec<u8> {
        let root = self.world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        scope(|s| wait_gently(root.immediate_broadcast_into(s, &mut len)));
        let mut buf = if self.rank == 0 { bytes.to_vec() } else { vec![0u8; len as usize] };
        if len > 0 {
            scope(|s| wait_gently(root.immediate_broadcast_into(s, &mut buf[..])));
        }
        buf
    }

    fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}
