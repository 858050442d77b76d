"""fxsplit_torch.distributed and its launcher on gloo over loopback: splits
made with the project's tools run on 2 to 4 processes give the unsplit
model's outputs for 1 and 8 micro-batches (resnet18 in 2 and 4 balanced
stages, vit_b_16 in 2, partitions that are not a chain, placed by default,
by a map and by labels), and the launcher prints its report."""
import os
import re
import sys

import helpers
from helpers import check

WORKER = os.path.join(helpers.HERE, "worker.py")


def run_worker(nproc, factory, shape, counts, *jobs):
    p = helpers.torchrun(nproc, [WORKER, factory, shape, counts, *jobs])
    out, _ = p.communicate(timeout=400)
    lines = [l for l in out.splitlines() if "allclose=" in l]
    sys.stdout.write("\n".join(lines) + "\n")
    check(p.returncode == 0 and len(lines) == len(counts.split(",")) * len(jobs) + 1
          and all("allclose=True whole_batch_close=True" in l for l in lines[:-1])
          and "serve/close: allclose=True" in lines[-1],
          f"{factory} on {nproc} ranks ({', '.join(os.path.basename(j) for j in jobs)}): outputs "
          f"equal the unsplit model's" + ("" if p.returncode == 0 else "\n" + out[-3000:]))


def main(work):
    g = lambda name: os.path.join(work, name)
    helpers.export_graph("resnet18", (1, 3, 32, 32), g("r18.json"))
    helpers.make_split(g("r18.json"), g("r18-2.json"), "balanced", ["stages=2"], g("r18-2.txt"))
    helpers.make_split(g("r18.json"), g("r18-4.json"), "balanced", ["stages=4"])
    helpers.export_graph("skips", (1, 16), g("skips.json"), helpers.STAGE_TAGS)
    helpers.make_split(g("skips.json"), g("skips-4.json"), "map", ["meta_key=stage"])
    helpers.with_labels(g("skips-4.json"), g("skips-labels.json"),
                        {"submod_0": "rank=1", "submod_1": "backend=cpu, rank=0",
                         "submod_2": "rank=0", "submod_3": "stage 3; rank=1"})

    # a value skipping a stage, an int crossing ranks, two stages per rank
    run_worker(2, "skips", "4,16", "1,4", g("skips-4.json"), g("skips-4.json") + "@0,1,1,0",
               g("skips-labels.json"))
    run_worker(2, "resnet18", "8,3,32,32", "1,8", g("r18-2.json"))
    run_worker(4, "resnet18", "8,3,32,32", "1,8", g("r18-4.json"))

    helpers.export_graph("vit_b_16", (1, 3, 32, 32), g("vit.json"))
    helpers.make_split(g("vit.json"), g("vit-2.json"), "balanced", ["stages=2"])
    run_worker(2, "vit_b_16", "8,3,32,32", "1,8", g("vit-2.json"))

    # the launcher: its report next to the split's own report
    p = helpers.torchrun(2, ["-m", "fxsplit_torch.run_pipeline", "--split", g("r18-2.json"),
                             "--model", f"{helpers.MODELS}:resnet18", "--input-shape", "8,3,32,32",
                             "--micro-batches", "8", "--runs", "2", "--threads", "1", "--check"])
    out, _ = p.communicate(timeout=300)
    sys.stdout.write(out[-2500:])
    check(p.returncode == 0, "the launcher exits 0")
    with open(g("r18-2.txt"), encoding="utf-8") as f:
        report = f.read()
    cut = re.search(r"\(([\d,]+) bytes;", report).group(1)
    balance = re.search(r"balance: max/mean nodes ([\d.]+)", report).group(1)
    check(f"cut: {cut} bytes per micro-batch sent between stages" in out
          and f"{cut} bytes predicted" in out, f"the launcher's cut equals the report's ({cut})")
    check(f"max/mean nodes {balance} predicted" in out,
          f"the launcher's predicted balance equals the report's ({balance})")
    check(re.search(r"throughput: [\d.]+ samples/s", out) and "rank 1 (stage submod_1): ready" in out
          and "check: the output equals the unsplit model's" in out,
          "the launcher prints throughput, the ready lines and the check")


if __name__ == "__main__":
    helpers.run_in_work_dir(main)
