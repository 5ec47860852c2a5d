//! iogen: an open-loop IO load generator.
//!
//! Pipeline: [`cli`] parses the command line into [`options::Options`], [`run`] runs the steps:
//! [`target`] opens (and if needed lays out) the target, [`scheduler`] runs the arrival process
//! against an [`engine::Engine`] and collects [`stats`], and [`output`] turns rows into CSV, JSON
//! or a table.

pub mod arrivals;
pub mod cli;
pub mod cluster;
pub mod cpu;
pub mod engine;
pub mod options;
pub mod output;
pub mod plan;
pub mod precondition;
pub mod preflight;
pub mod realtime;
pub mod run;
pub mod scheduler;
pub mod seen_enough;
pub mod stats;
pub mod target;
pub mod workload;
