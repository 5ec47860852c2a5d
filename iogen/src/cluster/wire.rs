//! The bytes a rank sends rank 0 when a subinterval closes: where it is in the step, its
//! verdict, its CPU, and its read and write counters with their latency histograms, exactly (no
//! percentile is computed before the merge; `overall` is rebuilt as read + write). Little-endian fixed fields; each histogram is its non-empty
//! buckets as (value gap, count) LEB128 pairs, so an idle rank sends a few hundred bytes and a
//! busy one a few KB (sizes: `docs/iogen-mpi.md`).
//!
//! A bucket is identified by its highest equivalent value (`value_iterated_to`); recording that
//! value again lands in the same bucket, so a decoded histogram equals the original (same counts
//! in every bucket, same min and max): merging decoded histograms is merging the originals.

use anyhow::{bail, Context};
use hdrhistogram::Histogram;

use crate::cpu::CpuUsage;
use crate::scheduler::{Phase, SubintervalReport, Verdict};
use crate::stats::{CategoryStats, IntervalStats};

/// Format tag, first byte of every message: ranks built from different sources refuse each other.
const TAG: u8 = 0x49; // 'I'

/// One rank's closed subinterval, as rank 0 receives it.
#[derive(Debug, Clone)]
pub struct RankSubinterval {
    /// Phase.
    pub phase: Phase,
    /// 1-based index within the phase.
    pub index: usize,
    /// Start, seconds since the step started.
    pub start_s: f64,
    /// Length, seconds.
    pub seconds: f64,
    /// The rank's own reasons to end the step.
    pub verdict: Verdict,
    /// CPU over the subinterval on the rank's host (and the rank's own).
    pub cpu: CpuUsage,
    /// The rank's counters.
    pub stats: IntervalStats,
    /// The non-empty buckets (value, count) of its six histograms: read service, response, lag,
    /// then write's; rank 0 adds them to sums bucket by bucket ([`add_to`]).
    pub buckets: [Vec<(u64, u64)>; 6],
}

/// Add a decoded rank's counters to `dst` (all three categories): the same result as
/// `dst.merge(&sub.stats)`, at the cost of the non-empty buckets rather than of walking every
/// counter of nine histograms.
pub fn add_to(dst: &mut IntervalStats, sub: &RankSubinterval) {
    let IntervalStats { overall, read, write } = dst;
    for (d, src, lists) in [(read, &sub.stats.read, &sub.buckets[..3]), (write, &sub.stats.write, &sub.buckets[3..])] {
        for c in [&mut *d, &mut *overall] {
            c.ios += src.ios;
            c.bytes += src.bytes;
            c.errors += src.errors;
            c.late_ios += src.late_ios;
            c.on_time_ios += src.on_time_ios;
            c.service_sum_ns += src.service_sum_ns;
            c.response_sum_ns += src.response_sum_ns;
            c.lag_sum_ns += src.lag_sum_ns;
            for (h, list) in [&mut c.service, &mut c.response, &mut c.lag].into_iter().zip(lists) {
                for &(value, count) in list {
                    // Values were recorded in a histogram of the same bounds when decoded.
                    h.saturating_record_n(value, count);
                }
            }
        }
    }
}

/// Encode a closed subinterval and its verdict.
pub fn encode(r: &SubintervalReport, verdict: Verdict) -> Vec<u8> {
    let mut w = Vec::with_capacity(1024);
    w.push(TAG);
    w.push(match r.phase {
        Phase::Warmup => 0,
        Phase::Measure => 1,
    });
    put_u64(&mut w, r.index as u64);
    put_f64(&mut w, r.start_s);
    put_f64(&mut w, r.seconds);
    let v = verdict;
    w.push(u8::from(v.seen_enough) | u8::from(v.full) << 1 | u8::from(v.interrupted) << 2 | u8::from(v.disk_full) << 3);
    for x in [r.cpu.busy_pct, r.cpu.sys_pct, r.cpu.iowait_pct] {
        put_f64(&mut w, x.unwrap_or(f64::NAN));
    }
    put_u64(&mut w, r.cpu.cores as u64);
    put_f64(&mut w, r.cpu.iogen_pct);
    // `overall` is read + write exactly (every IO is recorded in both): rebuilt, not sent.
    for c in [&r.stats.read, &r.stats.write] {
        put_category(&mut w, c);
    }
    w
}

impl Default for RankSubinterval {
    fn default() -> Self {
        RankSubinterval {
            phase: Phase::Warmup,
            index: 0,
            start_s: 0.0,
            seconds: 0.0,
            verdict: Verdict::default(),
            cpu: CpuUsage { busy_pct: None, sys_pct: None, iowait_pct: None, cores: 0, iogen_pct: 0.0 },
            stats: IntervalStats::default(),
            buckets: Default::default(),
        }
    }
}

/// Decode what [`encode`] wrote; `rank` names the sender in errors.
pub fn decode(bytes: &[u8], rank: usize) -> anyhow::Result<RankSubinterval> {
    let mut out = RankSubinterval::default();
    decode_into(bytes, rank, &mut out)?;
    Ok(out)
}

/// [`decode`] into `out`, reusing its histograms: a fresh set is 2.3 MB to allocate and fault in,
/// which cost rank 0 several ms per message on a busy host; clearing one costs a memset.
pub fn decode_into(bytes: &[u8], rank: usize, out: &mut RankSubinterval) -> anyhow::Result<()> {
    out.stats.reset();
    let mut r = Reader { b: bytes, at: 0 };
    let parsed = (|| -> anyhow::Result<()> {
        if r.u8()? != TAG {
            bail!("not an iogen subinterval message (a different iogen build on this rank?)");
        }
        out.phase = match r.u8()? {
            0 => Phase::Warmup,
            1 => Phase::Measure,
            p => bail!("unknown phase {p}"),
        };
        out.index = r.u64()? as usize;
        out.start_s = r.f64()?;
        out.seconds = r.f64()?;
        let bits = r.u8()?;
        out.verdict = Verdict {
            seen_enough: bits & 1 != 0,
            full: bits & 2 != 0,
            interrupted: bits & 4 != 0,
            disk_full: bits & 8 != 0,
        };
        let mut pct = [None; 3];
        for p in &mut pct {
            let x = r.f64()?;
            *p = (!x.is_nan()).then_some(x);
        }
        let cores = r.u64()? as usize;
        let iogen_pct = r.f64()?;
        out.cpu = CpuUsage { busy_pct: pct[0], sys_pct: pct[1], iowait_pct: pct[2], cores, iogen_pct };
        let IntervalStats { overall, read, write } = &mut out.stats;
        let (read_lists, write_lists) = out.buckets.split_at_mut(3);
        for (c, lists) in [(read, read_lists), (write, write_lists)] {
            read_category(&mut r, c, overall, lists)?;
        }
        if r.at != bytes.len() {
            bail!("{} bytes left over", bytes.len() - r.at);
        }
        Ok(())
    })();
    parsed.with_context(|| format!("reading the subinterval message of rank {rank} ({} bytes)", bytes.len()))
}

fn put_category(w: &mut Vec<u8>, c: &CategoryStats) {
    for x in [c.ios, c.bytes, c.errors, c.late_ios, c.on_time_ios] {
        put_u64(w, x);
    }
    for x in [c.service_sum_ns, c.response_sum_ns, c.lag_sum_ns] {
        w.extend_from_slice(&x.to_le_bytes());
    }
    for h in [&c.service, &c.response, &c.lag] {
        put_histogram(w, h);
    }
}

/// Read one category into `c` and add it to `overall` as it goes (bucket by bucket: the cost is
/// the non-empty buckets, not the histogram's 32,768 counters a `merge` would walk).
fn read_category(
    r: &mut Reader,
    c: &mut CategoryStats,
    overall: &mut CategoryStats,
    lists: &mut [Vec<(u64, u64)>],
) -> anyhow::Result<()> {
    for (x, o) in [
        (&mut c.ios, &mut overall.ios),
        (&mut c.bytes, &mut overall.bytes),
        (&mut c.errors, &mut overall.errors),
        (&mut c.late_ios, &mut overall.late_ios),
        (&mut c.on_time_ios, &mut overall.on_time_ios),
    ] {
        *x = r.u64()?;
        *o += *x;
    }
    for (x, o) in [
        (&mut c.service_sum_ns, &mut overall.service_sum_ns),
        (&mut c.response_sum_ns, &mut overall.response_sum_ns),
        (&mut c.lag_sum_ns, &mut overall.lag_sum_ns),
    ] {
        *x = u128::from_le_bytes(r.take(16)?.try_into().expect("16 bytes"));
        *o += *x;
    }
    let pairs = [
        (&mut c.service, &mut overall.service),
        (&mut c.response, &mut overall.response),
        (&mut c.lag, &mut overall.lag),
    ];
    for ((h, o), list) in pairs.into_iter().zip(lists) {
        read_histogram(r, h, o, list)?;
    }
    Ok(())
}

/// Non-empty buckets: their number, then (gap from the previous bucket's value, count) pairs.
fn put_histogram(w: &mut Vec<u8>, h: &Histogram<u64>) {
    let buckets: Vec<(u64, u64)> =
        h.iter_recorded().map(|v| (v.value_iterated_to(), v.count_since_last_iteration())).collect();
    put_varint(w, buckets.len() as u64);
    let mut prev = 0;
    for (value, count) in buckets {
        put_varint(w, value - prev);
        put_varint(w, count);
        prev = value;
    }
}

fn read_histogram(
    r: &mut Reader,
    h: &mut Histogram<u64>,
    also: &mut Histogram<u64>,
    list: &mut Vec<(u64, u64)>,
) -> anyhow::Result<()> {
    list.clear();
    let n = r.varint()?;
    let mut value = 0u64;
    for _ in 0..n {
        value = value.checked_add(r.varint()?).context("histogram value overflows")?;
        let count = r.varint()?;
        for h in [&mut *h, &mut *also] {
            h.record_n(value, count).map_err(|e| anyhow::anyhow!("histogram value {value} out of range: {e:?}"))?;
        }
        list.push((value, count));
    }
    Ok(())
}

fn put_u64(w: &mut Vec<u8>, x: u64) {
    w.extend_from_slice(&x.to_le_bytes());
}

fn put_f64(w: &mut Vec<u8>, x: f64) {
    w.extend_from_slice(&x.to_le_bytes());
}

fn put_varint(w: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        w.push((x as u8) | 0x80);
        x >>= 7;
    }
    w.push(x as u8);
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> anyhow::Result<&[u8]> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.b.len()).context("message cut short")?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> anyhow::Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u64(&mut self) -> anyhow::Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn f64(&mut self) -> anyhow::Result<f64> {
        Ok(f64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }
    fn varint(&mut self) -> anyhow::Result<u64> {
        let mut x = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            x |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(x);
            }
        }
        bail!("varint longer than 64 bits")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::OpKind;
    use crate::stats::{IoTimes, Launch};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Log-uniform latencies from 1 µs to 1 s, a mix of reads and writes, on-time and late.
    fn sample(seed: u64, n: usize) -> IntervalStats {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut s = IntervalStats::default();
        for _ in 0..n {
            let service = 10f64.powf(rng.random_range(3.0..9.0)) as u64;
            let wait = 10f64.powf(rng.random_range(0.0..7.0)) as u64;
            let launch = if rng.random::<f64>() < 0.1 { Launch::Late } else { Launch::OnTime { lag_ns: wait } };
            let kind = if rng.random::<f64>() < 0.7 { OpKind::Read } else { OpKind::Write };
            s.record(kind, 4096, IoTimes { service_ns: service, response_ns: service + wait, launch });
        }
        s.record_error(OpKind::Write);
        s
    }

    fn report(stats: &IntervalStats) -> SubintervalReport<'_> {
        let cpu = CpuUsage { busy_pct: Some(12.5), sys_pct: None, iowait_pct: Some(0.0), cores: 2, iogen_pct: 7.0 };
        SubintervalReport { phase: Phase::Measure, index: 4, start_s: 3.5, seconds: 0.5, stats, cpu }
    }

    fn assert_same(a: &CategoryStats, b: &CategoryStats) {
        assert_eq!(
            (a.ios, a.bytes, a.errors, a.late_ios, a.on_time_ios),
            (b.ios, b.bytes, b.errors, b.late_ios, b.on_time_ios)
        );
        assert_eq!(
            (a.service_sum_ns, a.response_sum_ns, a.lag_sum_ns),
            (b.service_sum_ns, b.response_sum_ns, b.lag_sum_ns)
        );
        assert!(a.service == b.service && a.response == b.response && a.lag == b.lag);
        assert_eq!(a.response_ms(), b.response_ms());
    }

    #[test]
    fn a_message_round_trips_exactly() {
        let stats = sample(7, 20_000);
        let verdict = Verdict { seen_enough: true, full: false, interrupted: true, disk_full: false };
        let bytes = encode(&report(&stats), verdict);
        let back = decode(&bytes, 1).unwrap();
        assert_eq!((back.phase, back.index, back.start_s, back.seconds), (Phase::Measure, 4, 3.5, 0.5));
        assert_eq!(back.verdict, verdict);
        assert_eq!(back.cpu, report(&stats).cpu);
        assert_same(&back.stats.overall, &stats.overall);
        assert_same(&back.stats.read, &stats.read);
        assert_same(&back.stats.write, &stats.write);
        // An idle rank's message is small.
        let empty = encode(&report(&IntervalStats::default()), Verdict::default());
        assert!(empty.len() < 400, "{}", empty.len());
    }

    #[test]
    fn merging_decoded_histograms_is_merging_the_originals() {
        let ranks: Vec<IntervalStats> = (0..3).map(|r| sample(100 + r, 5_000 + 3_000 * r as usize)).collect();
        let mut direct = IntervalStats::default();
        let mut via_wire = IntervalStats::default();
        for (r, s) in ranks.iter().enumerate() {
            direct.merge(s);
            via_wire.merge(&decode(&encode(&report(s), Verdict::default()), r).unwrap().stats);
        }
        assert_same(&via_wire.overall, &direct.overall);
        assert_same(&via_wire.write, &direct.write);
    }

    #[test]
    fn adding_buckets_is_merging() {
        let mut merged = IntervalStats::default();
        let mut added = IntervalStats::default();
        for r in 0..3 {
            let d = decode(&encode(&report(&sample(200 + r, 3_000)), Verdict::default()), r as usize).unwrap();
            merged.merge(&d.stats);
            add_to(&mut added, &d);
        }
        assert_same(&added.overall, &merged.overall);
        assert_same(&added.read, &merged.read);
        assert_same(&added.write, &merged.write);
    }

    #[test]
    fn damaged_messages_are_refused_naming_the_rank() {
        let bytes = encode(&report(&sample(1, 100)), Verdict::default());
        for bad in [&bytes[..bytes.len() - 1], &bytes[1..], &[][..]] {
            let e = decode(bad, 2).unwrap_err();
            assert!(format!("{e:#}").contains("rank 2"), "{e:#}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, 0).is_err());
    }
}
