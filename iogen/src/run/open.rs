//! Opening a step: its target (laid out first when needed) and its engine, and the blocks this
//! rank uses. Of ranks sharing a target, the first prepares it before the others look at it.

use std::sync::atomic::AtomicBool;

use anyhow::Context;

use crate::cluster::{region, Cluster};
use crate::engine::{open_engine, Engine, EngineConfig};
use crate::options::{IoMode, Options};
use crate::target::{self, Target};

use super::agreed;
use super::preconditioning::Preconditioning;

/// Where this rank works in a target several ranks share: its position among them and their number.
#[derive(Debug, Clone, Copy)]
pub(super) struct Placement {
    pub(super) position: usize,
    pub(super) count: usize,
}

/// Which step this is, and among which ranks.
pub(super) struct StepContext<'a> {
    pub(super) number: usize,
    pub(super) count: usize,
    pub(super) cluster: &'a dyn Cluster,
    pub(super) place: Placement,
    /// Host name of every rank (`--host`, default the hostname).
    pub(super) hosts: &'a [String],
}

/// A step's target and engine, and the blocks this rank uses.
pub(super) struct Opened {
    pub(super) target: Target,
    pub(super) engine: Box<dyn Engine>,
    /// First block of this rank's region.
    pub(super) first: u64,
    /// Blocks in it.
    pub(super) blocks: u64,
    /// Whether `--precondition` wrote the target's IO range in this run.
    pub(super) preconditioned: bool,
}

/// Prepare the target (lay it out if needed, precondition it if asked) and open the engine; the
/// range of blocks this rank uses. `Err(code)`: the ranks agreed to stop with that exit code.
pub(super) fn open_step(
    ctx: &StepContext,
    o: &Options,
    conditioning: &mut Preconditioning,
    stop: &AtomicBool,
) -> anyhow::Result<Result<Opened, i32>> {
    let c = ctx.cluster;
    let mut opened = None;
    for leader_turn in [true, false] {
        let mine = ((ctx.place.position == 0) == leader_turn).then(|| open_mine(ctx, o, conditioning, stop));
        let ok = match mine {
            Some(r) => r.map(|x| opened = Some(x)),
            None => Ok(()),
        };
        if let Err(code) = agreed(c, ok, "a rank could not prepare its target")? {
            return Ok(Err(code));
        }
    }
    Ok(Ok(opened.expect("every rank prepared its target in its turn")))
}

/// This rank's turn: prepare the target, find its blocks, precondition it, open the engine.
fn open_mine(
    ctx: &StepContext,
    o: &Options,
    conditioning: &mut Preconditioning,
    stop: &AtomicBool,
) -> anyhow::Result<Opened> {
    if !o.target.exists() {
        eprintln!(
            "iogen: laying out {} ({} bytes of non-zero data)",
            o.target.display(),
            o.size.unwrap_or(target::DEFAULT_NEW_SIZE)
        );
    }
    let target = target::prepare(o, stop)?;
    let (first, blocks) = region(target.blocks(o.block_size), ctx.place.position, ctx.place.count);
    if blocks == 0 {
        anyhow::bail!(
            "--target {}: {} blocks of {} bytes cannot be split among the {} ranks that share it",
            o.target.display(),
            target.blocks(o.block_size),
            o.block_size,
            ctx.place.count
        );
    }
    let preconditioned = conditioning.prepare(o, &target, ctx.place.position == 0, stop)?;
    let cfg = EngineConfig {
        file: target.file.clone(),
        queue_depth: o.queue_depth,
        block_size: o.block_size as usize,
        direct: o.io_mode == IoMode::Direct,
    };
    let engine = open_engine(o.engine, &cfg)
        .with_context(|| format!("opening the {:?} engine on {}", o.engine, o.target.display()))?;
    Ok(Opened { target, engine, first, blocks, preconditioned })
}
