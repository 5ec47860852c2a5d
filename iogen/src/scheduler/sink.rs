//! Closing a subinterval: what one rank saw ([`Verdict`]), where the row goes and who decides
//! whether the step goes on ([`CloseSink`]: the output alone, or an exchange with the other ranks).

use super::SubintervalReport;

/// What one rank saw when a subinterval closed: the reasons it has to end the step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Verdict {
    /// The seen-enough rule holds on this rank's own series (a cluster decides on the aggregate).
    pub seen_enough: bool,
    /// The measurement reached its longest length.
    pub full: bool,
    /// SIGINT/SIGTERM arrived.
    pub interrupted: bool,
    /// The target is full (ENOSPC).
    pub disk_full: bool,
}

impl Verdict {
    /// Whether a single process ends the step on this verdict.
    pub fn ends_step(&self) -> bool {
        self.seen_enough || self.full || self.interrupted || self.disk_full
    }
}

/// What a [`CloseSink`] decided for the subinterval that closed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Decision {
    /// The step ends with this subinterval.
    pub end: bool,
    /// It ends because of SIGINT/SIGTERM (on any rank of a cluster): the run stops after it.
    pub interrupted: bool,
}

/// Where closed subintervals go and who decides whether the step goes on: the output alone for a
/// single process ([`run_step`]), an exchange with the other ranks in a cluster
/// (`crate::cluster`), where every rank must get the same decision for the same subinterval.
pub trait CloseSink {
    /// Subinterval `report` closed on this rank with `verdict`; returns the decision.
    fn closed(&mut self, report: &SubintervalReport, verdict: Verdict) -> anyhow::Result<Decision>;

    /// Whether SIGINT/SIGTERM cuts the current subinterval short (its row says how long it was)
    /// rather than ending the step at its end. A single process finishes the row; MPI launchers
    /// kill the ranks a second after forwarding the signal (Open MPI's `odls_base_sigkill_timeout`).
    fn cut_on_stop(&self) -> bool {
        false
    }
}

/// The single-process sink: hand the row to `on_row`; the step ends on this process's own verdict.
pub struct LocalSink<'f>(pub &'f mut dyn FnMut(&SubintervalReport) -> anyhow::Result<()>);

impl CloseSink for LocalSink<'_> {
    fn closed(&mut self, report: &SubintervalReport, verdict: Verdict) -> anyhow::Result<Decision> {
        (self.0)(report)?;
        Ok(Decision { end: verdict.ends_step(), interrupted: verdict.interrupted })
    }
}
