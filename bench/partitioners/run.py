#!/usr/bin/python3
"""The partitioner quality benchmark: mincut, balanced and METIS for K = 2,
4, 8 on torchvision models and two large synthetic graphs; prints the
Markdown table of docs/PERFORMANCE.md ("Partitioner quality").

Usage: bench/partitioners/run.py [--build DIR] [--graphs DIR] [--cost KIND]
                                 [--tolerance T] [--nodes N]
Needs the build's bench/partitioners/bench-partitioners and bench/gen-graph,
and /usr/bin/python3 with torch and torchvision for the model graphs.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--graphs", default="/tmp/fxsplit-partitioner-graphs")
    ap.add_argument("--cost", default="flops")
    ap.add_argument("--tolerance", default="0.05")
    ap.add_argument("--nodes", type=int, default=100000)
    args = ap.parse_args()
    bench = os.path.join(args.build, "bench", "partitioners", "bench-partitioners")
    gen = os.path.join(args.build, "bench", "gen-graph")
    os.makedirs(args.graphs, exist_ok=True)

    subprocess.run([sys.executable, os.path.join(HERE, "export_models.py"), args.graphs], check=True)
    graphs = [os.path.join(args.graphs, f"{m}.json") for m in ("resnet50", "mobilenet_v2", "vit_b_16")]
    residual = os.path.join(args.graphs, f"synthetic-residual-{args.nodes}.json")
    if not os.path.exists(residual):
        subprocess.run([gen, f"--nodes={args.nodes}", "--seed=1", residual], check=True,
                       stdout=subprocess.DEVNULL)
    random_dag = os.path.join(args.graphs, f"synthetic-random-{args.nodes}.json")
    if not os.path.exists(random_dag):
        subprocess.run([bench, f"--random-dag={args.nodes}", "--seed=1", random_dag], check=True)
    graphs += [residual, random_dag]

    out = subprocess.run([bench, f"--cost={args.cost}", f"--tolerance={args.tolerance}",
                          "--parts=2,4,8"] + graphs, check=True, capture_output=True, text=True)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    print(f"cost = {args.cost}, tolerance = {args.tolerance} (METIS: ubvec = 1 + tolerance)\n")
    print("| graph | call nodes | K | method | cut (bytes) | vs balanced | max/mean cost "
          "| parts on cycles | time (s) |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    base = {}
    for r in rows:
        key = (r["graph"], r["parts"])
        if r["method"] == "balanced":
            base[key] = r["cut"]
        name = os.path.basename(r["graph"]).removesuffix(".json")
        ratio = r["cut"] / base[key] if base.get(key) else float("nan")
        balance = r["max_load"] / r["mean_load"] if r["mean_load"] else float("nan")
        note = f" ({r['note']})" if "note" in r else ""
        print(f"| {name} | {r['nodes']} | {r['parts']} | {r['method']}{note} | {r['cut']:,} "
              f"| {ratio:.2f} | {balance:.3f} | {r['parts_on_cycles']} | {r['seconds']:.3f} |")


if __name__ == "__main__":
    main()
