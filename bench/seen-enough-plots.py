#!/usr/bin/env python3
"""Draws the real series of tests/fixtures/steady-state-real/ with SEEN_ENOUGH's answers marked, for
docs/seen-enough.md. Reads docs/seen-enough/real-replay.json (written by bench/seen-enough-real.ts,
which replays each series through the TypeScript rule) and the fixtures; writes
docs/seen-enough/real-<series>.png. Needs matplotlib (for the docs only; no test uses it).

    npx tsx bench/seen-enough-real.ts && python3 bench/seen-enough-plots.py
"""
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "steady-state-real")
OUT = os.path.join(ROOT, "docs", "seen-enough")
WARNING_COLOURS = {"cut moving": "tab:red", "variance changing": "tab:purple", "bursts": "tab:brown"}
# Runs whose warm-up end is marked, found from the raw series without the rule (the method of
# tests/fixtures/steady-state-real/analyse.py), and runs with a known moment to mark.
WARMUP_MARKED = {"fio-fresh-8g-100ms-f.log", "fio-fresh-8g-1s-g.log"}
EVENTS = {"fio-disturbed-2g-100ms-h.log": (100, "disturber stops (100 s)")}


def load(file):
    with open(os.path.join(FIXTURES, file)) as fh:
        lines = fh.read().strip().split("\n")
    if lines[0].startswith("subinterval"):
        return [float(line.split(",")[3]) for line in lines[1:]]
    return [float(line.split(",")[1]) for line in lines]


def warmup_end(per_second):
    """Seconds: the end of the first 10-s stretch within 5 % of the mean of the last 60 s."""
    level = sum(per_second[-60:]) / 60
    for k in range(len(per_second) - 9):
        if abs(sum(per_second[k:k + 10]) / 10 / level - 1) <= 0.05:
            return k + 10
    return None


def mark(ax, outcome, colour, label, style):
    """The stop (or the answer at the end), its window and the earliest/latest start."""
    if outcome["stopSeconds"] is not None:
        ax.axvline(outcome["stopSeconds"], color=colour, linestyle=style, linewidth=1.5,
                   label=f"{label}: stops at {outcome['stopSeconds']:.1f} s")
        ax.axvspan(outcome["fromSeconds"], outcome["stopSeconds"], color=colour, alpha=0.08)
        ax.hlines(outcome["level"], outcome["fromSeconds"], outcome["stopSeconds"], color=colour, linewidth=2)
    else:
        ax.plot([], [], color=colour, linestyle=style, label=f"{label}: never stops")


def main():
    with open(os.path.join(OUT, "real-replay.json")) as fh:
        runs = json.load(fh)
    by_file = {}
    for run in runs:
        by_file.setdefault(run["file"], []).append(run)
    for file, readings in by_file.items():
        x = load(file)
        dt = readings[0]["dt"]
        fig, ax = plt.subplots(figsize=(9, 4.8), dpi=110)
        ax.plot([dt * (i + 1) for i in range(len(x))], [v / 1000 for v in x], color="0.75", linewidth=0.6,
                label=f"IOPS per {'100 ms' if dt == 0.1 else '1 s'}")
        if dt == 0.1:
            per_s = [sum(x[10 * i:10 * i + 10]) / 10 for i in range(len(x) // 10)]
            ax.plot([i + 1 for i in range(len(per_s))], [v / 1000 for v in per_s], color="black", linewidth=1.1,
                    label="mean of each second")
        ax.axvline(90, color="0.4", linestyle=":", linewidth=1, label="90-s floor")
        per_second = [sum(x[10 * i:10 * i + 10]) / 10 for i in range(len(x) // 10)] if dt == 0.1 else x
        if file in WARMUP_MARKED:
            end = warmup_end(per_second)
            ax.axvspan(0, end, color="tab:red", alpha=0.06,
                       label=f"warm-up: 10-s mean within 5 % of the final level from {end} s")
        if file in EVENTS:
            seconds, text = EVENTS[file]
            ax.axvline(seconds, color="tab:red", linestyle="--", linewidth=1, label=text)
        styles = {0.1: ("tab:blue", "-"), 1: ("tab:green", "--")}
        for reading in readings:
            colour, style = styles[reading["readAt"]]
            at = "100 ms" if reading["readAt"] == 0.1 else "1 s"
            timed = dict(reading["timed"])
            timed["level"] = timed["level"] / 1000
            mark(ax, timed, colour, f"read at {at}", style)
            only = reading["samplesOnly"]["stopSeconds"]
            if only is not None and only != reading["timed"]["stopSeconds"]:
                ax.axvline(only, color="tab:orange", linestyle="-.", linewidth=1.2,
                           label=f"read at {at}, floor in samples only: would stop at {only:.1f} s")
            for warning, seconds in reading["timed"]["warnings"].items():
                ax.plot(seconds, 0, marker="^", color=WARNING_COLOURS[warning], markersize=8, clip_on=False,
                        label=f"{warning} (first at {seconds:.0f} s, read at {at})")
        ax.set_xlabel("seconds")
        ax.set_ylabel("thousand IOPS")
        ax.set_ylim(bottom=0)
        ax.set_title(readings[0]["label"], fontsize=10)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
        fig.tight_layout()
        name = os.path.splitext(file)[0]
        path = os.path.join(OUT, f"real-{name}.png")
        fig.savefig(path)
        plt.close(fig)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
