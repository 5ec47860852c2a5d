//! The steps of a run: one from the command line alone (`run`), or one per plan row, each with
//! its name and label values.

use std::path::Path;

use crate::cli::RunArgs;
use crate::options::{Iops, Options};
use crate::output::format_float;
use crate::plan::read_plan;

/// One step to run.
pub(super) struct Step {
    /// This rank's options (its share of the rate, its seed, its target).
    pub(super) opts: Options,
    /// `--iops` as given: the total over all ranks, written in `target_iops`.
    pub(super) total_iops: Iops,
    pub(super) name: String,
    pub(super) labels: Vec<String>,
}

/// Steps from the command line alone (`run`) or from a plan; label keys are the `--label` keys,
/// then the plan's label columns.
pub(super) fn build_steps(
    args: &RunArgs,
    base: &Options,
    plan: Option<&Path>,
) -> anyhow::Result<(Vec<String>, Vec<Step>)> {
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in &args.labels {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    let cli_values = |keys: &[String]| -> Vec<String> {
        keys.iter()
            .map(|k| args.labels.iter().rev().find(|(kk, _)| kk == k).map(|(_, v)| v.clone()).unwrap_or_default())
            .collect()
    };
    let Some(path) = plan else {
        let labels = cli_values(&keys);
        let step = Step { name: default_name(base), opts: base.clone(), total_iops: base.iops, labels };
        return Ok((keys, vec![step]));
    };
    let plan = read_plan(path, base)?;
    let mut plan_index = Vec::new();
    for k in &plan.label_keys {
        match keys.iter().position(|x| x == k) {
            Some(i) => plan_index.push(i),
            None => {
                plan_index.push(keys.len());
                keys.push(k.clone());
            }
        }
    }
    let steps = plan
        .steps
        .into_iter()
        .map(|s| {
            let mut labels = cli_values(&keys);
            for (j, v) in s.labels.into_iter().enumerate() {
                labels[plan_index[j]] = v;
            }
            Step {
                name: s.name.unwrap_or_else(|| default_name(&s.opts)),
                total_iops: s.opts.iops,
                opts: s.opts,
                labels,
            }
        })
        .collect();
    Ok((keys, steps))
}

/// A descriptive step name, e.g. `4KiB-r70-rand100-qd16-5000iops`.
fn default_name(o: &Options) -> String {
    let bs = o.block_size;
    let size = if bs.is_multiple_of(1 << 20) {
        format!("{}MiB", bs >> 20)
    } else if bs.is_multiple_of(1024) {
        format!("{}KiB", bs >> 10)
    } else {
        format!("{bs}B")
    };
    let iops = match o.iops {
        Iops::Max => "max".to_string(),
        Iops::Rate(r) => format!("{}iops", format_float(r)),
    };
    format!("{size}-r{}-rand{}-qd{}-{iops}", format_float(o.read_pct), format_float(o.random_pct), o.queue_depth)
}
