"""What fxsplit_torch.distributed does when things go wrong: values that
cannot cross ranks and bad placements (in process), ranks holding
different splits or models (refused by the handshake, exit 3, before any
value is sent), the launcher's usage errors (exit 2), and a rank killed or frozen mid-run under torchrun: every
other rank stops within the timeout with one line naming that rank, its
stage and the value it was waiting for, torchrun exits non-zero and no
process is left."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time

import torch

import helpers
from helpers import check
import fxsplit_torch
from fxsplit_torch import distributed, pipeline_plan, wire

TIMEOUT = 8  # --timeout of the failure runs, seconds


def in_process():
    words, tensors = wire.encode((torch.ones(2, 3), None, True, -5, 2.5, "π", torch.Size([4]),
                                  torch.int8, [torch.zeros(0, dtype=torch.bool)]), "v")
    it = iter(tensors)
    back = wire.decode(words, lambda shape, dtype: next(it).reshape(shape).to(dtype), "v")
    check(back[1:7] == (None, True, -5, 2.5, "π", torch.Size([4])) and back[7] is torch.int8
          and torch.equal(back[0], torch.ones(2, 3)) and back[8][0].dtype == torch.bool,
          "wire: every kind of value comes back as it went")
    for bad, what in ((object(), "a object cannot cross ranks"), (1 << 70, "does not fit")):
        try:
            wire.encode(bad, "'x' (micro-batch 0)")
            check(False, f"wire refuses {what}")
        except wire.WireError as e:
            check(str(e).startswith("'x' (micro-batch 0): ") and what in str(e), f"wire: {e}")
    try:
        wire.decode([wire.TENSOR, 99, 1, 2], None, "v")
    except wire.WireError as e:
        check("unknown dtype code 99" in str(e), f"wire: a bad header: {e}")
    stages = ["submod_0", "submod_1", "submod_2"]
    check(pipeline_plan.placement_of(stages, 2) == {"submod_0": 0, "submod_1": 1, "submod_2": 0},
          "placement: stage i on rank i mod K")
    check(pipeline_plan.placement_of(stages, 2, {"submod_2": 1}, {"submod_0": "x, rank=1"})
          == {"submod_0": 1, "submod_1": 1, "submod_2": 1}, "placement: the map, then labels")
    for placement, labels, what in (({"submod_9": 0}, None, "'submod_9' is not a stage"),
                                    ([0, 5], None, "placement[1]: places submod_1 on rank 5"),
                                    (None, {"submod_1": "rank=2"},
                                     "submod_1's label 'rank=2': places submod_1 on rank 2")):
        try:
            pipeline_plan.placement_of(stages, 2, placement, labels)
            check(False, what)
        except pipeline_plan.PlacementError as e:
            check(what in str(e), f"placement: {e}")
    check(pipeline_plan.label_rank("rank=12") == 12 and pipeline_plan.label_rank("prank=1") is None
          and pipeline_plan.label_rank("rank=1.5") is None, "labels: rank=N only")


def one_rank(work):
    """A group of one rank in this process: a split GraphModule (from
    load_split) runs with all its stages here; a label on a submodule
    places it; a model without the split's parameters is refused."""
    os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(helpers.free_port()))
    distributed.init_from_env("gloo", timeout=20)
    torch.manual_seed(0)
    model = helpers.models.skips().eval()
    split = os.path.join(work, "skips-4.json")
    gm = fxsplit_torch.load_split(split, model)
    x = torch.rand(6, 16)
    with torch.no_grad():
        ref = model(x)
    pipe = distributed.Pipeline(gm)
    out = pipe.run(x, micro_batches=3)
    check(all(torch.allclose(a, b) for a, b in zip(out, ref)) and pipe.stats["stage_calls"]
          == {f"submod_{i}": 3 for i in range(4)}, "one rank: a split GraphModule runs all stages")
    gm.submod_2.label = "backend=cpu, rank=1"
    try:
        distributed.Pipeline(gm)
        check(False, "a label naming a rank outside the group is refused")
    except pipeline_plan.PlacementError as e:
        check("submod_2's label 'backend=cpu, rank=1': places submod_2 on rank 1, but the group "
              "has ranks 0 to 0" in str(e), f"one rank: {e}")
    try:
        distributed.Pipeline(split, torch.nn.Linear(16, 16))
        check(False, "a model without the split's parameters is refused")
    except fxsplit_torch.LoadError as e:
        check("the original module has no attribute 'a'" in str(e), f"one rank: {e}")
    torch.distributed.destroy_process_group()
    for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        del os.environ[k]


def launcher(split, *extra, model="resnet18"):
    return ["-m", "fxsplit_torch.run_pipeline", "--split", split, "--model",
            f"{helpers.MODELS}:{model}", "--input-shape", "8,3,32,32", "--threads", "1",
            "--timeout", str(TIMEOUT), *extra]


def usage(work):
    """The launcher's own errors: one line, exit 2."""
    split = os.path.join(work, "r18-2.json")
    e = helpers.env()
    for extra, env, what in (([], {}, "no RANK/WORLD_SIZE in the environment: start it under torchrun"),
                             (["--placement", "5"], {"RANK": "0", "WORLD_SIZE": "1",
                                                     "MASTER_ADDR": "127.0.0.1",
                                                     "MASTER_PORT": str(helpers.free_port())},
                              "rank 0: placement[0]: places submod_0 on rank 5, but the group has "
                              "ranks 0 to 0")):
        p = subprocess.run([sys.executable] + launcher(split, *extra), env=dict(e, **env),
                           capture_output=True, text=True, timeout=120)
        lines = p.stderr.strip().splitlines()
        check(p.returncode == 2 and len(lines) == 1 and what in lines[0],
              f"the launcher: {lines[-1] if lines else '(nothing)'} (exit {p.returncode})")


def mismatch(work):
    split = os.path.join(work, "r18-2.json")
    other = os.path.join(work, "r18-2-indented.json")
    with open(split) as f, open(other, "w") as g:
        json.dump(json.load(f), g, indent=1)
    for argvs, what in (([launcher(split), launcher(other)], "rank 1's split"),
                        ([launcher(split, model="resnet18_other_fc")] * 2, "rank 1's model")):
        procs = helpers.ranks(argvs)
        outs = [p.communicate(timeout=120)[0] for p in procs]
        check(all(p.returncode == 3 for p in procs)
              and all(re.search(what + r" \(\w+\) differs from rank 0's \(\w+\)", o) for o in outs)
              and not any("ready" in o for o in outs),
              f"{what} differs: every rank refuses it (exit 3) before sending anything\n"
              + outs[0].strip().splitlines()[-1])


def failure(work, how):
    split = os.path.join(work, "r18-3.json")
    marker = os.path.join(work, f"{how}-marker")
    os.symlink(split, marker)
    p = helpers.torchrun(3, launcher(marker, "--micro-batches", "8", "--runs", "1000000"))
    out = []
    reader = threading.Thread(target=lambda: out.extend(p.stdout), daemon=True)
    reader.start()
    end = time.time() + 200
    while sum("ready" in l for l in out) < 3 and time.time() < end and p.poll() is None:
        time.sleep(0.2)
    time.sleep(1.5)  # mid-run
    pid = helpers.rank_pid(marker, 1)
    start = time.time()
    os.kill(pid, signal.SIGKILL if how == "killed" else signal.SIGSTOP)
    lines = []
    while time.time() < start + TIMEOUT + 30 and len(lines) < 2:
        lines = [l.strip() for l in out
                 if l.startswith("fxsplit_torch.run_pipeline: rank") and "ready" not in l]
        time.sleep(0.1)
    stopped = time.time() - start
    if how == "frozen":
        os.kill(pid, signal.SIGCONT)  # torchrun's SIGTERM then ends it
    p.wait(timeout=60)
    reader.join(5)
    sys.stdout.write("".join(l for l in out if "run_pipeline" in l) if len(lines) == 2
                     else "".join(out))
    expected = "sent nothing for 8 s" if how == "frozen" else "is gone"
    check(len(lines) == 2 and all(re.search(r"rank 1 \(stage submod_1\) " + expected +
                                            r".*was (waiting for its|sending it the) value '\w+'.*\(micro-batch \d\)",
                                            l) for l in lines),
          f"rank 1 {how}: both other ranks stop with one line naming rank 1, its stage and the value")
    limit = TIMEOUT + 8 if how == "frozen" else TIMEOUT
    check(stopped < limit, f"rank 1 {how}: they stop {stopped:.1f} s after it (within {limit} s)")
    check(p.returncode != 0, f"rank 1 {how}: torchrun exits {p.returncode}")
    time.sleep(0.5)
    check(not helpers.leftovers(marker), f"rank 1 {how}: no process is left")


def main(work):
    in_process()
    g = lambda name: os.path.join(work, name)
    helpers.export_graph("resnet18", (1, 3, 32, 32), g("r18.json"))
    helpers.make_split(g("r18.json"), g("r18-2.json"), "balanced", ["stages=2"])
    helpers.make_split(g("r18.json"), g("r18-3.json"), "balanced", ["stages=3"])
    helpers.export_graph("skips", (1, 16), g("skips.json"), helpers.STAGE_TAGS)
    helpers.make_split(g("skips.json"), g("skips-4.json"), "map", ["meta_key=stage"])
    one_rank(work)
    usage(work)
    mismatch(work)
    failure(work, "killed")
    failure(work, "frozen")


if __name__ == "__main__":
    helpers.run_in_work_dir(main)
