//! What each IO does: read or write, and where. Seeded, independent of the arrival stream.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::engine::OpKind;

/// Picks the kind and offset of successive IOs.
#[derive(Debug, Clone)]
pub struct Workload {
    rng: StdRng,
    read_frac: f64,
    random_frac: f64,
    base: u64,
    block_size: u64,
    blocks: u64,
    next_seq: u64,
}

impl Workload {
    /// IOs of `block_size` bytes over `blocks` aligned blocks starting at byte `base`;
    /// `read_pct` and `random_pct` are 0–100.
    pub fn new(read_pct: f64, random_pct: f64, base: u64, block_size: u64, blocks: u64, seed: u64) -> Self {
        assert!(blocks > 0, "at least one block");
        Workload {
            rng: StdRng::seed_from_u64(seed ^ 0x5EED_0002),
            read_frac: read_pct / 100.0,
            random_frac: random_pct / 100.0,
            base,
            block_size,
            blocks,
            next_seq: 0,
        }
    }

    /// The next IO: its kind and byte offset. A random IO picks a block uniformly; a sequential
    /// one continues after the previous IO (wrapping at the end).
    pub fn next_io(&mut self) -> (OpKind, u64) {
        let kind = if self.read_frac >= 1.0 || (self.read_frac > 0.0 && self.rng.random::<f64>() < self.read_frac) {
            OpKind::Read
        } else {
            OpKind::Write
        };
        let block =
            if self.random_frac >= 1.0 || (self.random_frac > 0.0 && self.rng.random::<f64>() < self.random_frac) {
                self.rng.random_range(0..self.blocks)
            } else {
                self.next_seq % self.blocks
            };
        self.next_seq = (block + 1) % self.blocks;
        (kind, self.base + block * self.block_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_and_bounds() {
        let mut w = Workload::new(70.0, 100.0, 4096, 4096, 100, 3);
        let mut reads = 0;
        for _ in 0..10_000 {
            let (k, off) = w.next_io();
            assert!((4096..4096 + 100 * 4096).contains(&off) && off % 4096 == 0);
            if k == OpKind::Read {
                reads += 1;
            }
        }
        assert!((6700..7300).contains(&reads), "{reads}");
    }

    #[test]
    fn sequential_wraps() {
        let mut w = Workload::new(100.0, 0.0, 0, 512, 3, 1);
        let offs: Vec<u64> = (0..5).map(|_| w.next_io().1).collect();
        assert_eq!(offs, vec![0, 512, 1024, 0, 512]);
        let mut w = Workload::new(0.0, 0.0, 0, 512, 3, 1);
        assert_eq!(w.next_io().0, OpKind::Write);
    }
}
