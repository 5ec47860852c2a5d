//! The null engine: no IO; every submission completes at once with the full length.

use std::collections::VecDeque;
use std::time::Instant;

use anyhow::bail;

use super::{Completion, Engine, Submission};

/// No IO: every submission completes at once with the full length. For deterministic tests and
/// to measure the scheduler's own overhead.
pub struct NullEngine {
    queue_depth: usize,
    done: VecDeque<Completion>,
}

impl NullEngine {
    /// A null engine with `queue_depth` slots.
    pub fn new(queue_depth: usize) -> Self {
        NullEngine { queue_depth, done: VecDeque::new() }
    }
}

impl Engine for NullEngine {
    fn name(&self) -> &'static str {
        "null"
    }

    fn submit(&mut self, sub: Submission) -> anyhow::Result<()> {
        if sub.slot >= self.queue_depth {
            bail!("slot {} out of range", sub.slot);
        }
        self.done.push_back(Completion { slot: sub.slot, result: Ok(sub.len), at: Instant::now() });
        Ok(())
    }

    fn reap(&mut self, _min: usize, _deadline: Option<Instant>, out: &mut Vec<Completion>) -> anyhow::Result<()> {
        out.extend(self.done.drain(..));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::OpKind;

    #[test]
    fn null_engine_completes_at_once() {
        let mut e = NullEngine::new(2);
        e.submit(Submission { slot: 1, kind: OpKind::Write, offset: 0, len: 512 }).unwrap();
        let mut out = Vec::new();
        e.reap(0, None, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].result, Ok(512));
        assert!(e.submit(Submission { slot: 2, kind: OpKind::Read, offset: 0, len: 512 }).is_err());
    }
}
