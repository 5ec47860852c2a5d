//! Raw response times of every measured IO, for tests that check merged percentiles.

use anyhow::Context;

use crate::scheduler::StepOutcome;

/// Environment variable (tests only) naming a file, `{rank}` replaced, to which each rank writes
/// `subinterval,response_ns` for every measured IO: the raw latencies the merged percentiles are
/// checked against.
pub(super) const RAW_LATENCIES_ENV: &str = "IOGEN_TEST_RAW_LATENCIES";

/// Whether the raw latencies are asked for.
pub(super) fn wanted() -> bool {
    std::env::var_os(RAW_LATENCIES_ENV).is_some()
}

/// Write this rank's raw measured response times (tests: [`RAW_LATENCIES_ENV`]).
pub(super) fn write_raw_latencies(rank: usize, outcome: &StepOutcome) -> anyhow::Result<()> {
    let Some(path) = std::env::var_os(RAW_LATENCIES_ENV) else { return Ok(()) };
    let path = path.to_string_lossy().replace("{rank}", &rank.to_string());
    let mut text = String::from("subinterval,response_ns\n");
    for (sub, ns) in &outcome.raw {
        text.push_str(&format!("{sub},{ns}\n"));
    }
    std::fs::write(&path, text).with_context(|| format!("writing {path}"))
}
