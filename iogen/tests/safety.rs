//! Nothing destroyed, nothing silently lost: the `iogen` binary against hostile output paths,
//! targets and plans. Every refusal must leave every file byte-identical (and unmodified in
//! time), create nothing, and exit 2 naming the option and the path.
//!
//! Cases that need root (a 64 KiB tmpfs for ENOSPC, a loop device for block-device rules) run when
//! `mount`/`losetup` work and otherwise print why they were skipped; the same whole-line logic is
//! also tested with an injected writer in `src/output/file.rs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant, SystemTime};

use assert_cmd::Command;
use predicates::prelude::*;

fn iogen() -> Command {
    Command::cargo_bin("iogen").unwrap()
}

/// A short null-engine run (no IO to the target; it is still laid out when new).
fn quick_run() -> Command {
    let mut c = iogen();
    c.args(["run", "--engine", "null", "--iops", "200", "--warmup", "0s", "--duration", "200ms"]);
    c.args(["--subinterval", "100ms", "--size", "1MiB"]);
    c
}

/// `--option PATH` pairs as arguments.
fn path_args(options: &[(&str, &Path)]) -> Vec<std::ffi::OsString> {
    options.iter().flat_map(|(option, path)| [option.into(), path.as_os_str().to_owned()]).collect()
}

/// Every file in `dir` (not recursive) with its bytes and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.symlink_metadata().unwrap().is_file())
        .map(|p| {
            let m = std::fs::metadata(&p).unwrap();
            let bytes = std::fs::read(&p).unwrap();
            (p, (bytes, m.modified().unwrap()))
        })
        .collect()
}

/// Names in `dir`, for "nothing was created".
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Run `cmd`, expect exit 2 with all of `needles` on stderr, and check that `dir` is exactly as it
/// was: same names, same bytes, same modification times.
fn refused_untouched(mut cmd: Command, dir: &Path, needles: &[&str]) {
    let before = snapshot(dir);
    let names_before = names(dir);
    let out = cmd.assert().code(2).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
    assert_eq!(names(dir), names_before, "a file was created or removed: {err}");
    let after = snapshot(dir);
    for (p, (bytes, mtime)) in &before {
        let (b, m) = &after[p];
        assert!(b == bytes, "{} changed", p.display());
        assert_eq!(m, mtime, "{} was written to", p.display());
    }
}

#[test]
fn a_foreign_file_named_as_csv_or_summary_is_left_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let keep = d.join("k.txt");
    std::fs::write(&keep, "keep\n").unwrap();
    let t = d.join("t.dat");
    for option in ["--csv", "--summary"] {
        let mut c = quick_run();
        c.args(path_args(&[("--target", &t), (option, &keep)]));
        refused_untouched(c, d, &[option, "k.txt", "exists", "--force"]);
    }
    assert!(!t.exists(), "the target is laid out only after every check");
}

#[test]
fn outputs_that_are_the_target_the_plan_or_each_other_are_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = d.join("t.dat");
    let s = d.join("s.csv");
    // --csv = --target, the target not created yet.
    let mut c = quick_run();
    c.args(path_args(&[("--target", &t), ("--csv", &t)]));
    refused_untouched(c, d, &["--csv", "t.dat", "is the target"]);
    // --summary = --target, an existing iogen file, with --force.
    quick_run().args(path_args(&[("--target", &t)])).assert().success();
    let mut c = quick_run();
    c.args(path_args(&[("--target", &t), ("--summary", &t)])).arg("--force");
    refused_untouched(c, d, &["--summary", "is the target"]);
    // --csv = --summary.
    let mut c = quick_run();
    c.args(path_args(&[("--target", &t), ("--csv", &s), ("--summary", &d.join(".").join("s.csv"))]));
    refused_untouched(c, d, &["--summary", "same file as --csv"]);
    // --csv = the plan, also through a hard link.
    let plan = d.join("plan.csv");
    std::fs::write(&plan, "read_pct\n100\n").unwrap();
    let link = d.join("plan-link.csv");
    std::fs::hard_link(&plan, &link).unwrap();
    for out in [&plan, &link] {
        let mut c = iogen();
        c.args(["plan", "--engine", "null", "--warmup", "0s", "--duration", "200ms", "--subinterval", "100ms"]);
        c.arg(&plan).args(path_args(&[("--target", &t), ("--csv", out)])).arg("--force");
        refused_untouched(c, d, &["--csv", "plan file"]);
    }
    // A device.
    let mut c = quick_run();
    c.args(path_args(&[("--target", &t), ("--csv", Path::new("/dev/null"))])).arg("--force");
    refused_untouched(c, d, &["--csv /dev/null", "device"]);
}

#[test]
fn force_replaces_an_existing_output_only_when_the_run_completes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = d.join("t.dat");
    let s = d.join("s.csv");
    std::fs::write(&s, "old\n").unwrap();
    quick_run().args(path_args(&[("--target", &t), ("--csv", &s)])).arg("--force").assert().success();
    let text = std::fs::read_to_string(&s).unwrap();
    assert!(text.starts_with("host,step,"), "{text}");
    assert_eq!(names(d), vec!["s.csv", "t.dat"], "no temporary file left behind");
}

#[test]
fn help_documents_force_and_the_start_time_limit() {
    let out = iogen().args(["run", "--help"]).assert().success().get_output().stdout.clone();
    let help = String::from_utf8(out).unwrap();
    assert!(help.contains("--force") && help.contains("24 hours"), "{help}");
}

#[test]
fn a_target_that_only_begins_with_the_magic_line_is_foreign() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fake = d.join("fake.dat");
    let mut bytes = b"IOGEN-TARGET v2\nheader_len=4096\nsize=1048576\n".to_vec();
    bytes.resize(1 << 20, 0x5a);
    std::fs::write(&fake, &bytes).unwrap();
    let old = d.join("old.dat");
    let mut bytes = b"IOGEN-TARGET v1\nsize=1048576\ncreated_unix=1\n".to_vec();
    bytes.resize(1 << 20, 0x33);
    std::fs::write(&old, &bytes).unwrap();
    for t in [&fake, &old] {
        let mut c = iogen();
        c.args(["run", "--engine", "sync", "--read-pct", "50", "--warmup", "0s", "--duration", "200ms"]);
        c.args(["--subinterval", "100ms"]).args(path_args(&[("--target", t)]));
        refused_untouched(c, d, &["refusing to write", "did not lay out"]);
    }
}

#[test]
fn a_target_path_that_is_a_symbolic_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let victim = d.join("victim.db");
    std::fs::write(&victim, vec![9u8; 1 << 20]).unwrap();
    let link = d.join("t.dat");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let dangling = d.join("dangling.dat");
    std::os::unix::fs::symlink(d.join("nowhere"), &dangling).unwrap();
    for t in [&link, &dangling] {
        let mut c = iogen();
        c.args(["run", "--engine", "sync", "--read-pct", "0", "--warmup", "0s", "--duration", "200ms"]);
        c.args(["--subinterval", "100ms", "--size", "1MiB"])
            .args(path_args(&[("--target", t), ("--allow-overwrite", t)]));
        refused_untouched(c, d, &["symbolic link"]);
    }
    assert!(!d.join("nowhere").exists(), "a dangling link is not followed to create a file");
}

#[test]
fn start_at_far_in_the_future_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = d.join("t.dat");
    let s = d.join("s.csv");
    let started = Instant::now();
    let mut c = quick_run();
    c.args(["--start-at", "99999999999999"]).args(path_args(&[("--target", &t), ("--csv", &s)]));
    c.timeout(Duration::from_secs(30));
    refused_untouched(c, d, &["--start-at 99999999999999", "24 hours"]);
    assert!(started.elapsed() < Duration::from_secs(10));
    let mut c = quick_run();
    c.args(["--start-at", "1763900000"]).args(path_args(&[("--target", &t)]));
    refused_untouched(c, d, &["--start-at", "not seconds"]);
}

/// Run `iogen plan` on `plan_text` against a foreign target and an output, expecting a refusal
/// before anything happens.
fn plan_refused(plan_text: &str, needles: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = d.join("plan.csv");
    std::fs::write(&plan, plan_text).unwrap();
    let foreign = d.join("foreign.db");
    std::fs::write(&foreign, vec![7u8; 1 << 20]).unwrap();
    let mut c = iogen();
    c.args(["plan", "--engine", "sync", "--warmup", "0s", "--duration", "200ms", "--subinterval", "100ms"]);
    c.arg(&plan).args(path_args(&[
        ("--target", &foreign),
        ("--csv", &d.join("s.csv")),
        ("--summary", &d.join("u.csv")),
    ]));
    refused_untouched(c, d, needles);
}

#[test]
fn bad_plans_are_refused_before_any_io() {
    plan_refused("read_pct,block_size,read_pct\n100,4K,100\n", &["plan", "column read_pct appears twice"]);
    plan_refused("read_pct,protocol\n100,nfs\n100,\"smb\n100,iscsi\n", &["plan", "line 3", "never closed"]);
    plan_refused("read_pct,iops\n100,100\n100,-5\n", &["row 2", "iops"]);
    // A rate whose arrivals overflow the clock (it panicked after row 1 ran).
    plan_refused("read_pct,iops\n100,100\n100,1e-20\n", &["row 2", "column iops", "below 0.001"]);
    // Row 1 only reads the foreign file (allowed); row 2 would write it: refused before row 1 runs.
    plan_refused("read_pct,step_name\n100,read\n50,mixed\n", &["refusing to write", "did not lay out"]);
    // Row 2 needs more of the foreign file than it has.
    plan_refused("read_pct,size\n100,512K\n100,2MiB\n", &["--size", "larger than the existing file"]);
}

/// A mount (or loop device) made by a test, undone when dropped.
struct Undo(Vec<&'static str>, PathBuf);

impl Drop for Undo {
    fn drop(&mut self) {
        let _ = StdCommand::new(self.0[0]).args(&self.0[1..]).arg(&self.1).status();
    }
}

fn try_cmd(args: &[&str]) -> Result<String, String> {
    let out = StdCommand::new(args[0]).args(&args[1..]).stdin(Stdio::null()).output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// A check this machine cannot make (no root, no loop device, ...): said on stderr, and appended to
/// the file named by IOGEN_SKIP_LOG, from which `npm test` counts and lists the skips (cargo hides
/// a passing test's stderr, so a skip would otherwise pass unseen).
fn skipped(what: &str, why: &str) {
    eprintln!("SKIPPED {what}: {why}");
    if let Some(log) = std::env::var_os("IOGEN_SKIP_LOG") {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(log).expect("IOGEN_SKIP_LOG");
        writeln!(f, "{what}: {}", why.replace('\n', " ")).expect("IOGEN_SKIP_LOG");
    }
}

#[test]
fn a_full_file_system_leaves_whole_lines_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    std::fs::create_dir(&mnt).unwrap();
    let m = mnt.to_str().unwrap();
    if let Err(e) = try_cmd(&["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", m]) {
        skipped(
            "a_full_file_system_leaves_whole_lines_and_says_so",
            &format!("cannot mount a 64 KiB tmpfs ({e}); the cut-back logic is tested with an injected writer in src/output/file.rs"),
        );
        return;
    }
    let _undo = Undo(vec!["umount"], mnt.clone());
    let s = mnt.join("s.csv");
    let t = dir.path().join("t.dat");
    // About 1 KB of CSV per 10 ms subinterval: 64 KiB fill within a second of the 5 s run.
    let out = iogen()
        .args(["run", "--engine", "null", "--iops", "1000", "--warmup", "0s", "--duration", "5s"])
        .args(["--subinterval", "10ms", "--size", "1MiB", "--label", "note=a label long enough to fill faster"])
        .args(path_args(&[("--target", &t), ("--csv", &s)]))
        .timeout(Duration::from_secs(60))
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--csv") && err.contains("last whole line"), "{err}");
    let text = std::fs::read_to_string(&s).unwrap();
    assert!(text.len() > 32 << 10, "the file system was filled ({} bytes)", text.len());
    assert!(text.ends_with('\n'), "partial last line");
    let mut rdr = csv::Reader::from_reader(text.as_bytes());
    let cols = rdr.headers().unwrap().len();
    let rows: Vec<_> = rdr.records().map(|r| r.unwrap()).collect();
    assert!(rows.iter().all(|r| r.len() == cols && &r[r.len() - 1] == "a label long enough to fill faster"));
    assert_eq!(rows.len() % 3, 0, "whole subintervals (overall, read, write)");
}

#[test]
fn block_devices_in_use_are_refused_even_with_allow_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("disk.img");
    std::fs::write(&img, vec![0x11u8; 8 << 20]).unwrap();
    let dev = match try_cmd(&["losetup", "--find", "--show", img.to_str().unwrap()]) {
        Ok(d) => PathBuf::from(d),
        Err(e) => {
            skipped("block_devices_in_use_are_refused_even_with_allow_overwrite", &format!("no loop device ({e})"));
            return;
        }
    };
    let _undo = Undo(vec!["losetup", "-d"], dev.clone());
    let run = |extra: &[&std::ffi::OsStr]| {
        let mut c = iogen();
        c.args(["run", "--engine", "sync", "--read-pct", "0", "--iops", "200", "--warmup", "0s"]);
        c.args(["--duration", "200ms", "--subinterval", "100ms"]).args(path_args(&[("--target", &dev)])).args(extra);
        c
    };
    let allow = [std::ffi::OsStr::new("--allow-overwrite"), dev.as_os_str()];
    // Not named with --allow-overwrite: refused.
    run(&[]).assert().code(2).stderr(predicate::str::contains("is a block device"));
    // Held exclusively (O_EXCL) by another process: refused by the kernel, although allowed.
    let holder = StdCommand::new("python3")
        .args(["-c", "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL); print('held', flush=True); sys.stdin.read()"])
        .arg(&dev)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    if let Ok(mut holder) = holder {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(holder.stdout.take().unwrap()), &mut line).unwrap();
        assert_eq!(line.trim(), "held");
        run(&allow).assert().code(2).stderr(predicate::str::contains("exclusive access"));
        drop(holder.stdin.take());
        holder.wait().unwrap();
    } else {
        skipped(
            "block_devices_in_use_are_refused_even_with_allow_overwrite, the exclusive-holder case",
            "python3 not found",
        );
    }
    assert_eq!(std::fs::read(&img).unwrap(), vec![0x11u8; 8 << 20], "the device was written");
    // Free and allowed: written (so the refusals above were not a broken device). Two writing
    // steps with io_uring: the device stays claimed by iogen from the check to the last step.
    run(&allow).assert().success();
    let plan = dir.path().join("plan.csv");
    std::fs::write(&plan, "read_pct,engine\n0,io_uring\n50,io_uring\n0,sync\n").unwrap();
    let mut c = iogen();
    c.args(["plan", "--iops", "200", "--warmup", "0s", "--duration", "200ms", "--subinterval", "100ms"]);
    c.arg(&plan).args(path_args(&[("--target", &dev), ("--allow-overwrite", &dev)]));
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("io_uring unavailable") {
        skipped(
            "block_devices_in_use_are_refused_even_with_allow_overwrite, the io_uring steps",
            &format!("io_uring not available here ({})", err.trim()),
        );
    } else {
        assert!(out.status.success(), "{err}");
        assert!(err.contains("step 3 of 3"), "{err}");
    }
    try_cmd(&["sync"]).unwrap();
    assert_ne!(std::fs::read(&img).unwrap(), vec![0x11u8; 8 << 20]);
}

#[test]
fn a_device_mounted_in_another_mount_namespace_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("fs.img");
    std::fs::write(&img, vec![0u8; 8 << 20]).unwrap();
    let skip = |why: String| skipped("a_device_mounted_in_another_mount_namespace_is_refused", &why);
    if let Err(e) = try_cmd(&["mkfs.ext4", "-q", img.to_str().unwrap()]) {
        return skip(format!("mkfs.ext4 failed ({e})"));
    }
    let before = std::fs::read(&img).unwrap();
    let dev = match try_cmd(&["losetup", "--find", "--show", img.to_str().unwrap()]) {
        Ok(d) => PathBuf::from(d),
        Err(e) => return skip(format!("no loop device ({e})")),
    };
    let _undo = Undo(vec!["losetup", "-d"], dev.clone());
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    // Mounted read-only in a mount namespace of its own: invisible in this namespace's
    // /proc/self/mountinfo, so only the kernel's O_EXCL check can see it.
    let script = format!("mount -o ro {} {} && echo mounted && exec cat", dev.display(), mnt.display());
    let Ok(mut ns) = StdCommand::new("unshare")
        .args(["--mount", "sh", "-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        return skip("unshare not found".into());
    };
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(ns.stdout.take().unwrap()), &mut line).unwrap();
    if line.trim() != "mounted" {
        drop(ns.stdin.take());
        let out = ns.wait_with_output().unwrap();
        return skip(format!("mount in a new namespace failed ({})", String::from_utf8_lossy(&out.stderr).trim()));
    }
    let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!info.contains(mnt.to_str().unwrap()), "the mount is visible here; the test would not test O_EXCL");
    let mut c = iogen();
    c.args(["run", "--engine", "sync", "--read-pct", "0", "--iops", "200", "--warmup", "0s"]);
    c.args(["--duration", "200ms", "--subinterval", "100ms"]);
    c.args(path_args(&[("--target", &dev), ("--allow-overwrite", &dev)]));
    c.assert().code(2).stderr(predicate::str::contains("exclusive access").and(predicate::str::contains("mounted")));
    drop(ns.stdin.take());
    ns.wait().unwrap();
    assert!(std::fs::read(&img).unwrap() == before, "the file system image changed");
}

#[test]
fn outputs_whose_directory_is_removed_during_the_run_fail_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = d.join("t.dat");
    let out = d.join("out");
    std::fs::create_dir(&out).unwrap();
    let (s, sum) = (out.join("s.csv"), out.join("sum.csv"));
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("iogen"))
        .args(["run", "--engine", "null", "--iops", "1000", "--warmup", "0s", "--duration", "2s"])
        .args(["--subinterval", "200ms", "--size", "1MiB"])
        .args(path_args(&[("--target", &t), ("--csv", &s), ("--summary", &sum)]))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Remove the directory once the first subinterval row is in the file (the run is measuring).
    let t0 = Instant::now();
    while std::fs::read_to_string(&s).map_or(0, |text| text.lines().count()) < 2 {
        assert!(t0.elapsed() < Duration::from_secs(30), "no subinterval row after 30 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::remove_dir_all(&out).unwrap();
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("--csv {}", s.display())) && err.contains("lost"), "{err}");
}
