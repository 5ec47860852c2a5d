//! What the user must know about a finished step to read its numbers right (stderr).

use crate::options::Options;
use crate::scheduler::{SeenEnoughStatus, StepOutcome};
use crate::stats::CategoryStats;

/// Share of the mean service time above which iogen's own launch lag is worth a warning: beyond
/// it the lag, which is in every response time, is no longer small next to what is measured.
const LAG_WARNING_SHARE: f64 = 0.10;

/// iogen's mean launch lag / mean service time (None without on-time IOs or service times).
fn lag_share_of_service(c: &CategoryStats) -> Option<f64> {
    let (lag, service) = (c.lag_ms()?, c.service_ms()?);
    (service.avg > 0.0).then(|| lag.avg / service.avg)
}

/// Warn about step `number` (`under_fifo`: the step ran with the launching thread under
/// `SCHED_FIFO`): behind schedule, a full target, why `--seen-enough` did not hold, steady state in
/// doubt, a launch lag large next to the service time.
pub(super) fn warn_about(number: usize, o: &Options, outcome: &StepOutcome, under_fifo: bool) {
    if outcome.behind_s > 0.1 {
        eprintln!(
            "iogen: step {number} ended {:.3} s behind schedule: the target (or this host) could not sustain the \
             requested rate at queue depth {}; arrivals still waiting were not issued (see late_ios and response times)",
            outcome.behind_s, o.queue_depth
        );
    }
    if outcome.disk_full {
        eprintln!("iogen: step {number} ended early: the target is full (ENOSPC)");
    }
    if let SeenEnoughStatus::On { result: Some(r) } = &outcome.seen_enough {
        if let Some(why) = r.why_not_text() {
            eprintln!("iogen: step {number}: not seen enough: {why} (docs/functions/SEEN_ENOUGH.md, \"Why not\")");
        }
        if r.warnings.any() {
            eprintln!(
                "iogen: step {number}: steady state is in doubt: {} (docs/seen-enough.md)",
                r.warnings.texts().join("; ")
            );
        }
    }
    // The null engine has no service time to compare with (it completes inside submit).
    let share = if outcome.engine == "null" { None } else { lag_share_of_service(&outcome.measure.overall) };
    if let Some(share) = share {
        if share > LAG_WARNING_SHARE {
            let remedy = if under_fifo { "--spin-us" } else { "--rt-priority, --spin-us" };
            eprintln!(
                "iogen: step {number}: iogen's own launch lag (iogen_lag_ms_avg) is {:.0} % of the mean service time; \
                 response times include it (a busy host? see {remedy} and iogen/README.md)",
                share * 100.0
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::OpKind;
    use crate::stats::{IntervalStats, IoTimes, Launch};

    #[test]
    fn lag_share_is_mean_lag_over_mean_service() {
        let mut s = IntervalStats::default();
        // Service 100 µs each; lag 5 and 15 µs on the on-time IOs, a late IO adds no lag.
        for (lag_ns, launch) in [(5_000, true), (15_000, true), (0, false)] {
            let launch = if launch { Launch::OnTime { lag_ns } } else { Launch::Late };
            s.record(OpKind::Read, 4096, IoTimes { service_ns: 100_000, response_ns: 200_000, launch });
        }
        let share = lag_share_of_service(&s.overall).unwrap();
        assert!((share - 0.10).abs() < 1e-12, "{share}");
        assert!(lag_share_of_service(&IntervalStats::default().overall).is_none());
    }
}
