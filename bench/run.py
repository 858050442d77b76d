#!/usr/bin/python3
"""Runs the whole benchmark and prints the Markdown tables of docs/PERFORMANCE.md.

For each size (10^3 .. 10^6 nodes, 10^7 with --with-1e7) it
  1. generates the graph with bench/gen-graph (call nodes tagged with their
     contiguous stage, --stages=K),
  2. runs bench/bench-split: load time, engine split time (contiguous and
     round-robin), peak RSS,
  3. times the whole command
       fxsplit split GRAPH --partitioner map --option meta_key=stage
                     --output json:OUT
     (the same contiguous partitions, read from the stage tags), --repeat
     times, and as many times again after PyTorch's runs where PyTorch runs,
  4. runs bench/torch_split.py (PyTorch 1.13's split_module on the same graph
     and the same partitions) up to --torch-max nodes, and checks that both
     tools produce the same partitions (node, input and output counts and the
     ordered input names),
then prints the tables.  Raw measurements (one JSON object per line) go to
WORK_DIR/results.jsonl; --report-only re-prints the tables from that file.

Usage: /usr/bin/python3 bench/run.py [--with-1e7] [--build-dir build-bench]
"""

import argparse
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class BenchError(Exception):
    """A step failed; the message names the command and what it said."""


# ---- running things ---------------------------------------------------------


def run_json_lines(cmd, timeout=None):
    """Runs @cmd and returns its stdout's JSON lines, its wall time and peak RSS."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise BenchError(f"{' '.join(cmd)}: no result within {timeout} s") from None
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise BenchError(f"{' '.join(cmd)}: exit {proc.returncode}: {err.strip()[:500]}")
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")], seconds


def time_command(cmd):
    """Wall time, CPU time (user + system), peak RSS (bytes), exit status and
    stderr of one run of @cmd."""
    # stderr to a file, not a pipe: nothing reads a pipe while we wait.
    with tempfile.TemporaryFile() as err_file:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err_file)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err_file.seek(0)
        err = err_file.read().decode(errors="replace").strip()
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, proc.returncode, err


STEPS_RE = re.compile(r"fxsplit: times: prepare ([0-9.]+) s, load ([0-9.]+) s \(\d+ nodes\), "
                      r"split ([0-9.]+) s \(\d+ partitions\), write ([0-9.]+) s")


def command_steps(stderr):
    """The step times `fxsplit split --verbose` prints on its "times:" line."""
    m = STEPS_RE.search(stderr)
    if not m:
        return {}
    return {f"{step}_seconds": float(v) for step, v in zip(("prepare", "load", "split", "write"),
                                                             m.groups())}


def wait_for_quiet_machine(max_load, max_wait, log):
    """Waits (up to @max_wait s) until the 1-minute load average is below @max_load."""
    waited = 0
    while os.getloadavg()[0] > max_load and waited < max_wait:
        if waited == 0:
            log(f"load average {os.getloadavg()[0]:.2f} > {max_load}: waiting up to {max_wait} s")
        time.sleep(10)
        waited += 10
    return os.getloadavg()[0]


# ---- one size ---------------------------------------------------------------


def reused_torch_records(sources, n):
    """PyTorch's records for size @n from earlier results files [(path,
    records)]: per naming, those of the last file that has that naming."""
    chosen = {}
    for path, records in sources:
        by_naming = {}
        for r in records:
            if r.get("size") == n and r.get("tool") == "torch_split":
                by_naming.setdefault(r.get("naming"), []).append({**r, "reused_from": path})
        chosen.update(by_naming)
    # The prepare and partitions lines carry a naming too: keep file order.
    return [r for naming in sorted(chosen, key=str) for r in chosen[naming]]


def bench_size(args, n, record, log):
    path = os.path.join(args.work_dir, f"graph-{n}.json")
    out_path = os.path.join(args.work_dir, f"split-{n}.json")
    big = n >= 10_000_000
    repeat = args.repeat_1e7 if big else args.repeat
    try:
        lines, _ = run_json_lines([args.gen_graph, f"--nodes={n}", f"--stages={args.partitions}",
                                   path])
        record({"size": n, **lines[0]})
        log(f"{n}: generated {lines[0]['bytes'] / 1e6:.1f} MB in {lines[0]['seconds']:.2f} s")

        load_avg = wait_for_quiet_machine(args.max_load, args.max_wait, log)
        modes = "contiguous" if big else "both"
        lines, _ = run_json_lines([args.bench_split, f"--partitions={args.partitions}",
                                   f"--repeat={repeat}", f"--mode={modes}", path])
        for line in lines:
            record({"size": n, "load_average_before": load_avg, **line})
        log(f"{n}: bench-split done")

        # --verbose: the command says how long each of its steps took
        cmd = [args.fxsplit, "split", "--verbose", "--plugin-dir", args.plugin_dir, path,
               "--partitioner", "map", "--option", "meta_key=stage", "--output", f"json:{out_path}"]

        def time_fxsplit(runs):
            for run in runs:
                seconds, cpu, rss, code, err = time_command(cmd)
                if code != 0:
                    raise BenchError(f"{' '.join(cmd)}: exit {code}: {err[:500]}")
                record({"size": n, "tool": "fxsplit", "phase": "command", "run": run,
                        "seconds": round(seconds, 6), "cpu_seconds": round(cpu, 6),
                        "peak_rss_bytes": rss, "output_bytes": os.path.getsize(out_path),
                        "command": " ".join(cmd), **command_steps(err)})
                os.unlink(out_path)

        time_fxsplit(range(repeat))
        if not big:
            # PyTorch's docstring partitioning through the command: the time to
            # load the graph and reject the cycle (exit status 4).
            cycle_cmd = cmd[:cmd.index("--partitioner")] + [
                "--partitioner", "modulo", "--option", f"partitions={args.partitions}"]
            seconds, cpu, rss, code, err = time_command(cycle_cmd)
            record({"size": n, "tool": "fxsplit", "phase": "command-modulo", "seconds": round(seconds, 6),
                    "cpu_seconds": round(cpu, 6),
                    "peak_rss_bytes": rss, "exit_status": code, "error": err[:300],
                    "command": " ".join(cycle_cmd)})
        log(f"{n}: fxsplit command done")

        if args.reuse_torch:
            # PyTorch's times do not depend on fxsplit's code: take them from an
            # earlier run on the same graph (gen-graph is deterministic).
            for r in reused_torch_records(args.reuse_torch, n):
                record(r)
        elif n <= args.torch_max:
            # PyTorch's one run at 10^5 varies by half (9-15 s seen): three
            # there, one from 10^6 on (minutes each)
            torch_repeat = (args.torch_repeat if n < 100_000
                            else min(3, args.torch_repeat) if n < 1_000_000 else 1)
            for naming in ("linear", "1.13"):
                torch_cmd = [sys.executable, os.path.join(HERE, "torch_split.py"),
                             f"--partitions={args.partitions}", f"--repeat={torch_repeat}", path]
                if naming == "linear":
                    torch_cmd.insert(2, "--linear-naming")
                wait_for_quiet_machine(args.max_load, args.max_wait, log)
                try:
                    lines, _ = run_json_lines(torch_cmd, timeout=args.torch_timeout)
                except BenchError as e:
                    # Too slow or too big: reported, and extrapolated from smaller sizes.
                    reason = "timed out" if "no result within" in str(e) else "failed"
                    record({"size": n, "tool": "torch_split", "phase": "failed", "naming": naming,
                            "reason": reason, "timeout_seconds": args.torch_timeout,
                            "message": str(e)[-300:]})
                    log(f"{n}: torch_split ({naming} naming) failed: {e}")
                    continue
                for line in lines:
                    record({"size": n, **line})
                log(f"{n}: torch_split ({naming} naming) done")
            # As many runs again after PyTorch's: this machine's speed changes
            # minute to minute, and the median then spans PyTorch's runs.
            wait_for_quiet_machine(args.max_load, args.max_wait, log)
            time_fxsplit(range(repeat, 2 * repeat))
            log(f"{n}: fxsplit command again, after PyTorch")
    finally:
        for p in (out_path, path) if (big or not args.keep_graphs) else (out_path,):
            if os.path.exists(p):
                os.unlink(p)


# ---- the report -------------------------------------------------------------


def find(records, size, **match):
    return [r for r in records if r.get("size") == size
            and all(r.get(k) == v for k, v in match.items())]


def one(records, size, **match):
    found = find(records, size, **match)
    return found[-1] if found else None


def fmt_seconds(s):
    if s is None:
        return "–"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def fmt_bytes(b):
    if b is None:
        return "–"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= scale:
            return f"{b / scale:.1f} {unit}"
    return f"{b} B"


def fmt_count(n):
    exp = round(math.log10(n))
    return f"10^{exp}" if 10**exp == n else str(n)


def fmt_ratio(a, b):
    if a is None or b is None or b == 0:
        return "–"
    r = a / b
    return f"{r:,.0f}×" if r >= 10 else f"{r:.1f}×"


def timed_out_after(records, n, naming):
    """A lower bound of PyTorch's split time at @n when its run timed out: the
    timeout less the preparation time measured at that size with the other
    naming (or 0), else None."""
    failed = one(records, n, tool="torch_split", phase="failed", naming=naming)
    if not failed or failed.get("reason") != "timed out":
        return None
    timeout = failed.get("timeout_seconds")
    if timeout is None:
        found = re.search(r"no result within ([0-9.]+) s", failed.get("message", ""))
        timeout = float(found.group(1)) if found else 0
    prep = one(records, n, tool="torch_split", phase="prepare")
    if prep:
        timeout -= prep["json_seconds"] + prep["graph_seconds"] + prep["graphmodule_seconds"]
    return timeout


def torch_times(records, sizes, naming):
    """PyTorch's split times by size: {n: (seconds, how)}, how being
    "measured" (the median), "lower bound" (the run timed out) or
    "extrapolated" (a power law through the two largest measured sizes, for
    larger sizes PyTorch was not run on)."""
    measured = {}
    result = {}
    for n in sizes:
        s = one(records, n, tool="torch_split", phase="split", summary=True, naming=naming)
        if s:
            measured[n] = s["median_seconds"]
            result[n] = (s["median_seconds"], "measured")
        elif timed_out_after(records, n, naming) is not None:
            result[n] = (timed_out_after(records, n, naming), "lower bound")
    points = sorted(measured.items())
    if len(points) >= 2:
        (n1, t1), (n2, t2) = points[-2], points[-1]
        exponent = math.log(t2 / t1) / math.log(n2 / n1)
        for n in sizes:
            if n not in result and n > n2:
                result[n] = (t2 * (n / n2) ** exponent, "extrapolated")
    return result


def fxsplit_rows(records, sizes):
    rows = []
    prev = None
    for n in sizes:
        load = one(records, n, tool="bench-split", phase="load", summary=True)
        split = one(records, n, tool="bench-split", phase="split", mode="contiguous", summary=True)
        cmd = find(records, n, tool="fxsplit", phase="command")
        gen = one(records, n, tool="gen-graph")
        if not (load and split and gen):
            continue
        row = {
            "n": n, "file": gen["bytes"], "load": load, "split": split,
            "t_load": load["median_seconds"], "t_split": split["median_seconds"],
            "t_cmd": statistics.median(r["seconds"] for r in cmd) if cmd else None,
            "c_load": load.get("median_cpu_seconds"), "c_split": split.get("median_cpu_seconds"),
            "c_cmd": statistics.median(r["cpu_seconds"] for r in cmd) if cmd else None,
            "cmd_min": min(r["seconds"] for r in cmd) if cmd else None,
            "cmd_rss": max(r["peak_rss_bytes"] for r in cmd) if cmd else None,
        }
        first = one(records, n, tool="bench-split", phase="split", mode="contiguous", run=0)
        row["t_split_first"] = first["seconds"] if first else None
        for step in ("load", "split", "write"):
            times = [r[f"{step}_seconds"] for r in cmd if f"{step}_seconds" in r]
            row[f"cmd_{step}"] = statistics.median(times) if times else None
        row["peak"] = max(load["peak_rss_bytes"], split["split_peak_rss_bytes"])
        # Bytes per node of what the graph and the split add to the process.
        row["per_node"] = (row["peak"] - load.get("rss_at_start_bytes", 0)) / n
        row["growth"] = "–"
        if prev and prev["n"] * 10 == n:
            g = [row[k] / prev[k] if prev[k] and row[k] else None
                 for k in ("t_load", "t_split", "t_cmd")]
            row["growth"] = " / ".join(f"{x:.1f}" if x else "–" for x in g)
        rows.append(row)
        prev = row
    return rows


def report(records, sizes):
    lines = []
    meta = next((r for r in records if r.get("tool") == "run.py"), {})
    if meta:
        lines += [f"Machine: {meta['cpu']}, {meta['nproc']} cores, {fmt_bytes(meta['memory_bytes'])} "
                  f"RAM, Linux {meta['kernel']}; build {meta['buildtype']}; "
                  f"PyTorch {meta.get('torch', '?')}; {meta['partitions']} partitions; "
                  f"started {meta['started']} (load average {meta['load_average']:.2f}); "
                  f"commit {meta.get('git', '?')}"
                  + (f", with uncommitted changes to {', '.join(meta['modified'])}"
                     if meta.get("modified") else "") + ".", ""]
    rows = fxsplit_rows(records, sizes)

    lines += ["fxsplit (medians of wall time, CPU time in parentheses; contiguous partitions):", "",
              "| nodes | file | load | engine split | fxsplit command | peak RSS (bytes/node) "
              "| command peak RSS | growth per 10× (load / split / command) |",
              "|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        lines.append(
            f"| {fmt_count(r['n'])} | {fmt_bytes(r['file'])} "
            f"| {fmt_seconds(r['t_load'])} ({fmt_seconds(r['c_load'])}) "
            f"| {fmt_seconds(r['t_split'])} ({fmt_seconds(r['c_split'])}) "
            f"| {fmt_seconds(r['t_cmd'])} ({fmt_seconds(r['c_cmd'])}) "
            f"| {fmt_bytes(r['peak'])} ({r['per_node']:.0f}) | {fmt_bytes(r['cmd_rss'])} "
            f"| {r['growth']} |")

    lines += ["", "Where the command's time goes (medians of the steps `fxsplit split --verbose` "
              "reports), and the engine's first run in a fresh process (bench-split's run 0, which "
              "is what the command does; the engine column above is the median of warm runs):", "",
              "| nodes | command: load | command: partition + split | command: write json "
              "| engine, first run |",
              "|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {fmt_count(r['n'])} | {fmt_seconds(r['cmd_load'])} | {fmt_seconds(r['cmd_split'])} "
                     f"| {fmt_seconds(r['cmd_write'])} | {fmt_seconds(r['t_split_first'])} |")

    torch = {naming: torch_times(records, sizes, naming) for naming in ("1.13", "linear")}
    lines += ["", "Against PyTorch's split_module on the same graph and partitions (medians of wall "
              "time, CPU time in parentheses, ratios of wall times; "
              "\"linear naming\": 1.13 with later PyTorch's per-base name counter patched in):", "",
              "| nodes | PyTorch 1.13 | ÷ engine | ÷ command | PyTorch, linear naming | ÷ engine "
              "| ÷ command | same partitions |",
              "|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        cells = []
        for naming in ("1.13", "linear"):
            t, how = torch[naming].get(r["n"], (None, "measured"))
            ts = one(records, r["n"], tool="torch_split", phase="split", summary=True, naming=naming)
            if how == "lower bound":
                cells += [f"> {fmt_seconds(t)} (timed out)", "> " + fmt_ratio(t, r["t_split"]),
                          "> " + fmt_ratio(t, r["t_cmd"])]
                continue
            cpu = f" ({fmt_seconds(ts['median_cpu_seconds'])})" if ts and "median_cpu_seconds" in ts else ""
            mark = " (extrapolated)" if how == "extrapolated" else cpu
            cells += [f"{fmt_seconds(t)}{mark}", fmt_ratio(t, r["t_split"]), fmt_ratio(t, r["t_cmd"])]
        lines.append(f"| {fmt_count(r['n'])} | " + " | ".join(cells)
                     + f" | {compare_partitions(records, r['n'])} |")

    lines += ["", "Spread and side measurements (round-robin = PyTorch's docstring partitioning, "
              "cyclic on residual graphs: the time to find and report the cycle):", "",
              "| nodes | load min | split min | command min | round-robin: engine "
              "| round-robin: command (exit status) | PyTorch runs (1.13 / linear) "
              "| PyTorch prepare | PyTorch peak RSS | load average |",
              "|---:|---:|---:|---:|---|---|---:|---:|---:|---|"]
    for r in rows:
        n = r["n"]
        rr = one(records, n, tool="bench-split", phase="split", mode="round-robin", summary=True)
        rr_run = one(records, n, tool="bench-split", phase="split", mode="round-robin", run=0)
        rr_text = "–"
        if rr:
            rr_text = f"{fmt_seconds(rr['median_seconds'])}, {rr_run['status'] if rr_run else '?'}"
        mod = one(records, n, tool="fxsplit", phase="command-modulo")
        mod_text = f"{fmt_seconds(mod['seconds'])} ({mod['exit_status']})" if mod else "–"
        ts = {k: one(records, n, tool="torch_split", phase="split", summary=True, naming=k)
              for k in ("1.13", "linear")}
        runs = " / ".join(str(ts[k]["runs"]) if ts[k] else "–" for k in ts)
        failed = one(records, n, tool="torch_split", phase="failed")
        if failed:
            runs += f" ({failed['naming']}: {failed['reason']})"
        tp = one(records, n, tool="torch_split", phase="prepare")
        prep = tp["json_seconds"] + tp["graph_seconds"] + tp["graphmodule_seconds"] if tp else None
        peak = max((t["split_peak_rss_bytes"] for t in ts.values() if t), default=None)
        loads = [x["load_average"] for x in find(records, n)
                 if "load_average" in x and "reused_from" not in x]
        load_text = f"{min(loads):.2f}–{max(loads):.2f}" if loads else "–"
        lines.append(
            f"| {fmt_count(n)} | {fmt_seconds(r['load']['min_seconds'])} "
            f"| {fmt_seconds(r['split']['min_seconds'])} | {fmt_seconds(r['cmd_min'])} "
            f"| {rr_text} | {mod_text} | {runs} | {fmt_seconds(prep)} | {fmt_bytes(peak)} "
            f"| {load_text} |")
    return "\n".join(lines)


def compare_partitions(records, n):
    ours = one(records, n, tool="bench-split", phase="partitions", mode="contiguous")
    theirs = one(records, n, tool="torch_split", phase="partitions")
    if not ours or not theirs:
        return "not compared"
    a, b = ours["partitions_called"], theirs["partitions_called"]
    if a == b:
        return f"yes ({len(a)} partitions)"
    diff = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return f"NO: first difference at partition #{diff}"


# ---- main -------------------------------------------------------------------


def machine_info(args):
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) * 1024
    buildtype = "?"
    try:
        with open(os.path.join(args.build_dir, "meson-info", "intro-buildoptions.json")) as f:
            buildtype = next(o["value"] for o in json.load(f) if o["name"] == "buildtype")
    except (OSError, StopIteration, ValueError):
        pass
    try:
        torch_version = subprocess.run([sys.executable, "-c", "import torch; print(torch.__version__)"],
                                       capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        torch_version = None
    # The tree is shared and edited while we measure: say what was built.
    git = subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%h %cI"],
                         capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.split("\n")
    dirty = [line[3:] for line in dirty if line.strip()]
    return {"tool": "run.py", "git": git, "modified": dirty, "cpu": cpu, "nproc": os.cpu_count(), "memory_bytes": mem,
            "kernel": platform.release(), "buildtype": buildtype, "torch": torch_version,
            "partitions": args.partitions, "started": time.strftime("%Y-%m-%d %H:%M:%S"),
            "load_average": os.getloadavg()[0]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    p.add_argument("--work-dir", default="/tmp/fxsplit-bench")
    p.add_argument("--sizes", default="1e3,1e4,1e5,1e6", help="comma-separated node counts")
    p.add_argument("--with-1e7", action="store_true", help="add 10^7 nodes (~2 GB file, minutes)")
    p.add_argument("--partitions", type=int, default=8)
    p.add_argument("--repeat", type=int, default=5, help="runs per size up to 10^6")
    p.add_argument("--repeat-1e7", type=int, default=3, help="runs at 10^7")
    p.add_argument("--torch-max", type=float, default=1e5, help="largest size PyTorch runs on")
    p.add_argument("--torch-repeat", type=int, default=5, help="PyTorch runs below 10^5 (at most 3 at 10^5, 1 above)")
    p.add_argument("--torch-timeout", type=float, default=3600)
    p.add_argument("--max-load", type=float, default=1.0,
                   help="wait for the 1-minute load average to drop below this before timing")
    p.add_argument("--max-wait", type=int, default=300, help="seconds to wait for that at most")
    p.add_argument("--keep-graphs", action="store_true", help="keep graphs below 10^7 nodes")
    p.add_argument("--report-only", action="store_true", help="re-print the tables of results.jsonl")
    p.add_argument("--reuse-torch", metavar="RESULTS", dest="reuse_torch_paths",
                   action="append",
                   help="take PyTorch's measurements from an earlier results.jsonl instead of "
                        "running PyTorch again (repeatable: for each size and naming, the "
                        "last file that has it wins)")
    args = p.parse_args()

    sizes = [int(float(s)) for s in args.sizes.split(",") if s]
    if args.with_1e7:
        sizes.append(10_000_000)
    args.torch_max = int(args.torch_max)
    args.gen_graph = os.path.join(args.build_dir, "bench", "gen-graph")
    args.bench_split = os.path.join(args.build_dir, "bench", "bench-split")
    args.fxsplit = os.path.join(args.build_dir, "cli", "fxsplit")
    args.plugin_dir = os.path.join(args.build_dir, "plugins")
    results = os.path.join(args.work_dir, "results.jsonl")
    args.reuse_torch = None
    if args.reuse_torch_paths:
        args.reuse_torch = []
        for path in args.reuse_torch_paths:
            try:
                with open(path) as f:
                    args.reuse_torch.append((path, [json.loads(line) for line in f]))
            except (OSError, ValueError) as e:
                print(f"run.py: --reuse-torch: {path}: {e}", file=sys.stderr)
                return 1

    def log(msg):
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    if not args.report_only:
        for tool in (args.gen_graph, args.bench_split, args.fxsplit):
            if not os.access(tool, os.X_OK):
                print(f"run.py: {tool}: not built (meson setup {args.build_dir} && "
                      f"ninja -C {args.build_dir})", file=sys.stderr)
                return 1
        os.makedirs(args.work_dir, exist_ok=True)
        with open(results, "w") as out:
            def record(r):
                # The 1-minute load average when the measurement ended: noise check.
                r.setdefault("load_average", round(os.getloadavg()[0], 2))
                out.write(json.dumps(r) + "\n")
                out.flush()
            record(machine_info(args))
            try:
                for n in sizes:
                    bench_size(args, n, record, log)
            except BenchError as e:
                print(f"run.py: {e}", file=sys.stderr)
                return 1
    try:
        with open(results) as f:
            records = [json.loads(line) for line in f]
    except (OSError, ValueError) as e:
        print(f"run.py: {results}: {e}", file=sys.stderr)
        return 1
    print(report(records, sizes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
