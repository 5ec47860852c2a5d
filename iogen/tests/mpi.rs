//! The binary under MPI: `mpirun -n 3` on one machine, null and sync engines, temp files.
//! Built only with `--features mpi` (`npm run test:iogen` runs it). mpirun must be installed:
//! a missing launcher fails these tests, it never skips them.
#![cfg(feature = "mpi")]

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

type Row = HashMap<String, String>;

const RANKS: usize = 3;

/// `mpirun -n N … iogen ARGS` (root allowed, more ranks than cores allowed), with `env`.
fn mpirun(n: usize, args: &[&str], env: &[(&str, &Path)]) -> Command {
    let found = Command::new("mpirun").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
    assert!(
        found.is_ok_and(|s| s.success()),
        "mpirun not found: install openmpi-bin (these tests fail rather than skip without it)"
    );
    let mut c = Command::new("mpirun");
    c.args(["--allow-run-as-root", "--oversubscribe", "-n", &n.to_string()]);
    for (k, v) in env {
        c.arg("-x").arg(format!("{k}={}", v.display()));
    }
    c.arg(assert_cmd::cargo::cargo_bin("iogen")).args(args);
    c
}

fn run(n: usize, args: &[&str], env: &[(&str, &Path)]) -> Output {
    mpirun(n, args, env).output().unwrap()
}

fn read_csv(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "{} does not end with a whole line", path.display());
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    rdr.records()
        .map(|r| {
            let r = r.unwrap();
            assert_eq!(r.len(), header.len(), "a line with a different number of cells");
            header.iter().cloned().zip(r.iter().map(String::from)).collect()
        })
        .collect()
}

fn num(row: &Row, col: &str) -> f64 {
    row[col].parse().unwrap_or_else(|_| panic!("{col} = '{}'", row[col]))
}

fn hostname() -> String {
    iogen::cli::hostname()
}

/// The overall rows of one subinterval CSV, by (phase, subinterval), each with its rows by host.
fn by_subinterval(rows: &[Row]) -> BTreeMap<(String, u64), BTreeMap<String, Row>> {
    let mut out: BTreeMap<(String, u64), BTreeMap<String, Row>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r["category"] == "overall") {
        let key = (r["phase"].clone(), num(r, "subinterval") as u64);
        out.entry(key).or_default().insert(r["host"].clone(), r.clone());
    }
    out
}

#[test]
fn three_ranks_offer_the_total_rate_in_one_csv_with_exactly_merged_latencies() {
    let dir = tempfile::tempdir().unwrap();
    let (t, s, sum) = (dir.path().join("t.dat"), dir.path().join("s.csv"), dir.path().join("sum.csv"));
    let raw = dir.path().join("raw-{rank}.csv");
    let out = run(
        RANKS,
        &[
            "run",
            "--engine",
            "null",
            "--size",
            "1MiB",
            "--iops",
            "30000",
            "--warmup",
            "500ms",
            "--duration",
            "3s",
            "--subinterval",
            "1s",
            "--spin-us",
            "0",
            "--target",
            t.to_str().unwrap(),
            "--csv",
            s.to_str().unwrap(),
            "--summary",
            sum.to_str().unwrap(),
        ],
        &[("IOGEN_TEST_RAW_LATENCIES", &raw)],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("started on 3 ranks together: start skew"), "{stderr}");
    let rows = read_csv(&s);
    let host = hostname();
    let ranks: Vec<String> = (1..=RANKS).map(|k| format!("{host}#{k}")).collect();
    let subs = by_subinterval(&rows);
    // One warm-up and three measured subintervals, each with 3 ranks' rows and `all`, 3 categories.
    assert_eq!(rows.len(), 4 * (RANKS + 1) * 3);
    assert_eq!(subs.len(), 4);
    let mut measured_ios = 0.0;
    for ((phase, k), hosts) in &subs {
        let names: Vec<&String> = hosts.keys().collect();
        let mut expected: Vec<&String> = ranks.iter().collect();
        let all = "all".to_string();
        expected.push(&all);
        expected.sort();
        assert_eq!(names, expected, "{phase} {k}");
        // Identical boundaries on every rank.
        let a = &hosts["all"];
        for h in hosts.values() {
            assert_eq!((&h["start_s"], &h["seconds"]), (&a["start_s"], &a["seconds"]), "{phase} {k}");
            assert_eq!(num(h, "target_iops"), 30000.0);
        }
        if phase == "measure" {
            // Poisson at 30,000/s over 1 s: sd 0.6 %; ±2 % is 3.4 sd.
            let iops = num(a, "iops");
            assert!((iops - 30000.0).abs() <= 600.0, "{phase} {k}: all {iops}");
            let sum: f64 = ranks.iter().map(|r| num(&hosts[r], "iops")).sum();
            assert!((sum - iops).abs() < 1e-6 * iops, "the all row is the sum of the ranks'");
            for r in &ranks {
                let x = num(&hosts[r], "iops");
                assert!((x - 10000.0).abs() <= 500.0, "{phase} {k}: {r} {x}");
            }
            measured_ios += iops;
        }
    }
    assert!((measured_ios / 3.0 - 30000.0).abs() <= 300.0, "mean {}", measured_ios / 3.0);
    // The merged p99 of every measured subinterval is the p99 of the union of the ranks' raw
    // response times: the same HdrHistogram (3 digits) built from them, and within its
    // resolution of the exact order statistic.
    let mut union: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for r in 0..RANKS {
        let path = dir.path().join(format!("raw-{r}.csv"));
        for line in std::fs::read_to_string(&path).unwrap().lines().skip(1) {
            let (k, ns) = line.split_once(',').unwrap();
            union.entry(k.parse().unwrap()).or_default().push(ns.parse().unwrap());
        }
    }
    assert_eq!(union.len(), 3);
    for (k, mut ns) in union {
        let all = &subs[&("measure".to_string(), k)]["all"];
        assert_eq!(ns.len() as f64, num(all, "iops") * num(all, "seconds"), "subinterval {k}: IOs");
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
        for &x in &ns {
            h.record(x.max(1)).unwrap();
        }
        let ms = |v: u64| iogen::output::format_float(v as f64 / 1e6);
        assert_eq!(all["response_ms_p99"], ms(h.value_at_quantile(0.99)), "subinterval {k}");
        assert_eq!(all["response_ms_max"], ms(h.max()), "subinterval {k}");
        ns.sort_unstable();
        let exact = ns[(0.99 * ns.len() as f64).ceil() as usize - 1] as f64;
        let merged = num(all, "response_ms_p99") * 1e6;
        assert!((merged - exact).abs() <= exact * 1e-3 + 1.0, "subinterval {k}: {merged} vs exact {exact}");
    }
    // The summary: each rank's row and the all row, over the same measurement.
    let summary = read_csv(&sum);
    assert_eq!(summary.len(), (RANKS + 1) * 3);
    let all = summary.iter().find(|r| r["host"] == "all" && r["category"] == "overall").unwrap();
    assert!((num(all, "iops") - 30000.0).abs() <= 300.0, "{}", all["iops"]);
    assert_eq!(num(all, "measure_seconds"), 3.0);
}

#[test]
fn seen_enough_ends_the_step_in_the_same_subinterval_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let (t, s) = (dir.path().join("t.dat"), dir.path().join("s.csv"));
    let raw = dir.path().join("raw-{rank}.csv");
    let out = run(
        RANKS,
        &[
            "run",
            "--engine",
            "null",
            "--size",
            "1MiB",
            "--iops",
            "6000",
            "--warmup",
            "0s",
            "--subinterval",
            "200ms",
            "--seen-enough",
            "5%@95%",
            "--seen-enough-min",
            "3",
            // The precision rule alone: the test is about every rank stopping together, soon.
            "--seen-enough-transient",
            "off",
            "--max-duration",
            "20s",
            "--spin-us",
            "0",
            "--target",
            t.to_str().unwrap(),
            "--csv",
            s.to_str().unwrap(),
        ],
        &[("IOGEN_TEST_RAW_LATENCIES", &raw)],
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let subs = by_subinterval(&read_csv(&s));
    let last = subs.keys().map(|(_, k)| *k).max().unwrap();
    assert!(last < 100, "stopped early: {last} of 100 subintervals");
    // Every rank measured up to that subinterval and no further.
    for r in 0..RANKS {
        let text = std::fs::read_to_string(dir.path().join(format!("raw-{r}.csv"))).unwrap();
        let max = text.lines().skip(1).map(|l| l.split_once(',').unwrap().0.parse::<u64>().unwrap()).max();
        assert_eq!(max, Some(last), "rank {r}");
    }
    assert!(subs.values().all(|h| h.len() == RANKS + 1));
}

#[test]
fn a_target_refused_on_one_rank_stops_every_rank_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    // Rank 1's target is an existing file iogen did not lay out; writes to it are refused.
    let foreign = dir.path().join("t1.dat");
    std::fs::write(&foreign, vec![7u8; 1 << 20]).unwrap();
    let s = dir.path().join("s.csv");
    let target = dir.path().join("t{rank}.dat");
    let out = run(
        RANKS,
        &[
            "run",
            "--engine",
            "sync",
            "--size",
            "1MiB",
            "--read-pct",
            "50",
            "--iops",
            "300",
            "--warmup",
            "0s",
            "--duration",
            "1s",
            "--target",
            target.to_str().unwrap(),
            "--csv",
            s.to_str().unwrap(),
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("rank 1 on {}", hostname())), "{stderr}");
    assert!(stderr.contains("t1.dat"), "{stderr}");
    assert!(stderr.contains("every rank stopped before any IO"), "{stderr}");
    // Nothing was created on any rank, and the foreign file is untouched.
    assert!(!dir.path().join("t0.dat").exists() && !dir.path().join("t2.dat").exists());
    assert!(!s.exists());
    assert_eq!(std::fs::read(&foreign).unwrap(), vec![7u8; 1 << 20]);
}

#[test]
fn sync_engine_ranks_share_one_file_in_disjoint_regions() {
    let dir = tempfile::tempdir().unwrap();
    let (t, s) = (dir.path().join("shared.dat"), dir.path().join("s.csv"));
    let out = run(
        RANKS,
        &[
            "run",
            "--engine",
            "sync",
            "--size",
            "2MiB",
            "--read-pct",
            "70",
            "--iops",
            "1500",
            "--queue-depth",
            "4",
            "--warmup",
            "0s",
            "--duration",
            "1s",
            "--subinterval",
            "500ms",
            "--target",
            t.to_str().unwrap(),
            "--csv",
            s.to_str().unwrap(),
        ],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // One rank laid the file out, the others found it laid out (each uses a third of its blocks,
    // `cluster::region`); it is still one iogen file of the size asked for.
    assert_eq!(stderr.matches("laying out").count(), 1, "{stderr}");
    assert_eq!(std::fs::metadata(&t).unwrap().len(), 2 << 20);
    assert!(std::fs::read(&t).unwrap().starts_with(b"IOGEN-TARGET v2\n"));
    let subs = by_subinterval(&read_csv(&s));
    assert_eq!(subs.len(), 2);
    let mut ios = 0.0;
    let mut per_rank = BTreeMap::<String, f64>::new();
    for hosts in subs.values() {
        assert_eq!(hosts.len(), RANKS + 1);
        let a = &hosts["all"];
        assert_eq!(num(a, "errors"), 0.0, "{a:?}");
        assert!(hosts.values().all(|h| h["start_s"] == a["start_s"] && h["seconds"] == a["seconds"]));
        ios += num(a, "iops") * num(a, "seconds");
        for (h, row) in hosts.iter().filter(|(h, _)| *h != "all") {
            *per_rank.entry(h.clone()).or_default() += num(row, "iops") * num(row, "seconds");
        }
    }
    // Every rank did IO, and together no more than offered (1,500 IO/s for 1 s, Poisson: +4 sd).
    // Fewer is possible on a loaded machine: arrivals still due when the step ends are not issued
    // (stderr says how far behind); the rate itself is checked with the null engine above.
    assert_eq!(per_rank.len(), RANKS);
    assert!(per_rank.values().all(|&n| n > 0.0), "{per_rank:?}");
    assert!(ios <= 1500.0 + 4.0 * 1500f64.sqrt(), "{ios} IOs");
}

#[test]
fn sigint_to_mpirun_ends_every_rank_with_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    let (t, s, sum) = (dir.path().join("t.dat"), dir.path().join("s.csv"), dir.path().join("sum.csv"));
    let child = mpirun(
        RANKS,
        &[
            "run",
            "--engine",
            "null",
            "--size",
            "1MiB",
            "--iops",
            "3000",
            "--warmup",
            "0s",
            "--duration",
            "60s",
            "--subinterval",
            "500ms",
            "--target",
            t.to_str().unwrap(),
            "--csv",
            s.to_str().unwrap(),
            "--summary",
            sum.to_str().unwrap(),
        ],
        &[],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // Wait for the first rows, then interrupt the launcher as a user at the terminal would.
    let began = Instant::now();
    while std::fs::read_to_string(&s).map_or(0, |t| t.lines().count()) < 1 + (RANKS + 1) * 3 {
        assert!(began.elapsed() < Duration::from_secs(30), "no rows after 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    let sent = Instant::now();
    // SAFETY: sending SIGINT to the child we just started.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let waited = sent.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(waited < Duration::from_secs(10), "took {waited:?}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    // Whole lines only, every subinterval with every rank's rows and `all`, and the summary.
    let rows = read_csv(&s);
    assert!(!rows.is_empty() && rows.len().is_multiple_of((RANKS + 1) * 3), "{} rows", rows.len());
    assert!(by_subinterval(&rows).values().all(|h| h.len() == RANKS + 1));
    let srows = read_csv(&sum);
    assert_eq!(srows.len(), (RANKS + 1) * 3);
    // The summary says the run was cut, by the signal rank 0 received: Open MPI's mpirun ends the
    // ranks with SIGTERM when it gets SIGINT (`signal`: another rank caught one first and rank 0 none).
    let by = &srows[0]["interrupted_by"];
    assert!(by == "SIGTERM" || by == "SIGINT" || by == "signal", "{by:?}");
    assert!(srows.iter().all(|r| &r["interrupted_by"] == by), "every summary row of the cut step");
}

#[test]
fn ranks_sharing_a_file_precondition_it_once_and_every_row_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (t, s, sum) = (dir.path().join("shared.dat"), dir.path().join("s.csv"), dir.path().join("sum.csv"));
    let size = (3 << 20) + 4096;
    let args = [
        "run",
        "--engine",
        "null",
        "--size",
        &size.to_string(),
        "--read-pct",
        "50",
        "--precondition=2",
        "--warmup",
        "0s",
        "--duration",
        "1s",
        "--subinterval",
        "500ms",
        "--target",
        t.to_str().unwrap(),
        "--csv",
        s.to_str().unwrap(),
        "--summary",
        sum.to_str().unwrap(),
    ];
    let out = run(RANKS, &args, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // The first of the ranks sharing the file preconditioned all of it, once; the others found it done.
    assert_eq!(stderr.matches("iogen: preconditioned ").count(), 1, "{stderr}");
    let bytes = std::fs::read(&t).unwrap();
    assert!(bytes.starts_with(b"IOGEN-TARGET v2\n"));
    for (i, page) in bytes[4096..].chunks(4096).enumerate() {
        assert!(page.starts_with(b"iogen-precondition pass=2\n"), "page {i}");
    }
    let (rows, srows) = (read_csv(&s), read_csv(&sum));
    assert_eq!(srows.len(), 3 * (RANKS + 1), "each rank's rows and all");
    assert!(rows.iter().chain(&srows).all(|r| r["preconditioned"] == "yes" && r["interrupted_by"].is_empty()));
}
