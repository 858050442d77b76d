#!/usr/bin/python3
"""The partitioner quality benchmark: balanced, mincut (multilevel, the
default), mincut-refine (mincut 1.0's algorithm) and METIS for K = 2, 4, 8
and both costs on torchvision models, a 100,000-node VisionTransformer and
two large synthetic graphs; with --dagp-dir, dagP's part files re-scored the
same way.  Prints the Markdown tables of docs/PERFORMANCE.md ("Partitioner
quality").

Usage: bench/partitioners/run.py [--build DIR] [--graphs DIR] [--costs K,...]
                                 [--tolerance T] [--nodes N] [--dot DIR]
                                 [--dagp-dir DIR]
--dot writes every graph and cost as dagP's weighted .dot input into DIR;
--dagp-dir reads the part files dagP's `rMLGP FILE.dot K --write_parts 1
--seed S` wrote next to them.  dagP itself is not part of fxsplit: build and
run it yourself (docs/PERFORMANCE.md gives the commands).
Needs the build's bench/partitioners/bench-partitioners and bench/gen-graph,
and /usr/bin/python3 with torch and torchvision for the model graphs.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
MODELS = ("resnet50", "mobilenet_v2", "vit_b_16", "vit-deep")


def graphs(args, bench, gen):
    os.makedirs(args.graphs, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, "export_models.py"), args.graphs], check=True)
    paths = [os.path.join(args.graphs, f"{m}.json") for m in MODELS]
    residual = os.path.join(args.graphs, f"synthetic-residual-{args.nodes}.json")
    if not os.path.exists(residual):
        subprocess.run([gen, f"--nodes={args.nodes}", "--seed=1", residual], check=True,
                       stdout=subprocess.DEVNULL)
    random_dag = os.path.join(args.graphs, f"synthetic-random-{args.nodes}.json")
    if not os.path.exists(random_dag):
        subprocess.run([bench, f"--random-dag={args.nodes}", "--seed=1", random_dag], check=True)
    return paths + [residual, random_dag]


def run(bench, options, paths):
    out = subprocess.run([bench] + options + paths, check=True, capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def name(row):
    return os.path.basename(row["graph"]).removesuffix(".json")


def balance(row):
    parts = min(row["parts"], row["nodes"])
    return row["max_load"] * parts / row["total"] if row["total"] else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--graphs", default="/tmp/fxsplit-partitioner-graphs")
    ap.add_argument("--costs", default="flops,nodes")
    ap.add_argument("--tolerance", default="0.05")
    ap.add_argument("--nodes", type=int, default=100000)
    ap.add_argument("--dot")
    ap.add_argument("--dagp-dir")
    args = ap.parse_args()
    bench = os.path.join(args.build, "bench", "partitioners", "bench-partitioners")
    gen = os.path.join(args.build, "bench", "gen-graph")
    paths = graphs(args, bench, gen)

    options = [f"--cost={args.costs}", f"--tolerance={args.tolerance}", "--parts=2,4,8"]
    if args.dot:
        os.makedirs(args.dot, exist_ok=True)
        options.append(f"--dot={args.dot}")
    if args.dagp_dir:
        options += [f"--dagp={f}" for f in
                    sorted(glob.glob(os.path.join(args.dagp_dir, "*.partsfile.part_*.seed_*.txt")))]
    rows = run(bench, options, paths)

    # dagP: the best of its seeds, and mincut again at the balance that
    # best reached when it differs from mincut's (dagP lets a part exceed
    # its ratio by up to one vertex; mincut never exceeds its tolerance).
    dagp = {}
    for r in rows:
        if r["method"] == "dagp":
            dagp.setdefault((r["graph"], r["cost"], r["parts"]), []).append(r)
    table = []
    for r in rows:
        key = (r["graph"], r["cost"], r["parts"])
        if r["method"] == "dagp":
            continue
        table.append(r)
        if r["method"] == "mincut" and key in dagp:
            best = min(dagp[key], key=lambda d: (d["cut"], balance(d)))
            cuts = [d["cut"] for d in dagp[key]]
            table.append(dict(best, method=f"dagP best of {len(cuts)}",
                              note=f"median {statistics.median(cuts):,.0f}"))
            if best["max_load"] != r["max_load"]:
                tol = f"{max(0.0, balance(best) - 1) + 1e-12:.12f}"
                again = run(bench, [f"--cost={r['cost']}", f"--tolerance={tol}",
                                    f"--parts={r['parts']}", "--methods=mincut"], [r["graph"]])
                table.append(dict(again[0], method="mincut at dagP's balance"))

    print(f"tolerance = {args.tolerance} (METIS: ubvec = 1 + tolerance; dagP: --ratio "
          f"{1 + float(args.tolerance):g})\n")
    print("| graph | call nodes | cost | K | method | cut (bytes) | vs balanced | max/mean cost "
          "| parts on cycles | time (s) |")
    print("|---|---:|---|---:|---|---:|---:|---:|---:|---:|")
    base = {}
    for r in table:
        key = (r["graph"], r["cost"], r["parts"])
        if r["method"] == "balanced":
            base[key] = r["cut"]
        ratio = r["cut"] / base[key] if base.get(key) else float("nan")
        note = f" ({r['note']})" if "note" in r else ""
        seconds = "" if r["method"].startswith("dagP") else f"{r['seconds']:.3f}"
        print(f"| {name(r)} | {r['nodes']} | {r['cost']} | {r['parts']} | {r['method']}{note} "
              f"| {r['cut']:,} | {ratio:.2f} | {balance(r):.3f} | {r['parts_on_cycles']} "
              f"| {seconds} |")


if __name__ == "__main__":
    main()
