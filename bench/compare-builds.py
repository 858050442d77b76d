#!/usr/bin/python3
"""Times `fxsplit split` of one graph with several builds, alternately.

    bench/compare-builds.py [--rounds N] [--threads N] GRAPH BUILD_DIR...

Each round runs every build once, in the order given, so that the machine's
changes of speed (this VM has a fast and a slow mode) fall on all of them
alike; the output file is deleted before each run, as bench/run.py does.
Prints, per build, the median and minimum wall time of the whole process,
the median of the steps `--verbose` reports, and the median peak RSS.
A BUILD_DIR is a meson build directory (its cli/fxsplit and plugins/);
BUILD_DIR=LABEL names it in the table.

--pause SECONDS sleeps before every run.  On this VM memory freed a few
seconds ago goes back to the host, and a process's first touch of fresh
memory then costs ~1.5 ms per MiB instead of ~0.1: back-to-back runs show
the warm case, runs after a pause of 3 s or more the cold one (a command run
once, or right after PyTorch's runs in bench/run.py).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

STEPS = re.compile(r"load ([0-9.]+) s .*split ([0-9.]+) s .*write ([0-9.]+) s")


def run_once(build, graph, out, threads):
    cmd = [os.path.join(build, "cli", "fxsplit"), "split", "--verbose",
           "--plugin-dir", os.path.join(build, "plugins"), graph,
           "--partitioner", "map", "--option", "meta_key=stage", "--output", f"json:{out}"]
    if threads:
        cmd[2:2] = ["--threads", str(threads)]
    if os.path.exists(out):
        os.unlink(out)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    err = proc.stderr.read()
    proc.stderr.close()
    if status != 0:
        sys.exit(f"compare-builds: {' '.join(cmd)}: exit status {status}: {err.strip()}")
    m = STEPS.search(err)
    steps = tuple(float(x) for x in m.groups()) if m else (float("nan"),) * 3
    return seconds, usage.ru_maxrss * 1024, steps


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--threads", type=int, default=0, help="fxsplit --threads (default: its own)")
    p.add_argument("--pause", type=float, default=0.0, help="seconds to sleep before each run (default 0)")
    p.add_argument("graph")
    p.add_argument("builds", nargs="+", metavar="BUILD_DIR[=LABEL]")
    args = p.parse_args()
    builds = []
    for spec in args.builds:
        path, _, label = spec.partition("=")
        if not os.access(os.path.join(path, "cli", "fxsplit"), os.X_OK):
            sys.exit(f"compare-builds: {path}: no cli/fxsplit in it")
        builds.append((path, label or path))
    results = {label: [] for _, label in builds}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        for _ in range(args.rounds):
            for path, label in builds:
                time.sleep(args.pause)
                results[label].append(run_once(path, args.graph, out, args.threads))
    pause = f", {args.pause:g} s pause before each run" if args.pause else ""
    print(f"{args.rounds} rounds, {args.graph}{pause}")
    print("| build | wall, median | wall, min | load | split | write | peak RSS |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for _, label in builds:
        runs = results[label]
        med = statistics.median
        print(f"| {label} | {med(r[0] for r in runs) * 1e3:.1f} ms | {min(r[0] for r in runs) * 1e3:.1f} ms "
              f"| {med(r[2][0] for r in runs) * 1e3:.0f} ms | {med(r[2][1] for r in runs) * 1e3:.0f} ms "
              f"| {med(r[2][2] for r in runs) * 1e3:.0f} ms | {med(r[1] for r in runs) / 2**20:.1f} MiB |")


if __name__ == "__main__":
    main()
