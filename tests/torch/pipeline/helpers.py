"""Shared by the pipeline tests: graphs and splits made with the project's
own tools (fxsplit_torch.export and the fxsplit command), and ranks
started under torchrun (or one by one, as torchrun would) on loopback."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import torch
import torch.fx

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "..", "python"))
sys.path.insert(0, PYTHON_DIR)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import fxsplit_torch  # noqa: E402
import models  # noqa: E402
import tracing_fixes  # noqa: E402

MODELS = os.path.join(HERE, "models.py")
FXSPLIT = os.environ.get("FXSPLIT") or fxsplit_torch.find_fxsplit()
# torch 1.13's torchrun on Python 3.11 cannot parse its own default
# --redirects/--tee "0" (enum.IntFlag iteration changed); "1" works.  Its
# default --monitor_interval (5 s) leaves the ranks time to report a
# failure before torchrun ends them.
TORCHRUN = [sys.executable, "-m", "torch.distributed.run", "--redirects", "1", "--tee", "1"]
STAGE_TAGS = {"a": 0, "relu": 0, "size": 0, "b": 1, "mul": 1, "sum_1": 1, "c": 2, "add": 2,
              "reshape": 2, "reshape_1": 3, "d": 3, "unsqueeze": 3, "add_1": 3}


def run_in_work_dir(main):
    """main(work) with a fresh directory, removed afterwards."""
    work = tempfile.mkdtemp(prefix="fxsplit-pipeline-")
    try:
        main(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print(f"ok: {what}", flush=True)


def export_graph(factory, shape, path, tags=None):
    """FACTORY()'s traced graph with the tensor metadata of an input of
    @shape, as a graph file (tags: node name -> meta["stage"])."""
    torch.manual_seed(0)
    model = getattr(models, factory)().eval()
    gm = tracing_fixes.symbolic_trace(model)
    for n in gm.graph.nodes:
        if tags and n.name in tags:
            n.meta["stage"] = tags[n.name]
    fxsplit_torch.export(gm, (torch.rand(shape),), path)


def make_split(graph, out, partitioner, options, report=None):
    cmd = [FXSPLIT, "split", graph, "--partitioner", partitioner, "--output", f"json:{out}"]
    for o in options:
        cmd += ["--option", o]
    if report:
        cmd += ["--output", f"report:{report}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def with_labels(split, out, labels):
    """@split's json with partition labels {submodule: text} in its table."""
    with open(split, encoding="utf-8") as f:
        doc = json.load(f)
    for entry in doc["partitions"]:
        entry["label"] = labels[entry["submodule"]]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def env():
    e = dict(os.environ, PYTHONPATH=PYTHON_DIR, PYTHONDONTWRITEBYTECODE="1", OMP_NUM_THREADS="1")
    e.pop("FXSPLIT_LIBRARY", None)
    return e


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def torchrun(nproc, module_args, **popen):
    """torchrun --nproc_per_node=@nproc on loopback, in its own session."""
    cmd = TORCHRUN + [f"--nproc_per_node={nproc}", "--master_addr=127.0.0.1",
                      f"--master_port={free_port()}"] + module_args
    return subprocess.Popen(cmd, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True, **popen)


def ranks(argvs):
    """One process per argv, with the environment torchrun gives rank i."""
    port, procs = free_port(), []
    for i, argv in enumerate(argvs):
        e = env()
        e.update(RANK=str(i), LOCAL_RANK=str(i), WORLD_SIZE=str(len(argvs)),
                 MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable] + argv, env=e, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    return procs


def leftovers(marker):
    """Processes of this user whose command line contains @marker."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(pid))
            except OSError:
                pass
    return found


def rank_pid(marker, rank, deadline=60):
    """The pid of the rank @rank of a run whose command line has @marker."""
    end = time.time() + deadline
    while time.time() < end:
        for pid in leftovers(marker):
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    environ = f.read().split(b"\0")
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            worker = b"fxsplit_torch.run_pipeline" in cmdline and b"torch.distributed.run" not in cmdline
            if worker and f"RANK={rank}".encode() in environ:
                return pid
        time.sleep(0.2)
    raise AssertionError(f"no rank {rank} process")
