//! How late a sleeping thread wakes, for the candidates to lower iogen's launch lag that need no
//! change of iogen to compare: timer slack (the kernel's default 50 µs vs the 1 ns iogen asks
//! for), a relative sleep (what `std::thread::sleep` does) vs `clock_nanosleep(TIMER_ABSTIME)`,
//! and a short EEVDF time slice (`sched_setattr` with `sched_runtime`, Linux ≥ 6.12).
//!
//! Each variant sleeps `--sleeps` times for `--gap-us` and records wake-up − deadline; variants
//! alternate, `--rounds` times, and the table shows medians over the rounds (the range of the
//! per-round mean in brackets). `--cpu N` pins this thread to CPU N (to force it to share a CPU
//! with a load pinned there). Results: docs/benchmarks.md, iogen section.
//!
//! `cargo run --release --example wake_overshoot -- --rounds 5 --sleeps 1000 --gap-us 2000`

use std::time::Duration;

/// `struct sched_attr` (include/uapi/linux/sched/types.h), `SCHED_ATTR_SIZE_VER0`.
#[repr(C)]
#[derive(Default)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
}

/// Request a slice of `ns` for this (SCHED_OTHER) thread; 0: the kernel's default. Returns the
/// slice the kernel then reports.
fn set_slice(ns: u64) -> u64 {
    let size = size_of::<SchedAttr>() as u32;
    let attr = SchedAttr { size, sched_runtime: ns, ..SchedAttr::default() };
    let mut back = SchedAttr::default();
    // SAFETY: pid 0 is this thread; the structs are valid sched_attr of the stated size.
    unsafe {
        if libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0u32) != 0 {
            panic!("sched_setattr: {}", std::io::Error::last_os_error());
        }
        libc::syscall(libc::SYS_sched_getattr, 0, &mut back as *mut SchedAttr, size, 0u32);
    }
    back.sched_runtime
}

fn set_slack(ns: u64) {
    // SAFETY: changes only this thread's timer slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0 as libc::c_ulong, 0 as libc::c_ulong, 0) };
}

fn now_ns() -> i64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes into `t` only.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec * 1_000_000_000 + t.tv_nsec
}

struct Variant {
    label: &'static str,
    slack_ns: u64,
    absolute: bool,
    slice_ns: u64,
}

/// Overshoot of each of `n` sleeps of `gap_ns`, in µs.
fn measure(v: &Variant, n: usize, gap_ns: i64) -> Vec<f64> {
    set_slack(v.slack_ns);
    set_slice(v.slice_ns);
    let mut over = Vec::with_capacity(n);
    for _ in 0..n {
        let deadline = now_ns() + gap_ns;
        if v.absolute {
            let ts = libc::timespec { tv_sec: deadline / 1_000_000_000, tv_nsec: deadline % 1_000_000_000 };
            // SAFETY: a valid timespec; no remainder is asked for.
            unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &ts, std::ptr::null_mut()) };
        } else {
            let left = deadline - now_ns();
            if left > 0 {
                std::thread::sleep(Duration::from_nanos(left as u64));
            }
        }
        over.push((now_ns() - deadline) as f64 / 1000.0);
    }
    set_slice(0);
    over
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    quantile(&xs, 0.5)
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    match args.iter().position(|a| a == name) {
        Some(i) => args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{name}: a whole number")),
        None => default,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds = arg(&args, "--rounds", 5) as usize;
    let n = arg(&args, "--sleeps", 1000) as usize;
    let gap_ns = arg(&args, "--gap-us", 2000) as i64 * 1000;
    if let Some(i) = args.iter().position(|a| a == "--cpu") {
        let cpu: usize = args.get(i + 1).and_then(|v| v.parse().ok()).expect("--cpu: a CPU number");
        // SAFETY: a zeroed cpu_set_t with one CPU set, applied to this thread.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            assert_eq!(libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set), 0, "--cpu {cpu}");
        }
    }
    if set_slice(100_000) != 100_000 {
        eprintln!("this kernel keeps no custom slice (before Linux 6.12): the slice row equals the one above it");
    }
    let variants = [
        Variant {
            label: "timer slack 50 µs (kernel default), relative sleep",
            slack_ns: 50_000,
            absolute: false,
            slice_ns: 0,
        },
        Variant { label: "timer slack 1 ns (iogen), relative sleep", slack_ns: 1, absolute: false, slice_ns: 0 },
        Variant { label: "timer slack 1 ns, clock_nanosleep TIMER_ABSTIME", slack_ns: 1, absolute: true, slice_ns: 0 },
        Variant {
            label: "timer slack 1 ns, relative sleep, slice 100 µs",
            slack_ns: 1,
            absolute: false,
            slice_ns: 100_000,
        },
    ];
    // Per variant, per round: mean, p50, p90, p99, max.
    let mut stats: Vec<Vec<[f64; 5]>> = vec![Vec::new(); variants.len()];
    for round in 0..rounds {
        for k in 0..variants.len() {
            let i = (k + round) % variants.len();
            let mut o = measure(&variants[i], n, gap_ns);
            o.sort_by(f64::total_cmp);
            let mean = o.iter().sum::<f64>() / o.len() as f64;
            stats[i].push([mean, quantile(&o, 0.5), quantile(&o, 0.9), quantile(&o, 0.99), quantile(&o, 1.0)]);
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("{rounds} rounds × {n} sleeps of {} µs; load average after: {}", gap_ns / 1000, load.trim());
    println!();
    println!("| variant | overshoot mean µs | p50 µs | p90 µs | p99 µs | max µs |");
    println!("|---|--:|--:|--:|--:|--:|");
    for (v, s) in variants.iter().zip(&stats) {
        let col = |j: usize| median(s.iter().map(|r| r[j]).collect());
        let means: Vec<f64> = s.iter().map(|r| r[0]).collect();
        let (lo, hi) = means.iter().fold((f64::MAX, f64::MIN), |(a, b), &m| (a.min(m), b.max(m)));
        println!(
            "| {} | {:.1} ({:.1}–{:.1}) | {:.1} | {:.1} | {:.1} | {:.0} |",
            v.label,
            col(0),
            lo,
            hi,
            col(1),
            col(2),
            col(3),
            col(4)
        );
    }
}
