//! One run across many processes ("ranks", usually on many hosts), behind the small [`Cluster`]
//! trait: a single process ([`Solo`], every build) or an MPI job (`MpiCluster`, with the `mpi`
//! feature). The scheduler's loop is the same either way; what differs is who decides when a
//! step ends ([`ClusterSink`]) and that rank 0 writes the one output. Semantics and costs:
//! `docs/iogen-mpi.md`.
//!
//! - Every rank checks the same options and its own targets; [`agree`] makes the ranks share one
//!   outcome, so a refusal on any rank stops all of them before any IO, naming rank and host.
//! - A step starts on all ranks together ([`start_together`]): a barrier, then an instant rank 0
//!   broadcasts; each rank reports when it actually woke, and rank 0 prints the spread (skew).
//! - `--iops` is the total: each rank runs an independent Poisson stream at its share
//!   ([`rate_share`]), seeded per rank ([`rank_seed`]); a sum of independent Poisson processes is
//!   a Poisson process at the summed rate.
//! - At each subinterval's end every rank sends its counters and histograms to rank 0
//!   ([`wire`]), which merges them exactly ([`aggregate`]), applies the stop rule to the sum, and
//!   broadcasts the decision; rank 0 then writes the rows of every rank and the `all` rows.

pub mod aggregate;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod wire;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context};

use crate::options::{Iops, Options};
use crate::output::{Record, StepInfo};
use crate::scheduler::{CloseSink, Decision, SubintervalReport, Verdict};
use aggregate::StepAggregate;

/// The collective operations iogen needs from a group of ranks. Every rank must make the same
/// calls in the same order (as with MPI collectives).
pub trait Cluster {
    /// This process's rank, 0-based.
    fn rank(&self) -> usize;
    /// Number of ranks.
    fn size(&self) -> usize;
    /// Wait until every rank has called it.
    fn barrier(&self);
    /// Every rank's `bytes`, in rank order, on rank 0 (`None` on the other ranks).
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>>;
    /// Rank 0's `bytes` on every rank (the others' `bytes` are ignored).
    fn broadcast(&self, bytes: &[u8]) -> Vec<u8>;
    /// End the whole job at once with `code` (after an error that leaves the ranks out of step).
    fn abort(&self, code: i32) -> !;
}

/// The only process of a run without MPI.
#[derive(Debug, Default)]
pub struct Solo;

impl Cluster for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn barrier(&self) {}
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        Some(vec![bytes.to_vec()])
    }
    fn broadcast(&self, bytes: &[u8]) -> Vec<u8> {
        bytes.to_vec()
    }
    fn abort(&self, code: i32) -> ! {
        std::process::exit(code)
    }
}

/// Whether MPI support is compiled into this binary.
pub const MPI_COMPILED_IN: bool = cfg!(feature = "mpi");

/// The number of ranks an MPI or Slurm launcher started, from its environment (read before MPI
/// is initialised): Open MPI's `OMPI_COMM_WORLD_SIZE`, PMI's `PMI_SIZE`, Slurm's `SLURM_NTASKS`
/// for a task of `srun` (`SLURM_STEP_ID` set, not a batch script). `None` when not launched so.
pub fn launched_ranks(env: &dyn Fn(&str) -> Option<String>) -> Option<usize> {
    let num = |k: &str| env(k).and_then(|v| v.trim().parse::<usize>().ok());
    num("OMPI_COMM_WORLD_SIZE")
        .or_else(|| num("PMI_SIZE"))
        .or_else(|| env("SLURM_STEP_ID").and_then(|_| num("SLURM_NTASKS")))
}

/// This rank's share of a total rate: `--iops` is what all ranks together offer.
pub fn rate_share(iops: Iops, ranks: usize) -> Iops {
    match iops {
        Iops::Rate(r) => Iops::Rate(r / ranks as f64),
        Iops::Max => Iops::Max,
    }
}

/// The seed of rank `rank`'s generators: rank 0 keeps `--seed` (a one-rank run is the run iogen
/// makes without MPI); the others get seeds far apart (splitmix64 increments), so their arrival
/// streams are independent.
pub fn rank_seed(seed: u64, rank: usize) -> u64 {
    seed.wrapping_add((rank as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// `--target` with `{rank}` and `{host}` replaced by this rank's number and host name (so each
/// rank can have its own file or device). A path without them names a target every rank shares.
pub fn expand_target(target: &Path, rank: usize, host: &str) -> PathBuf {
    let s = target.to_string_lossy();
    if !s.contains("{rank}") && !s.contains("{host}") {
        return target.to_path_buf();
    }
    PathBuf::from(s.replace("{rank}", &rank.to_string()).replace("{host}", host))
}

/// Whether a template is used (then targets differ per rank unless `{host}` is alone and hosts repeat).
pub fn is_template(target: &Path) -> bool {
    let s = target.to_string_lossy();
    s.contains("{rank}") || s.contains("{host}")
}

/// The blocks of a target shared by `count` ranks that rank number `position` among them uses:
/// consecutive, disjoint regions covering all `blocks` (the first `blocks % count` get one more).
/// Returns (first block, number of blocks).
pub fn region(blocks: u64, position: usize, count: usize) -> (u64, u64) {
    let (count, position) = (count as u64, position as u64);
    let (base, extra) = (blocks / count, blocks % count);
    let first = position * base + position.min(extra);
    (first, base + u64::from(position < extra))
}

/// A rank's refusal or error, as all ranks learn it: exit code and message.
pub type Failure = (i32, String);

/// Make every rank share one outcome of a check each made on its own: `Ok` when all passed, else
/// the highest exit code and every failing rank's message, naming its rank and host. Every rank
/// must call this at the same point.
pub fn agree(c: &dyn Cluster, host: &str, mine: Result<(), Failure>) -> Result<(), Failure> {
    let mut msg = Vec::new();
    if let Err((code, text)) = &mine {
        msg.extend_from_slice(&code.to_le_bytes());
        msg.extend_from_slice(host.as_bytes());
        msg.push(0);
        msg.extend_from_slice(text.as_bytes());
    }
    let mut verdict = Vec::new();
    if let Some(all) = c.gather(&msg) {
        let mut code = 0;
        let mut lines = Vec::new();
        for (rank, m) in all.iter().enumerate() {
            if m.len() < 4 {
                continue;
            }
            code = code.max(i32::from_le_bytes(m[..4].try_into().expect("4 bytes")));
            let rest = String::from_utf8_lossy(&m[4..]).into_owned();
            let (from, text) = rest.split_once('\0').unwrap_or(("?", rest.as_str()));
            lines.push(if c.size() == 1 { text.to_string() } else { format!("rank {rank} on {from}: {text}") });
        }
        if !lines.is_empty() {
            verdict.extend_from_slice(&code.to_le_bytes());
            verdict.extend_from_slice(lines.join("\n").as_bytes());
        }
    }
    let verdict = c.broadcast(&verdict);
    if verdict.len() < 4 {
        return Ok(());
    }
    Err((i32::from_le_bytes(verdict[..4].try_into().expect("4 bytes")), String::from_utf8_lossy(&verdict[4..]).into()))
}

/// Every rank's string, in rank order, on every rank.
pub fn all_gather_strings(c: &dyn Cluster, mine: &str) -> anyhow::Result<Vec<String>> {
    let joined = match c.gather(mine.as_bytes()) {
        Some(all) => {
            let mut out = Vec::new();
            for s in all {
                out.extend_from_slice(&(s.len() as u64).to_le_bytes());
                out.extend_from_slice(&s);
            }
            out
        }
        None => Vec::new(),
    };
    let bytes = c.broadcast(&joined);
    let mut out = Vec::with_capacity(c.size());
    let mut at = 0;
    while at < bytes.len() {
        let len = u64::from_le_bytes(bytes.get(at..at + 8).context("cut short")?.try_into()?) as usize;
        at += 8;
        out.push(String::from_utf8_lossy(bytes.get(at..at + len).context("cut short")?).into_owned());
        at += len;
    }
    if out.len() != c.size() {
        bail!("gathered {} strings from {} ranks", out.len(), c.size());
    }
    Ok(out)
}

/// How a step started on every rank.
#[derive(Debug, Clone, Copy)]
pub struct StartReport {
    /// This rank's time zero (the agreed instant, on this rank's monotonic clock).
    pub at: Instant,
    /// On rank 0: latest − earliest wake-up over the ranks, and latest wake-up − agreed instant.
    pub skew: Option<(Duration, Duration)>,
}

/// How far ahead of the barrier rank 0 sets the start: enough for the broadcast to reach every
/// rank and each to sleep until it (tens of µs on one host; a few ms across a busy network).
pub const START_LEAD: Duration = Duration::from_millis(50);

fn unix_ns(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i64)
}

/// Start a step on every rank at once: barrier; rank 0 broadcasts a wall-clock instant
/// [`START_LEAD`] ahead; each rank sleeps until it on its own clock and notes when it woke; rank 0
/// gathers those and reports the spread. A single process starts now. Across hosts the instant is
/// only as common as the hosts' clocks (NTP/PTP): the skew reported is measured on each rank's own
/// clock, so it shows wake-up jitter, not clock offsets (`docs/iogen-mpi.md`).
pub fn start_together(c: &dyn Cluster) -> anyhow::Result<StartReport> {
    if c.size() == 1 {
        return Ok(StartReport { at: Instant::now(), skew: Some((Duration::ZERO, Duration::ZERO)) });
    }
    c.barrier();
    let proposed = unix_ns(SystemTime::now() + START_LEAD).to_le_bytes();
    let t0 = i64::from_le_bytes(c.broadcast(&proposed)[..].try_into().context("start instant")?);
    // The agreed wall-clock instant, mapped onto this rank's monotonic clock once.
    let (now_wall, now_mono) = (unix_ns(SystemTime::now()), Instant::now());
    let ahead = Duration::from_nanos((t0 - now_wall).max(0) as u64);
    let at = now_mono + ahead;
    sleep_until(at);
    let woke = unix_ns(SystemTime::now());
    let skew = c.gather(&woke.to_le_bytes()).map(|all| {
        let times: Vec<i64> = all.iter().map(|b| i64::from_le_bytes(b[..8].try_into().expect("8 bytes"))).collect();
        let (min, max) = (times.iter().min().copied().unwrap_or(t0), times.iter().max().copied().unwrap_or(t0));
        (Duration::from_nanos((max - min).max(0) as u64), Duration::from_nanos((max - t0).max(0) as u64))
    });
    Ok(StartReport { at, skew })
}

/// Sleep until `at` (no spinning: ranks sharing a host's cores would keep each other from waking).
fn sleep_until(at: Instant) {
    loop {
        let now = Instant::now();
        if now >= at {
            return;
        }
        std::thread::sleep(at - now);
    }
}

/// Rank 0's part of a step: the aggregate, and where its rows go.
pub struct Root<'w> {
    /// Merges and decides.
    pub aggregate: StepAggregate,
    /// What identifies the step in every row (its `host` is replaced per row).
    pub info: StepInfo,
    /// Writes a subinterval's rows.
    pub write: &'w mut dyn FnMut(&[Record]) -> anyhow::Result<()>,
    /// The ranks' last messages, decoded (reused: see [`wire::decode_into`]).
    pub received: Vec<wire::RankSubinterval>,
}

/// The [`CloseSink`] of a step run by several ranks: at each close, every rank's subinterval goes
/// to rank 0, rank 0 decides for all and broadcasts, then writes the rows (the other ranks are
/// already back at work).
pub struct ClusterSink<'c, 'w> {
    cluster: &'c dyn Cluster,
    root: Option<Root<'w>>,
    /// Time spent in the exchange (this rank), for `docs/benchmarks.md`.
    pub exchange_time: Duration,
    /// Bytes this rank sent per close (last one).
    pub last_message_bytes: usize,
}

impl<'c, 'w> ClusterSink<'c, 'w> {
    /// `root` on rank 0 only.
    pub fn new(cluster: &'c dyn Cluster, root: Option<Root<'w>>) -> Self {
        ClusterSink { cluster, root, exchange_time: Duration::ZERO, last_message_bytes: 0 }
    }

    /// The aggregate (rank 0), after the step.
    pub fn into_root(self) -> Option<Root<'w>> {
        self.root
    }
}

impl CloseSink for ClusterSink<'_, '_> {
    fn closed(&mut self, report: &SubintervalReport, verdict: Verdict) -> anyhow::Result<Decision> {
        let began = Instant::now();
        let bytes = wire::encode(report, verdict);
        self.last_message_bytes = bytes.len();
        let gathered = self.cluster.gather(&bytes);
        let mut pending = None;
        let mut flags = [0u8; 1];
        if let (Some(all), Some(root)) = (gathered, self.root.as_mut()) {
            root.received.resize_with(all.len(), Default::default);
            for (r, (b, out)) in all.iter().zip(root.received.iter_mut()).enumerate() {
                wire::decode_into(b, r, out)?;
            }
            let combined = root.aggregate.combine(&root.received)?;
            flags[0] = u8::from(combined.decision.end) | u8::from(combined.decision.interrupted) << 1;
            pending = Some(combined);
        }
        let flags = self.cluster.broadcast(&flags);
        let decision = Decision { end: flags[0] & 1 != 0, interrupted: flags[0] & 2 != 0 };
        self.exchange_time += began.elapsed();
        if let (Some(combined), Some(root)) = (pending, self.root.as_mut()) {
            let rows = root.aggregate.rows(&root.info, &root.received, &combined);
            (root.write)(&rows)?;
        }
        Ok(decision)
    }

    fn cut_on_stop(&self) -> bool {
        true
    }
}

/// Options of one rank for a step: `--iops` is the total, so each rank offers its share, with its
/// own seed; a `{rank}`/`{host}` template in `--target` names this rank's target.
pub fn rank_options(o: &Options, rank: usize, ranks: usize, host: &str) -> Options {
    Options {
        iops: rate_share(o.iops, ranks),
        seed: rank_seed(o.seed, rank),
        target: expand_target(&o.target, rank, host),
        ..o.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_disjoint_and_cover_the_target() {
        for (blocks, n) in [(10u64, 3usize), (3, 3), (1_000_003, 7), (5, 1)] {
            let mut next = 0;
            for p in 0..n {
                let (first, len) = region(blocks, p, n);
                assert_eq!(first, next, "{blocks} blocks, rank {p} of {n}");
                assert!(len >= blocks / n as u64 && len <= blocks / n as u64 + 1);
                next = first + len;
            }
            assert_eq!(next, blocks);
        }
    }

    #[test]
    fn templates_name_each_ranks_target() {
        let t = Path::new("/data/{host}/iogen-{rank}.dat");
        assert_eq!(expand_target(t, 2, "lab1"), PathBuf::from("/data/lab1/iogen-2.dat"));
        assert!(is_template(t) && !is_template(Path::new("/dev/sdb")));
        assert_eq!(expand_target(Path::new("/dev/sdb"), 5, "x"), PathBuf::from("/dev/sdb"));
    }

    #[test]
    fn the_rate_is_shared_and_seeds_differ() {
        assert_eq!(rate_share(Iops::Rate(30_000.0), 3), Iops::Rate(10_000.0));
        assert_eq!(rate_share(Iops::Max, 3), Iops::Max);
        assert_eq!(rank_seed(42, 0), 42);
        let seeds: std::collections::HashSet<u64> = (0..1000).map(|r| rank_seed(42, r)).collect();
        assert_eq!(seeds.len(), 1000);
    }

    #[test]
    fn launchers_are_recognised_from_their_environment() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(launched_ranks(&env(&[("OMPI_COMM_WORLD_SIZE", "3")])), Some(3));
        assert_eq!(launched_ranks(&env(&[("PMI_SIZE", "8")])), Some(8));
        assert_eq!(launched_ranks(&env(&[("SLURM_NTASKS", "4")])), None, "a batch script, not a task");
        assert_eq!(launched_ranks(&env(&[("SLURM_NTASKS", "4"), ("SLURM_STEP_ID", "0")])), Some(4));
        assert_eq!(launched_ranks(&env(&[])), None);
    }

    #[test]
    fn solo_agrees_with_itself() {
        assert_eq!(agree(&Solo, "h", Ok(())), Ok(()));
        assert_eq!(agree(&Solo, "h", Err((2, "--target x: refused".into()))), Err((2, "--target x: refused".into())));
        assert_eq!(all_gather_strings(&Solo, "h1").unwrap(), vec!["h1".to_string()]);
        let s = start_together(&Solo).unwrap();
        assert_eq!(s.skew, Some((Duration::ZERO, Duration::ZERO)));
    }
}
