//! Integration tests: run the `iogen` binary against the null engine and real temp files.

use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use predicates::prelude::*;

/// The columns `file` (`subinterval` or `summary`) carries, in order, from `iogen/schema/columns.json`.
fn schema_header(file: &str) -> String {
    let doc: serde_json::Value = serde_json::from_str(include_str!("../schema/columns.json")).unwrap();
    let names: Vec<&str> = doc["columns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["files"].as_array().unwrap().iter().any(|f| f == file))
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    names.join(",")
}

fn iogen() -> Command {
    Command::cargo_bin("iogen").unwrap()
}

/// `--option PATH` pairs as arguments, so each test names its files in one line.
fn path_args(options: &[(&str, &Path)]) -> Vec<std::ffi::OsString> {
    options.iter().flat_map(|(option, path)| [option.into(), path.as_os_str().to_owned()]).collect()
}

/// Rows of a CSV file as maps from column name to value; checks every line is whole.
fn read_csv(path: &Path) -> (Vec<String>, Vec<std::collections::HashMap<String, String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "{} does not end with a whole line", path.display());
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    let rows = rdr
        .records()
        .map(|r| {
            let r = r.unwrap();
            assert_eq!(r.len(), header.len(), "a line with a different number of cells");
            header.iter().cloned().zip(r.iter().map(String::from)).collect()
        })
        .collect();
    (header, rows)
}

fn num(row: &std::collections::HashMap<String, String>, col: &str) -> f64 {
    row[col].parse().unwrap_or_else(|_| panic!("{col} = '{}'", row[col]))
}

#[test]
fn help_documents_every_option() {
    let out = iogen().args(["run", "--help"]).assert().success().get_output().stdout.clone();
    let help = String::from_utf8(out).unwrap();
    for opt in [
        "--target",
        "--size",
        "--block-size",
        "--read-pct",
        "--random-pct",
        "--iops",
        "--arrivals",
        "--queue-depth",
        "--engine",
        "--direct",
        "--warmup",
        "--duration",
        "--subinterval",
        "--seen-enough",
        "--max-duration",
        "--focus",
        "--csv",
        "--summary",
        "--label",
        "--seed",
        "--host",
        "--start-at",
        "--json",
        "--allow-overwrite",
        "--precondition",
    ] {
        assert!(help.contains(opt), "run --help lacks {opt}");
    }
    iogen()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("open-loop").and(predicate::str::contains("plan")));
}

#[test]
fn null_engine_six_measure_rows_per_category_and_exact_columns() {
    let dir = tempfile::tempdir().unwrap();
    let (t, s, sum) = (dir.path().join("t.dat"), dir.path().join("s.csv"), dir.path().join("sum.csv"));
    let out = iogen()
        .args(["run", "--engine", "null", "--size", "1MiB", "--iops", "2000", "--warmup", "1s", "--duration", "6s"])
        .args(["--subinterval", "1s", "--host", "lab1", "--label", "protocol=nfs", "--json"])
        .args(path_args(&[("--target", t.as_path()), ("--csv", s.as_path()), ("--summary", sum.as_path())]))
        .assert()
        .success()
        .stderr(predicate::str::contains("IOPS"))
        .get_output()
        .stdout
        .clone();
    let (header, rows) = read_csv(&s);
    assert_eq!(header.join(","), format!("{},protocol", schema_header("subinterval")));
    for cat in ["overall", "read", "write"] {
        let measure: Vec<_> = rows.iter().filter(|r| r["category"] == cat && r["phase"] == "measure").collect();
        assert_eq!(measure.len(), 6, "{cat}");
        let idx: Vec<f64> = measure.iter().map(|r| num(r, "subinterval")).collect();
        assert_eq!(idx, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(rows.iter().filter(|r| r["category"] == cat && r["phase"] == "warmup").count(), 1);
    }
    assert!(rows.iter().all(|r| r["host"] == "lab1" && r["protocol"] == "nfs" && r["step"] == "1"));
    let (sheader, srows) = read_csv(&sum);
    assert_eq!(srows.len(), 3);
    assert_eq!(sheader.join(","), format!("{},protocol", schema_header("summary")));
    let overall = &srows[0];
    assert_eq!(overall["category"], "overall");
    assert_eq!(overall["seen_enough"], "off");
    assert_eq!(overall["engine"], "null");
    // A read-only step without --precondition: nothing to warn about; a run not cut says nothing.
    assert!(srows.iter().chain(&rows).all(|r| r["preconditioned"].is_empty() && r["interrupted_by"].is_empty()));
    assert!(srows.iter().chain(&rows).all(|r| r["interrupted_at_s"].is_empty()));
    // Every arrival found a free slot (the null engine completes at once): all have a launch lag.
    let (lag_avg, lag_p99, lag_max) =
        (num(overall, "iogen_lag_ms_avg"), num(overall, "iogen_lag_ms_p99"), num(overall, "iogen_lag_ms_max"));
    assert!(0.0 <= lag_avg && lag_avg <= lag_max && lag_p99 <= lag_max * 1.001, "{lag_avg} {lag_p99} {lag_max}");
    assert!((num(overall, "measure_seconds") - 6.0).abs() < 1e-6);
    // Poisson count over 6 s at 2000/s: sd 0.9%; the null engine keeps up.
    let iops = num(overall, "iops");
    assert!((iops - 2000.0).abs() < 100.0, "{iops}");
    assert_eq!(num(overall, "errors"), 0.0);
    assert_eq!(srows[2]["iops"], "0", "a read-only run has no writes");
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(json.as_array().unwrap().len(), 3);
    assert_eq!(json[0]["category"], "overall");
    assert_eq!(json[0]["engine"], "null");
}

#[test]
fn real_file_mixed_workload_with_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.dat");
    for engine in ["sync", "auto"] {
        let sum = dir.path().join(format!("sum-{engine}.csv"));
        iogen()
            .args(["run", "--engine", engine, "--size", "4MiB", "--read-pct", "70", "--random-pct", "50"])
            .args([
                "--iops",
                "1000",
                "--queue-depth",
                "4",
                "--warmup",
                "0s",
                "--duration",
                "1s",
                "--subinterval",
                "250ms",
            ])
            .args(path_args(&[("--target", t.as_path()), ("--summary", sum.as_path())]))
            .assert()
            .success();
        let (_, rows) = read_csv(&sum);
        let (overall, read, write) = (&rows[0], &rows[1], &rows[2]);
        assert!(num(overall, "iops") > 500.0, "{engine}: {}", overall["iops"]);
        assert!(num(read, "iops") > 0.0 && num(write, "iops") > 0.0);
        assert_eq!(num(overall, "errors"), 0.0);
        assert!(num(overall, "response_ms_avg") >= num(overall, "service_ms_avg"));
        assert!(num(overall, "response_ms_p99") >= num(overall, "service_ms_p50"));
        // The engine that ran: sync, or for auto io_uring where the kernel allows it, else sync.
        let ran = overall["engine"].as_str();
        assert!(if engine == "sync" { ran == "sync" } else { ran == "io_uring" || ran == "sync" }, "{engine}: {ran}");
    }
    // The layout is complete: full size, no zero bytes after the header.
    let bytes = std::fs::read(&t).unwrap();
    assert_eq!(bytes.len(), 4 << 20);
    assert!(bytes[4096..].iter().all(|&b| b != 0));
}

#[test]
fn foreign_file_is_never_written_but_may_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("precious.db");
    let data: Vec<u8> = (0..(1u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&t, &data).unwrap();
    let before = std::fs::metadata(&t).unwrap().modified().unwrap();
    iogen()
        .args(["run", "--engine", "sync", "--read-pct", "50", "--duration", "1s", "--warmup", "0s"])
        .arg("--target")
        .arg(&t)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("refusing to write").and(predicate::str::contains("--allow-overwrite")));
    // Naming another path does not allow it.
    iogen()
        .args(["run", "--engine", "sync", "--read-pct", "0", "--duration", "1s", "--warmup", "0s"])
        .args(path_args(&[("--target", t.as_path()), ("--allow-overwrite", dir.path().join("other").as_path())]))
        .assert()
        .code(2);
    assert_eq!(std::fs::read(&t).unwrap(), data, "target changed");
    assert_eq!(std::fs::metadata(&t).unwrap().modified().unwrap(), before);
    // Reading it is fine, and still leaves it untouched.
    let sum = dir.path().join("sum.csv");
    iogen()
        .args([
            "run",
            "--engine",
            "sync",
            "--iops",
            "500",
            "--duration",
            "500ms",
            "--subinterval",
            "250ms",
            "--warmup",
            "0s",
        ])
        .args(path_args(&[("--target", t.as_path()), ("--summary", sum.as_path())]))
        .assert()
        .success();
    let (_, rows) = read_csv(&sum);
    assert!(num(&rows[0], "iops") > 0.0);
    assert_eq!(num(&rows[0], "errors"), 0.0);
    assert_eq!(std::fs::read(&t).unwrap(), data);
}

#[test]
fn bad_values_exit_2_naming_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.dat");
    for (args, name) in [
        (vec!["--block-size", "0"], "--block-size"),
        (vec!["--read-pct", "150"], "--read-pct"),
        (vec!["--random-pct=-5"], "--random-pct"),
        (vec!["--direct", "--block-size", "1000"], "--block-size"),
        (vec!["--size", "1K"], "--size"),
        (vec!["--iops", "0"], "--iops"),
        (vec!["--iops", "1e-20"], "--iops <N|max>': 1e-20 is below 0.001"),
        (vec!["--subinterval", "1ms"], "--subinterval"),
    ] {
        iogen()
            .args(["run", "--engine", "null"])
            .arg("--target")
            .arg(&t)
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(name));
    }
    assert!(!t.exists(), "nothing may be created for invalid input");
}

#[test]
fn plan_rows_override_options_and_carry_labels() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.dat");
    let plan = dir.path().join("plan.csv");
    std::fs::write(
        &plan,
        "Run,StdOrder,Replicate,read_pct,block_size,protocol,iops\n1,2,1,70,8KiB,nfs,1000\n2,1,1,100,4KiB,iscsi,max\n",
    )
    .unwrap();
    let (s, sum) = (dir.path().join("s.csv"), dir.path().join("sum.csv"));
    iogen()
        .arg("plan")
        .arg(&plan)
        .args(["--engine", "null", "--size", "1MiB", "--warmup", "0s", "--duration", "400ms", "--subinterval", "200ms"])
        .args(["--label", "site=lab"])
        .args(path_args(&[("--target", t.as_path()), ("--csv", s.as_path()), ("--summary", sum.as_path())]))
        .assert()
        .success();
    let (header, rows) = read_csv(&sum);
    assert_eq!(header.join(","), format!("{},site,Run,StdOrder,Replicate,protocol", schema_header("summary")));
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[0]["block_size"], "8192");
    assert_eq!(rows[0]["read_pct"], "70");
    assert_eq!(rows[0]["target_iops"], "1000");
    assert_eq!(rows[0]["protocol"], "nfs");
    assert_eq!(rows[3]["step"], "2");
    assert_eq!(rows[3]["target_iops"], "max");
    assert_eq!(rows[3]["StdOrder"], "1");
    assert_eq!(rows[3]["site"], "lab");
    let (_, srows) = read_csv(&s);
    assert_eq!(srows.len(), 2 * 2 * 3);

    std::fs::write(&plan, "read_pct,block_size\n50,4K\n70,huge\n").unwrap();
    iogen()
        .arg("plan")
        .arg(&plan)
        .args(["--engine", "null", "--size", "1MiB"])
        .arg("--target")
        .arg(&t)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("row 2").and(predicate::str::contains("column block_size")));
}

#[test]
fn seen_enough_stops_the_measurement() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.dat");
    let sum = dir.path().join("sum.csv");
    iogen()
        .args([
            "run",
            "--engine",
            "null",
            "--size",
            "1MiB",
            "--iops",
            "5000",
            "--arrivals",
            "uniform",
            "--warmup",
            "0s",
        ])
        .args(["--subinterval", "100ms", "--seen-enough", "10%@95%", "--seen-enough-method", "iid"])
        // Precision only: with the transient check the steady window is at least 90 s, which a
        // test cannot wait for; the stop itself is the same code either way.
        .args(["--seen-enough-transient", "off", "--max-duration", "20s"])
        .args(path_args(&[("--target", t.as_path()), ("--summary", sum.as_path())]))
        .assert()
        .success()
        .stderr(predicate::str::contains("not seen enough").not());
    let (_, rows) = read_csv(&sum);
    assert_eq!(rows[0]["seen_enough"], "yes");
    assert!(num(&rows[0], "measure_seconds") < 20.0);
    assert!(num(&rows[0], "achieved_pm") <= 0.1);
}

#[test]
fn a_seen_enough_step_that_never_holds_says_why_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.dat");
    let sum = dir.path().join("sum.csv");
    // 1 s of 100-ms subintervals: far fewer than the 900 (90 s) the steady-state window needs.
    iogen()
        .args(["run", "--engine", "null", "--size", "1MiB", "--iops", "2000", "--warmup", "0s"])
        .args(["--subinterval", "100ms", "--seen-enough", "5%@95%", "--max-duration", "1s"])
        .args(path_args(&[("--target", t.as_path()), ("--summary", sum.as_path())]))
        .assert()
        .success()
        .stderr(
            predicate::str::contains("iogen: step 1: not seen enough: too few samples: ")
                .and(predicate::str::contains("so far, the shortest window is 900 (90 s)")),
        );
    let (_, rows) = read_csv(&sum);
    assert_eq!(rows[0]["seen_enough"], "no");
}

#[test]
fn sigint_finishes_the_row_writes_the_summary_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let (t, s, sum) = (dir.path().join("t.dat"), dir.path().join("s.csv"), dir.path().join("sum.csv"));
    // Lay the file out first so the signal arrives during the measurement.
    iogen()
        .args([
            "run",
            "--engine",
            "null",
            "--size",
            "1MiB",
            "--duration",
            "100ms",
            "--subinterval",
            "100ms",
            "--warmup",
            "0s",
        ])
        .arg("--target")
        .arg(&t)
        .assert()
        .success();
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("iogen"))
        .args([
            "run",
            "--engine",
            "null",
            "--iops",
            "1000",
            "--warmup",
            "0s",
            "--duration",
            "60s",
            "--subinterval",
            "500ms",
        ])
        .args(path_args(&[("--target", t.as_path()), ("--csv", s.as_path()), ("--summary", sum.as_path())]))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the first subinterval has been written (the run is measuring), then interrupt.
    let t0 = Instant::now();
    while std::fs::read_to_string(&s).map_or(0, |t| t.lines().count()) < 4 {
        assert!(t0.elapsed() < Duration::from_secs(30), "no subinterval row after 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    let sent = Instant::now();
    // SAFETY: sending SIGINT to the child we just started.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let status = child.wait().unwrap();
    let waited = sent.elapsed();
    assert_eq!(status.code(), Some(130));
    // One subinterval is 500 ms; allow generously for a loaded machine.
    assert!(waited < Duration::from_secs(5), "took {waited:?}");
    let (_, rows) = read_csv(&s);
    assert!(rows.len() >= 3 && rows.len() % 3 == 0, "{} rows", rows.len());
    assert!(rows.iter().all(|r| (num(r, "seconds") - 0.5).abs() < 1e-9), "the last row is a whole subinterval");
    let (_, srows) = read_csv(&sum);
    assert_eq!(srows.len(), 3);
    assert!(num(&srows[0], "measure_seconds") < 10.0);
}

#[test]
fn rt_priority_runs_or_is_refused_naming_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let (t, sum) = (dir.path().join("t.dat"), dir.path().join("sum.csv"));
    let out = iogen()
        .args(["run", "--engine", "null", "--size", "1MiB", "--iops", "1000", "--warmup", "0s", "--duration", "200ms"])
        .args(["--subinterval", "100ms", "--rt-priority", "5"])
        .args(path_args(&[("--target", t.as_path()), ("--summary", sum.as_path())]))
        .output()
        .unwrap();
    match out.status.code() {
        // Permitted (root or CAP_SYS_NICE): the step ran and was measured.
        Some(0) => assert!(num(&read_csv(&sum).1[0], "iops") > 0.0),
        // Not permitted: refused before anything was created, naming the option.
        Some(2) => {
            assert!(String::from_utf8_lossy(&out.stderr).contains("--rt-priority"));
            assert!(!sum.exists() && !t.exists());
        }
        other => panic!("exit {other:?}: {}", String::from_utf8_lossy(&out.stderr)),
    }
    iogen().args(["run", "--target", "x", "--rt-priority", "0"]).assert().code(2);
}

#[test]
fn rt_priority_auto_only_where_it_applies_and_off_never() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let (t, sum) = (dir.path().join("t.dat"), dir.path().join("sum.csv"));
        let out = iogen()
            .args(["run", "--size", "1MiB", "--iops", "1000", "--warmup", "0s", "--duration", "200ms"])
            .args(["--subinterval", "100ms", "--force"])
            .args(path_args(&[("--target", t.as_path()), ("--summary", sum.as_path())]))
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    // The default (auto) with the null engine at 1,000 IOPS: SCHED_FIFO 1 when permitted (root or
    // CAP_SYS_NICE), silently normal otherwise; stderr says which.
    let auto = run(&["--engine", "null"]);
    if auto.contains("SCHED_FIFO") {
        assert!(auto.contains("priority 1 (--rt-priority auto"), "{auto}");
    }
    // Never with sync worker threads to starve, never with off.
    assert!(!run(&["--engine", "sync", "--queue-depth", "4"]).contains("SCHED_FIFO"));
    assert!(!run(&["--engine", "null", "--rt-priority", "off"]).contains("SCHED_FIFO"));
}

#[test]
fn version_says_whether_mpi_is_compiled_in() {
    let out = iogen().arg("--version").assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let expected = if cfg!(feature = "mpi") { "MPI: compiled in" } else { "MPI: not compiled in" };
    assert!(text.contains(expected), "{text}");
}

/// A build without MPI started by a launcher as one of several ranks would offer the whole rate
/// in every copy: it refuses before touching anything.
#[cfg(not(feature = "mpi"))]
#[test]
fn a_build_without_mpi_refuses_to_run_as_one_of_several_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.dat");
    iogen()
        .env("OMPI_COMM_WORLD_SIZE", "3")
        .args(["run", "--engine", "null", "--size", "1MiB", "--duration", "100ms", "--subinterval", "100ms"])
        .arg("--target")
        .arg(&t)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("one of 3 ranks").and(predicate::str::contains("--features mpi")));
    assert!(!t.exists());
}

/// Start `iogen` with `args`, wait until `ready` holds for the subinterval CSV's text, send
/// `signal`, and return the exit code and the time the wait after the signal took.
fn interrupt_when(
    args: &[std::ffi::OsString],
    csv: &Path,
    ready: impl Fn(&str) -> bool,
    signal: i32,
) -> (i32, Duration) {
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("iogen"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !std::fs::read_to_string(csv).is_ok_and(|t| ready(&t)) {
        assert!(t0.elapsed() < Duration::from_secs(30), "not ready after 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    let sent = Instant::now();
    // SAFETY: sending a signal to the child we just started.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    let status = child.wait().unwrap();
    (status.code().unwrap_or(-1), sent.elapsed())
}

#[test]
fn sigint_and_sigterm_in_warmup_and_measurement_are_recorded_in_both_csvs() {
    for (signal, name) in [(libc::SIGINT, "SIGINT"), (libc::SIGTERM, "SIGTERM")] {
        for phase in ["warmup", "measure"] {
            let case = format!("{name} during {phase}");
            let dir = tempfile::tempdir().unwrap();
            let (t, s, sum) = (dir.path().join("t.dat"), dir.path().join("s.csv"), dir.path().join("sum.csv"));
            let mut args: Vec<std::ffi::OsString> = ["run", "--engine", "null", "--size", "1MiB", "--iops", "1000"]
                .into_iter()
                .chain(["--read-pct", "50", "--warmup", "2s", "--duration", "60s", "--subinterval", "250ms"])
                .map(Into::into)
                .collect();
            args.extend(path_args(&[("--target", t.as_path()), ("--csv", s.as_path()), ("--summary", sum.as_path())]));
            // Signal once the first row of the phase is written: the next subinterval is then in it.
            let (code, waited) = interrupt_when(&args, &s, |text| text.contains(&format!(",{phase},")), signal);
            assert_eq!(code, 130, "{case}");
            assert!(waited < Duration::from_secs(5), "{case}: took {waited:?}");
            let (_, rows) = read_csv(&s);
            let last = rows.last().unwrap();
            assert_eq!(last["phase"], phase, "{case}: the signal came in the phase");
            // The rows written after the signal (the last subinterval's, and the one before it when
            // the signal came as it closed) say so; every earlier row does not.
            let first_marked = rows.iter().position(|r| !r["interrupted_by"].is_empty()).expect(&case);
            assert!(rows.len() - first_marked <= 6 && rows.len() - first_marked >= 3, "{case}: {first_marked}");
            let at = num(last, "interrupted_at_s");
            for r in &rows[first_marked..] {
                assert_eq!(r["interrupted_by"], name, "{case}");
                assert_eq!(num(r, "interrupted_at_s"), at, "{case}");
            }
            // start_s counts from the step's start, as interrupted_at_s does.
            assert!(at >= num(&rows[first_marked], "start_s") - 1e-6, "{case}: at {at}");
            assert!(at <= num(last, "start_s") + num(last, "seconds") + 0.05, "{case}: at {at}");
            assert!(rows.iter().all(|r| r["preconditioned"] == "no"), "{case}: a writing step not preconditioned");
            let (_, srows) = read_csv(&sum);
            assert_eq!(srows.len(), 3, "{case}");
            for r in &srows {
                assert_eq!(r["interrupted_by"], name, "{case}");
                assert_eq!(num(r, "interrupted_at_s"), at, "{case}");
                assert_eq!(r["preconditioned"], "no", "{case}");
            }
            if phase == "warmup" {
                assert_eq!(num(&srows[0], "measure_seconds"), 0.0, "{case}");
            } else {
                assert!(num(&srows[0], "measure_seconds") > 0.0, "{case}");
            }
        }
    }
}

/// Run `cmd` to its end and return its exit code and the bytes it caused to be written to storage
/// (`wait4`'s `ru_oublock`, 512-byte units: the kernel's count, not iogen's).
// wait4 below reaps the child, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn run_counting_writes(cmd: &mut StdCommand) -> (i32, u64) {
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waiting for our own child, with valid pointers.
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    (code, usage.ru_oublock as u64 * 512)
}

#[test]
fn precondition_writes_the_whole_range_n_times_before_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let (t, sum) = (dir.path().join("t.dat"), dir.path().join("sum.csv"));
    let size: u64 = (4 << 20) + 4096;
    // Lay the file out first, so the run below writes only what preconditioning writes.
    iogen()
        .args(["run", "--engine", "null", "--size", &size.to_string(), "--warmup", "0s"])
        .args(["--duration", "100ms", "--subinterval", "100ms"])
        .arg("--target")
        .arg(&t)
        .assert()
        .success();
    let (code, written) = run_counting_writes(
        StdCommand::new(assert_cmd::cargo::cargo_bin("iogen"))
            .args(["run", "--engine", "null", "--precondition=3", "--duration", "200ms", "--warmup", "0s"])
            .args(["--subinterval", "100ms"])
            .args(path_args(&[("--target", t.as_path()), ("--summary", sum.as_path())])),
    );
    assert_eq!(code, 0);
    let range = size - 4096;
    let bytes = std::fs::read(&t).unwrap();
    assert_eq!(bytes.len() as u64, size);
    assert!(bytes.starts_with(b"IOGEN-TARGET v2\n"), "the header block is untouched");
    // The last pass's stamp on every 4 KiB page of the range (the format is in src/precondition.rs).
    for (i, page) in bytes[4096..].chunks(4096).enumerate() {
        assert!(page.starts_with(b"iogen-precondition pass=3\n"), "page {i}");
    }
    // Three passes over the range, plus the summary file's page(s); the kernel counts pages dirtied.
    if written == 0 {
        if let Some(log) = std::env::var_os("IOGEN_SKIP_LOG") {
            let line = "precondition_writes_the_whole_range_n_times_before_the_step: no block IO accounting \
                        (ru_oublock 0) on this file system; bytes written not checked\n";
            let _ = std::fs::OpenOptions::new().create(true).append(true).open(log).and_then(|mut f| {
                use std::io::Write;
                f.write_all(line.as_bytes())
            });
        }
    } else {
        assert!(written >= 3 * range && written <= 3 * range + (64 << 10), "{written} bytes for 3 × {range}");
    }
    let (_, srows) = read_csv(&sum);
    assert!(srows.iter().all(|r| r["preconditioned"] == "yes"), "{:?}", srows[0]["preconditioned"]);
}

#[test]
fn a_signal_while_preconditioning_is_recorded_in_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (t, s, sum) = (dir.path().join("t.dat"), dir.path().join("s.csv"), dir.path().join("sum.csv"));
    iogen()
        .args(["run", "--engine", "null", "--size", "16MiB", "--warmup", "0s", "--duration", "100ms"])
        .args(["--subinterval", "100ms"])
        .arg("--target")
        .arg(&t)
        .assert()
        .success();
    // 100 passes over 16 MiB take seconds; the outputs exist once the handlers are installed.
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("iogen"))
        .args(["run", "--engine", "null", "--read-pct", "50", "--precondition=100", "--duration", "1s"])
        .args(path_args(&[("--target", t.as_path()), ("--csv", s.as_path()), ("--summary", sum.as_path())]))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !sum.exists() {
        assert!(t0.elapsed() < Duration::from_secs(30), "no summary file after 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    // SAFETY: sending SIGTERM to the child we just started.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let (_, rows) = read_csv(&s);
    assert!(rows.is_empty(), "the step never started: no subinterval rows");
    let (_, srows) = read_csv(&sum);
    assert_eq!(srows.len(), 3);
    for r in &srows {
        assert_eq!((r["interrupted_by"].as_str(), r["interrupted_at_s"].as_str()), ("SIGTERM", "0"));
        assert_eq!((r["measure_seconds"].as_str(), r["iops"].as_str()), ("0", ""));
        assert_eq!(r["preconditioned"], "no");
    }
    // The target keeps iogen's header: the next run may use it.
    assert!(std::fs::read(&t).unwrap().starts_with(b"IOGEN-TARGET v2\n"));
}

#[test]
fn precondition_is_refused_where_a_write_would_be() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = dir.path().join("data.bin");
    let content: Vec<u8> = (0..65536u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&foreign, &content).unwrap();
    // A read-only workload may read a foreign file, but preconditioning it would overwrite it.
    iogen()
        .args(["run", "--engine", "null", "--precondition", "--duration", "1s"])
        .arg("--target")
        .arg(&foreign)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("refusing to write").and(predicate::str::contains("--allow-overwrite")));
    assert_eq!(std::fs::read(&foreign).unwrap(), content, "not a byte changed");
}

#[test]
fn the_recorded_precondition_runs_carry_the_schema_and_say_what_space_they_ran_on() {
    // iogen/tests/fixtures/precondition: real runs (README there); the warning in every row.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/precondition");
    // Pairs 1–4 have 90 measured subintervals, pair 5 (the 8 GiB file) 120: 3 rows each (overall, read, write).
    for (pair, subinterval_rows) in [("pair1", 270), ("pair2", 270), ("pair3", 270), ("pair4", 270), ("pair5", 360)] {
        for (run, expected) in [("fresh", "no"), ("preconditioned", "yes")] {
            for (kind, file, rows) in [("subinterval", "subintervals", subinterval_rows), ("summary", "summary", 3)] {
                let path = dir.join(format!("{pair}-{run}-{file}.csv"));
                let (header, records) = read_csv(&path);
                assert_eq!(header.join(","), schema_header(kind), "{}", path.display());
                assert_eq!(records.len(), rows, "{}", path.display());
                assert!(records.iter().all(|r| r["preconditioned"] == expected && r["interrupted_by"].is_empty()));
            }
        }
    }
}
