#!/usr/bin/env python3
"""bench-partitioners' dagP side: the .dot it writes is dagP's weighted
format for the call nodes, and a part file is scored like the other
methods (here the balanced split itself, so the cuts must be equal); a
part file of the wrong length is one clear error.

Usage: test_bench.py BENCH-PARTITIONERS
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def main():
    bench = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, "g.json")
        subprocess.run([bench, "--random-dag=300", "--seed=3", graph], check=True)
        # Unit costs: balanced's 4 stages are 75 consecutive call nodes each.
        with open(os.path.join(tmp, "g.nodes.dot.partsfile.part_4.seed_7.txt"), "w") as f:
            f.write("".join(f"{i * 4 // 300}\n" for i in range(300)))
        out = subprocess.run([bench, "--cost=nodes", "--parts=4", "--methods=balanced,mincut",
                              f"--dot={tmp}", f"--dagp={tmp}/g.nodes.dot.partsfile.part_4.seed_7.txt",
                              graph], check=True, capture_output=True, text=True).stdout
        rows = {r["method"]: r for r in map(json.loads, out.splitlines())}
        assert set(rows) == {"balanced", "mincut", "dagp"}, rows
        assert rows["dagp"]["cut"] == rows["balanced"]["cut"], rows
        assert rows["dagp"]["max_load"] == 75 and rows["dagp"]["parts_on_cycles"] == 0, rows
        assert rows["dagp"]["note"] == "seed 7", rows
        assert rows["mincut"]["cut"] <= rows["balanced"]["cut"], rows

        dot = open(os.path.join(tmp, "g.nodes.dot")).read().splitlines()
        assert dot[0] == "digraph G {" and dot[-1] == "}", dot[:2]
        vertices = [l for l in dot if re.fullmatch(r"\d+ \[weight=1\];", l)]
        edges = [l for l in dot if re.fullmatch(r"\d+ -> \d+ \[weight=\d+\];", l)]
        assert len(vertices) == 300 and len(vertices) + len(edges) + 2 == len(dot)
        assert all(int(a) < int(b) for a, b in (re.findall(r"\d+", l)[:2] for l in edges))

        short = os.path.join(tmp, "g.nodes.dot.partsfile.part_2.seed_1.txt")
        with open(short, "w") as f:
            f.write("0\n1\n")
        bad = subprocess.run([bench, "--cost=nodes", "--parts=2", "--methods=balanced",
                              f"--dagp={short}", graph], capture_output=True, text=True)
        assert bad.returncode == 1, bad
        assert bad.stderr == f"bench-partitioners: {short}: 2 lines for 300 call nodes\n", bad.stderr


if __name__ == "__main__":
    main()
