//! The quiet-machine recordings of `tests/fixtures/steady-state-real/` (README, "Quiet machine")
//! replayed through iogen's rule as iogen asks it: after every subinterval, its length known. Where
//! the warm-up ends is found from the raw series by methods that do not involve the rule (the same
//! ones as the fixture's analyse.py and the TypeScript replay, tests/core/seen-enough-real.test.ts);
//! the rule's answers are held to it with margins, not to exact stops.

use iogen::seen_enough::{BoundBy, Refusal, SeenEnough, SeenEnoughSpec, Transient, DEFAULT_SEEN_ENOUGH};
use std::path::Path;

/// IOPS per subinterval from a fio iops log (`time_ms, iops, …`).
fn fio_log(file: &str) -> Vec<f64> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/steady-state-real").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(|l| l.split(',').nth(1).and_then(|v| v.trim().parse().ok()).expect("an IOPS value")).collect()
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// The 1-s reading of a 100-ms series: means of 10 consecutive values.
fn per_second(x: &[f64]) -> Vec<f64> {
    x.chunks_exact(10).map(mean).collect()
}

/// Seconds: the end of the first 10-s stretch of per-second values within 5 % of the last 60 s' mean.
fn warmup_end(per_sec: &[f64]) -> usize {
    let level = mean(&per_sec[per_sec.len() - 60..]);
    (0..=per_sec.len() - 10)
        .find(|&k| (mean(&per_sec[k..k + 10]) / level - 1.0).abs() <= 0.05)
        .map(|k| k + 10)
        .expect("the series reaches its final level")
}

/// Seconds: the first second above the midpoint between the first 10 s' mean and the last 60 s' mean.
fn step_time(per_sec: &[f64]) -> usize {
    let midpoint = (mean(&per_sec[..10]) + mean(&per_sec[per_sec.len() - 60..])) / 2.0;
    per_sec.iter().position(|&v| v > midpoint).expect("a step") + 1
}

/// First stop (samples) and the answer then, or at the last sample; whether "cut moving" was raised.
fn replay(spec: SeenEnoughSpec, x: &[f64], subinterval_s: f64) -> (Option<usize>, SeenEnough, bool) {
    let mut cut_moving = false;
    for n in 2..=x.len() {
        let r = spec.judge_timed(&x[..n], Some(subinterval_s)).expect("judged");
        cut_moving |= r.warnings.cut_moving;
        if r.seen_enough {
            return (Some(n), r, cut_moving);
        }
    }
    (None, spec.judge_timed(x, Some(subinterval_s)).expect("judged"), cut_moving)
}

#[test]
fn fresh_8g_at_100_ms_stops_after_the_warm_up_with_the_level_after_it() {
    let x = fio_log("fio-fresh-8g-100ms-f.log");
    let per_sec = per_second(&x);
    let (end, step) = (warmup_end(&per_sec), step_time(&per_sec));
    assert!((45..=70).contains(&end) && (30..=40).contains(&step), "warm-up end {end} s, step {step} s");
    assert!(mean(&per_sec[..30]) / mean(&per_sec[per_sec.len() - 60..]) < 0.7);

    let (stop, r, _) = replay(DEFAULT_SEEN_ENOUGH, &x, 0.1);
    let stop = stop.expect("the 100-ms reading stops once settled");
    assert_eq!((r.min_window, r.bound_by), (900, BoundBy::Seconds));
    assert!(stop as f64 * 0.1 >= end as f64, "stopped at {stop} samples, warm-up ends at {end} s");
    // The window may start inside the step (the level moves over a few seconds), not before it.
    assert!((r.from - 1) as f64 * 0.1 >= step as f64 - 5.0, "window from sample {}", r.from);
    let after = mean(&x[end * 10..stop]);
    assert!((r.level / after - 1.0).abs() <= 0.05, "level {} against {after} after the warm-up", r.level);

    // The 1-s reading of the same run: no stop before the warm-up ends, and a stop keeps it out.
    let (stop_1s, r_1s, _) = replay(DEFAULT_SEEN_ENOUGH, &per_sec, 1.0);
    if let Some(n) = stop_1s {
        assert!(n >= end && r_1s.from - 1 + 5 >= step, "1 s: stopped at {n} s, window from {} s", r_1s.from - 1);
    }

    // Without the transient check the same replay stops before the step, at the warm-up's level.
    let off = SeenEnoughSpec { transient: Transient::Off, ..DEFAULT_SEEN_ENOUGH };
    let (stop_off, r_off, _) = replay(off, &x, 0.1);
    let stop_off = stop_off.expect("the precision-only rule stops");
    assert!((stop_off as f64) * 0.1 < step as f64, "precision-only stop at {stop_off} samples");
    assert!(r_off.mean / mean(&x[end * 10..]) < 0.8, "precision-only mean {}", r_off.mean);
}

#[test]
fn shrinking_noise_never_stops_with_the_disturbed_start_in_the_window() {
    let x = fio_log("fio-disturbed-2g-100ms-h.log");
    // The disturber ran for the first 100 s (its --runtime=100, README).
    const DISTURBED_S: f64 = 100.0;
    for (series, dt) in [(x.clone(), 0.1), (per_second(&x), 1.0)] {
        let (stop, r, cut_moving) = replay(DEFAULT_SEEN_ENOUGH, &series, dt);
        match stop {
            Some(n) => {
                let from = (r.from - 1) as f64 * dt;
                assert!(from >= DISTURBED_S - 5.0, "{dt} s: window from {from} s");
                assert!(n as f64 * dt - from >= 90.0, "{dt} s: stopped at {n} with the window from {from} s");
            }
            // Not stopped: while its cut kept moving after the disturber had gone, it said so.
            None => assert!(cut_moving, "{dt} s: no stop and no cut-moving warning"),
        }
    }
}

/// H does not stop (the 139 s after the disturber drift upwards: README), and at the end of the run
/// no non-stationarity warning is raised; the answer says why it is not seen enough: the level is
/// still rising, its trend over the limit, judged on all the samples.
#[test]
fn shrinking_noise_that_will_not_stop_says_why_at_the_end() {
    let x = fio_log("fio-disturbed-2g-100ms-h.log");
    for (series, dt) in [(x.clone(), 0.1), (per_second(&x), 1.0)] {
        let (stop, r, _) = replay(DEFAULT_SEEN_ENOUGH, &series, dt);
        if stop.is_some() {
            continue;
        }
        let why = r.why_not.unwrap_or_else(|| panic!("{dt} s: not seen enough and no reason"));
        assert_eq!(why.refusal, Refusal::LevelMoving, "{dt} s: {why:?}");
        assert!(why.value > why.limit, "{dt} s: rising, t over the limit: {why:?}");
        assert_eq!(why.at, series.len(), "{dt} s: judged on every sample");
        let text = r.why_not_text().expect("a reason in words");
        assert!(
            text.starts_with("level moving: the level is still rising (trend t = ")
                && text.ends_with("against a limit of 1.5)"),
            "{dt} s: {text}"
        );
    }
}
