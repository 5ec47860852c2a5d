#!/usr/bin/env python3
"""Fills in the expected answers of tests/vectors/seen_enough.json from the documented rule.

Both variants of docs/functions/SEEN_ENOUGH.md: transient "off" (the precision rule below) and
"detect" (the default: MSER-5 truncation kept only when the dropped samples' mean differs from the
kept samples' mean by more than 2 long-run standard errors, a minimum steady-state window of
max(90, min_samples), the least-squares trend |t| <= 1.5, and h + 2|m - m2|/|m| <= accuracy on the
retained window; a pass at n also needs the first n - j*ceil(n/10) samples, j = 1, 2, to look steady:
the same start, the trend only when the retained part is at least the minimum window, and
h + 2|m' - m2'|/|m'| <= accuracy with the h judged at n; a FALSE answer says which check refused,
with its figure and limit, in why_not). The detect
part uses numpy for the batch means and regression and recomputes every candidate truncation from
scratch (no running sums), unlike both implementations under test.

An implementation independent of both the TypeScript core (src/core/seen-enough.ts) and iogen's
Rust (iogen/src/seen_enough.rs): written from docs/functions/SEEN_ENOUGH.md (the rule: windows
ending at the last sample, shortest first; h = k * t(1 - (1 - confidence)/2; L - 1) * s / sqrt(L) / |m|;
k = 1 (iid), 2 (ivy, Hitachi ivy's measure=on allowance), or the AR(1) factor
sqrt((1 + 2A)/(1 - 2A/(L - 1))), A = sum_{j=1}^{L-1} (1 - j/L) rho^j with
rho = clip(r + (1 + 4r)/n + 1.5*sqrt((1 - r^2)/n), 0, 0.95) from the lag-1 autocorrelation r of all
n samples). It recomputes every window from scratch (two-pass, math.fsum), takes Student's t
quantile from SciPy (scipy.stats.t.ppf), and refuses knife-edge cases (a window within 1e-6
relative of the accuracy), so a last-bit difference cannot flip a decision in either reader.

Inputs (the seeded samples and options) come from tests/vectors/generate-seen-enough.ts. Run both:
    npx tsx tests/vectors/generate-seen-enough.ts && python3 tests/vectors/expect-seen-enough.py
"""
import json
import math
import os

import numpy as np
from scipy.stats import t as student_t

HERE = os.path.dirname(os.path.abspath(__file__))
AR1_MIN_WINDOW = 30
AR1_MAX_RHO = 0.95
AR1_RHO_Z = 1.5
STEADY_MIN_WINDOW = 90
MSER_BATCH = 5
TREND_T_LIMIT = 1.5
DRIFT_WEIGHT = 2.0
RECHECK_FRACTION = 0.1
RECHECK_POINTS = 2
TRUNCATION_Z = 2.0
STEADY_MIN_SECONDS = 90.0
FIRST_CHANCE_TREND_T = 0.8
FIRST_CHANCE_RAMP = 0.2
LEVEL_TREND_T = 0.0


class Invalid(Exception):
    def __init__(self, argument, problem):
        super().__init__(f"{argument}: {problem}")


def lag1_autocorrelation(x):
    m = math.fsum(x) / len(x)
    den = math.fsum((v - m) ** 2 for v in x)
    num = math.fsum((x[i] - m) * (x[i + 1] - m) for i in range(len(x) - 1))
    return num / den if den > 0 else 0.0


def ar1_rho(x):
    n = len(x)
    r = lag1_autocorrelation(x)
    rho = r + (1 + 4 * r) / n + AR1_RHO_Z * math.sqrt(max(0.0, 1 - r * r) / n)
    return min(max(rho, 0.0), AR1_MAX_RHO)


def half_width(w, confidence, method, rho):
    length = len(w)
    m = math.fsum(w) / length
    if m == 0:
        return m, math.inf
    s = math.sqrt(math.fsum((v - m) ** 2 for v in w) / (length - 1))
    if method == "iid":
        k = 1.0
    elif method == "ivy":
        k = 2.0
    else:
        a = math.fsum((1 - j / length) * rho**j for j in range(1, length))
        k = math.sqrt((1 + 2 * a) / (1 - 2 * a / (length - 1)))
    t = abs(student_t.ppf((1 - confidence) / 2, length - 1))
    return m, k * t * s / math.sqrt(length) / abs(m)


def scaled(samples):
    """Divide by the largest |value| so squares neither underflow (1e-200) nor overflow (1e300)."""
    top = max(abs(v) for v in samples)
    if top == 0:
        return list(samples), 1.0
    return [v / top for v in samples], top


def mser5(y):
    """Samples to drop: 5 * argmin_d sum_{j>d}(Z_j - mean)^2 / (k - d)^2 over d = 0 .. k - 1 - trim."""
    k = len(y) // MSER_BATCH
    if k < 2:
        return 0
    z = np.asarray(y[: k * MSER_BATCH], dtype=float).reshape(k, MSER_BATCH).mean(axis=1)
    trim = max(1, min(5, k // 4))
    values = []
    for d in range(0, k - trim):
        kept = z[d:]
        values.append(float(np.sum((kept - kept.mean()) ** 2)) / (k - d) ** 2)
    best = min(values)
    ties = [d for d, v in enumerate(values) if v <= best * (1 + 1e-9) + 1e-300]
    if len(ties) > 1 and not all(values[d] == best for d in ties):
        raise RuntimeError(f"knife-edge MSER minimum: {[(d, values[d]) for d in ties]}")
    return MSER_BATCH * ties[0]


def trend_t(y, method):
    """Least-squares slope of y on its index over its standard error (AR(1) long-run factor from residuals)."""
    y = np.asarray(y, dtype=float)
    length = len(y)
    i = np.arange(length, dtype=float)
    slope, intercept = np.polyfit(i, y, 1)
    resid = y - (intercept + slope * i)
    sse = float(np.sum(resid**2))
    if method == "iid":
        k2 = 1.0
    elif method == "ivy":
        k2 = 4.0
    else:
        r = float(np.sum(resid[:-1] * resid[1:])) / sse if sse > 0 else 0.0
        rho = min(max(r + (1 + 4 * r) / length, 0.0), AR1_MAX_RHO)
        k2 = (1 + rho) / (1 - rho)
    sxx = float(np.sum((i - i.mean()) ** 2))
    se = math.sqrt(k2 * sse / (length - 2) / sxx)
    if se > 0 and se > 1e-12 * abs(slope) and sse > 1e-24 * length:
        return slope / se
    return 0.0 if abs(slope) < 1e-14 else math.copysign(math.inf, slope)


def long_run_factor(y, method):
    """k^2: 1 (iid), 4 (ivy), or (1 + rho)/(1 - rho) from y's lag-1 autocorrelation, bias-corrected."""
    if method == "iid":
        return 1.0
    if method == "ivy":
        return 4.0
    r = lag1_autocorrelation(y)
    rho = min(max(r + (1 + 4 * r) / len(y), 0.0), AR1_MAX_RHO)
    return (1 + rho) / (1 - rho)


def steady_start(y, method):
    """MSER-5's truncation, kept only if the dropped and kept means differ by > 2 standard errors."""
    d = mser5(y)
    if d == 0:
        return 0
    kept = y[d:]
    m_kept = math.fsum(kept) / len(kept)
    var = math.fsum((v - m_kept) ** 2 for v in kept) / (len(kept) - 1)
    se = math.sqrt(long_run_factor(kept, method) * var * (1 / d + 1 / len(kept)))
    gap = abs(math.fsum(y[:d]) / d - m_kept)
    if abs(gap - TRUNCATION_Z * se) <= 1e-6 * TRUNCATION_Z * se:
        raise RuntimeError(f"knife-edge truncation test: gap {gap}, {TRUNCATION_Z} SE = {TRUNCATION_Z * se}")
    return d if gap > TRUNCATION_Z * se else 0


def why_not(refusal, value, limit, at):
    """The check that refused a FALSE answer, its figure and limit, and the samples judged then."""
    return {"refusal": refusal, "value": value, "limit": limit, "at": at}


def looked_steady(y, h, accuracy, window_min, method, limit):
    """One look-back point: the start as in step 2, the trend if the retained part is long enough,
    and the drift allowance added to the h judged now. None when it looked steady, else why not."""
    end = len(y)
    d = steady_start(y, method)
    if 2 * d > end:
        return why_not("warm-up not over", d, end / 2, end)
    w = y[d:]
    if len(w) >= window_min:
        t = trend_t(w, method)
        if abs(abs(t) - limit) <= 1e-6:
            raise RuntimeError(f"knife-edge look-back trend t = {t}")
        if abs(t) > limit:
            return why_not("level moving", t, limit, end)
    m = math.fsum(w) / len(w)
    if m == 0:
        return why_not("not precise enough", math.inf, accuracy, end)
    half = len(w) // 2
    total = h + DRIFT_WEIGHT * abs(m - math.fsum(w[len(w) - half:]) / half) / abs(m)
    if abs(total - accuracy) <= 1e-6 * accuracy:
        raise RuntimeError(f"knife-edge look back: h + drift = {total}, accuracy {accuracy}")
    return None if total <= accuracy else why_not("not precise enough", total, accuracy, end)


def steady_floor(min_samples, subinterval_s):
    """The shortest steady-state window: max(90, min_samples, 3) samples, or ceil(T/dt - 1e-9) if longer."""
    by_samples = max(STEADY_MIN_WINDOW, min_samples, 3)
    if subinterval_s is None:
        return by_samples, "samples"
    by_seconds = math.ceil(STEADY_MIN_SECONDS / subinterval_s - 1e-9)
    return (by_seconds, "seconds") if by_seconds > by_samples else (by_samples, "samples")


def trend_limit_at(n, window_min):
    """0.8 at the floor, rising linearly to 1.5 at 1.2 times the floor."""
    rise = (TREND_T_LIMIT - FIRST_CHANCE_TREND_T) * max(0.0, (n - window_min) / (FIRST_CHANCE_RAMP * window_min))
    return min(TREND_T_LIMIT, FIRST_CHANCE_TREND_T + rise)


def trend_end_level(w, confidence, method):
    """Least-squares level at the last sample of w and its relative half-width (numpy polyfit)."""
    w = np.asarray(w, dtype=float)
    length = len(w)
    i = np.arange(length, dtype=float)
    slope, intercept = np.polyfit(i, w, 1)
    level = float(intercept + slope * (length - 1))
    resid = w - (intercept + slope * i)
    sse = float(np.sum(resid**2))
    if method == "iid":
        k = 1.0
    elif method == "ivy":
        k = 2.0
    else:
        r = float(np.sum(resid[:-1] * resid[1:])) / sse if sse > 1e-24 * length else 0.0
        rho = min(max(r + (1 + 4 * r) / length + AR1_RHO_Z * math.sqrt(max(0.0, 1 - r * r) / length), 0.0),
                  AR1_MAX_RHO)
        a = math.fsum((1 - j / length) * rho**j for j in range(1, length))
        k = math.sqrt((1 + 2 * a) / (1 - 2 * a / (length - 1)))
    sxx = float(np.sum((i - i.mean()) ** 2))
    se = math.sqrt(sse / (length - 2)) * math.sqrt(1 / length + ((length - 1) / 2) ** 2 / sxx)
    t = abs(student_t.ppf((1 - confidence) / 2, length - 2))
    if level == 0:
        return level, math.inf
    return level, k * t * se / abs(level)


def warmup_interval(y, d, method):
    """Earliest and latest start (0-based, steps of 5) the truncation test cannot tell apart from d."""
    n = len(y)
    kept = y[d:]
    m_kept = math.fsum(kept) / len(kept)
    k2s2 = long_run_factor(kept, method) * math.fsum((v - m_kept) ** 2 for v in kept) / (len(kept) - 1)

    def differs(a, b, c):  # mean of y[a:b] vs mean of y[b:c]
        se = math.sqrt(k2s2 * (1 / (b - a) + 1 / (c - b)))
        gap = abs(math.fsum(y[a:b]) / (b - a) - math.fsum(y[b:c]) / (c - b))
        if se > 0 and abs(gap - TRUNCATION_Z * se) <= 1e-6 * TRUNCATION_Z * se:
            raise RuntimeError(f"knife-edge warm-up interval at {a}, {b}, {c}")
        return gap > TRUNCATION_Z * se

    low = d
    b = d - MSER_BATCH
    while b >= 0:
        se = math.sqrt(k2s2 * (1 / (d - b) + 1 / (n - d)))
        gap = abs(math.fsum(y[b:d]) / (d - b) - m_kept)
        if se > 0 and abs(gap - TRUNCATION_Z * se) <= 1e-6 * TRUNCATION_Z * se:
            raise RuntimeError(f"knife-edge warm-up interval low at {b}")
        if gap > TRUNCATION_Z * se:
            break
        low = b
        b -= MSER_BATCH
    high = d
    b = d + MSER_BATCH
    while b <= n - MSER_BATCH:
        if not differs(d, b, n):
            break
        high = b
        b += MSER_BATCH
    return low, high


def relative_noise(w):
    m = math.fsum(w) / len(w)
    if m == 0:
        return math.nan
    return math.fsum((w[i] - w[i - 1]) ** 2 for i in range(1, len(w))) / (len(w) - 1) / (m * m)


def warnings_of(y, d, d2):
    """The non-stationarity warnings: cut moving, variance changing, bursts."""
    n = len(y)
    out = []
    if d > 0 and d - d2 >= math.ceil(n / 10):
        out.append("cut moving")
    w = y[d:]
    half = len(w) // 2
    if half >= 10:
        a, b = relative_noise(w[:half]), relative_noise(w[len(w) - half:])
        if not (math.isnan(a) or math.isnan(b) or (a == 0 and b == 0)):
            for big, small in ((a, b), (b, a)):
                if small > 0 and abs(big / small - 4) <= 1e-6 * 4:
                    raise RuntimeError(f"knife-edge variance ratio {big / small}")
            if a > 4 * b or b > 4 * a:
                out.append("variance changing")
    if len(w) >= 3:
        med = float(np.median(w))
        squares = sorted(((v - med) ** 2 for v in w), reverse=True)
        total = math.fsum(squares)
        top = math.fsum(squares[: math.ceil(len(w) / 50)])
        if total > 0 and abs(top - 0.5 * total) <= 1e-6 * total:
            raise RuntimeError("knife-edge bursts share")
        if total > 0 and top > 0.5 * total:
            out.append("bursts")
    return out


def detect_rule(samples, accuracy, confidence, min_samples, method, subinterval_s=None):
    y, scale = scaled(samples)
    window_min, bound_by = steady_floor(min_samples, subinterval_s)
    answer, limit = detect_steps(y, scale, accuracy, confidence, window_min, method)
    answer.update(bound_by=bound_by, min_window=window_min)
    n = len(y)
    d = answer["from"] - 1
    low, high = warmup_interval(y, d, method) if n - d >= 2 else (d, d)
    answer.update(from_low=low + 1, from_high=high + 1)
    answer["warnings"] = warnings_of(y, d, steady_start(y[: n - 2 * math.ceil(n / 10)], method)) \
        if n >= window_min else []
    if not answer["seen_enough"]:
        return answer
    step = math.ceil(n * RECHECK_FRACTION)
    for j in range(1, RECHECK_POINTS + 1):
        earlier = looked_steady(y[: n - j * step], answer["achieved"], accuracy, window_min, method, limit)
        if earlier is not None:
            return dict(answer, seen_enough=False, why_not=earlier)
    return answer


def detect_steps(y, scale, accuracy, confidence, window_min, method):
    """Steps 1-4 of the detect rule on scaled samples y (the look back is detect_rule's); also the level."""
    n = len(y)
    limit = trend_limit_at(n, window_min)

    def answer(refused, d, t=None):
        """refused: why steps 1-3 refused (None: they passed and step 4 judges precision)."""
        w = y[d:]
        rho = ar1_rho(w) if method == "ar1" else 0.0
        m, h = half_width(w, confidence, method, rho)
        if h == math.inf:
            raise Invalid("samples", "the steady-state window's mean is 0, so no relative accuracy exists")
        half = len(w) // 2
        drift = DRIFT_WEIGHT * abs(m - math.fsum(w[len(w) - half:]) / half) / abs(m) if half >= 1 else 0.0
        if refused is None and abs(h + drift - accuracy) <= 1e-6 * accuracy:
            raise RuntimeError(f"knife-edge precision: h + drift = {h + drift}, accuracy {accuracy}")
        if t is None and len(w) >= 3:
            t = trend_t(w, method)
        level, level_h, kind = m, h, "mean"
        if t is not None and abs(t) >= LEVEL_TREND_T:
            fit, fit_h = trend_end_level(w, confidence, method)
            if math.isfinite(fit_h):
                level, level_h, kind = fit, fit_h, "trend end"
        if refused is None and h + drift > accuracy:
            refused = why_not("not precise enough", h + drift, accuracy, n)
        return {"seen_enough": refused is None, "from": d + 1, "samples": n - d,
                "mean": m * scale, "achieved": h, "required": accuracy,
                "level": level * scale, "level_achieved": level_h, "level_kind": kind, "why_not": refused}

    if n < window_min:
        return answer(why_not("too few samples", n, window_min, n), 0), limit
    d = steady_start(y, method)
    if 2 * d > n:
        return answer(why_not("warm-up not over", d, n / 2, n), d), limit
    if n - d < window_min:
        return answer(why_not("window too short", n - d, window_min, n), d), limit
    t = trend_t(y[d:], method)
    if abs(abs(t) - limit) <= 1e-6:
        raise RuntimeError(f"knife-edge trend t = {t}")
    return answer(None if abs(t) <= limit else why_not("level moving", t, limit, n), d, t), limit


def rule(samples, accuracy, confidence, min_samples, method, transient="off", subinterval_s=None):
    if subinterval_s is not None and not (math.isfinite(subinterval_s) and subinterval_s > 0):
        raise Invalid("subinterval_s", f"must be > 0, got {subinterval_s}")
    if transient == "detect":
        check(samples, accuracy, confidence, min_samples)
        return detect_rule(samples, accuracy, confidence, min_samples, method, subinterval_s)
    out = precision_rule(samples, accuracy, confidence, min_samples, method)
    lmin = max(AR1_MIN_WINDOW if method == "ar1" else 2, min_samples)
    n = len(samples)
    out.update(bound_by="samples", min_window=lmin,
               from_low=out["from"], from_high=out["from"], level=out["mean"], level_achieved=out["achieved"],
               level_kind="mean", warnings=[],
               why_not=None if out["seen_enough"] else why_not("too few samples", n, lmin, n) if n < lmin
               else why_not("not precise enough", out["achieved"], accuracy, n))
    return out


def check(samples, accuracy, confidence, min_samples):
    if not 0 < accuracy < 1:
        raise Invalid("accuracy", f"must be a fraction in (0, 1), got {accuracy}")
    if not 0 < confidence < 1:
        raise Invalid("confidence", f"must be in (0, 1), got {confidence}")
    if not (isinstance(min_samples, int) and min_samples >= 1):
        raise Invalid("min_samples", f"must be a whole number >= 1, got {min_samples}")
    if len(samples) < 2:
        raise Invalid("samples", f"need at least 2 values, got {len(samples)}")


def precision_rule(samples, accuracy, confidence, min_samples, method):
    check(samples, accuracy, confidence, min_samples)
    samples, scale = scaled(samples)
    out = precision_rule_scaled(samples, accuracy, confidence, min_samples, method)
    out["mean"] *= scale
    return out


def precision_rule_scaled(samples, accuracy, confidence, min_samples, method):
    if not 0 < accuracy < 1:
        raise Invalid("accuracy", f"must be a fraction in (0, 1), got {accuracy}")
    if not 0 < confidence < 1:
        raise Invalid("confidence", f"must be in (0, 1), got {confidence}")
    if not (isinstance(min_samples, int) and min_samples >= 1):
        raise Invalid("min_samples", f"must be a whole number >= 1, got {min_samples}")
    n = len(samples)
    if n < 2:
        raise Invalid("samples", f"need at least 2 values, got {n}")
    rho = ar1_rho(samples) if method == "ar1" else 0.0
    lmin = max(AR1_MIN_WINDOW if method == "ar1" else 2, min_samples)
    if n < lmin:
        m, h = half_width(samples, confidence, method, rho)
        if h == math.inf:
            raise Invalid("samples", "the mean is 0, so no relative accuracy exists")
        return {"seen_enough": False, "from": 1, "samples": n, "mean": m, "achieved": h, "required": accuracy}
    best = None
    for length in range(lmin, n + 1):
        m, h = half_width(samples[n - length:], confidence, method, rho)
        if abs(h - accuracy) <= 1e-6 * accuracy:
            raise RuntimeError(f"knife-edge window of {length}: h = {h}, accuracy {accuracy}")
        if h <= accuracy:
            return {"seen_enough": True, "from": n - length + 1, "samples": length, "mean": m, "achieved": h,
                    "required": accuracy}
        if best is None or h < best[2]:
            best = (n - length, m, h)
    if best[2] == math.inf:
        raise Invalid("samples", "every candidate window has mean 0, so no relative accuracy exists")
    start, m, h = best
    return {"seen_enough": False, "from": start + 1, "samples": n - start, "mean": m, "achieved": h,
            "required": accuracy}


if __name__ == "__main__":
    path = os.path.join(HERE, "seen_enough.json")
    with open(path) as fh:
        doc = json.load(fh)
    for case in doc["cases"]:
        try:
            case["expected"] = rule(case["samples"], case["accuracy"], case["confidence"], case["min_samples"],
                                    case["method"], case.get("transient", "off"), case.get("subinterval_s"))
        except Invalid as e:
            case["expected"] = {"error": str(e)}
        why = case["expected"].get("why_not")
        if why is not None and not math.isfinite(why["value"]):
            why["value"] = None  # JSON has no Infinity: a noiseless trend's t
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    print(f"wrote expected answers for {len(doc['cases'])} cases to {path}")
