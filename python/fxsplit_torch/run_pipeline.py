"""torchrun --nproc_per_node=K -m fxsplit_torch.run_pipeline --split SPLIT.json
    --model FILE.py:FACTORY --input-shape 8,3,224,224 --micro-batches 8

Runs fxsplit's json split of the model FACTORY() (your code: FILE.py runs
as torchrun's script would) as a pipeline on the K ranks torchrun starts
(fxsplit_torch.distributed), on random inputs of the given shapes, and the
driver prints per-stage time, idle time, bytes sent and throughput next to
what the split's report predicts (balance, cut).  Exit codes (per rank;
torchrun itself exits 1 when a rank fails): 0 done, 2 bad arguments,
split or model, 3 the ranks hold different splits, models or placements,
4 the pipeline stopped (a rank failed, died or sent nothing within
--timeout: the line names it), 5 --check found outputs that differ."""
import argparse
import json
import math
import os
import signal
import sys
import threading
import time

import torch
import torch.distributed as dist

from . import distributed
from .decode import LoadError
from .factory import load_factory, shape_arg
from .pipeline_plan import PlacementError

PROG = "fxsplit_torch.run_pipeline"
_current = {}  # the rank's Pipeline, for the SIGTERM line


def _placement(text):
    """"submod_0=0,submod_1=1" -> dict; "0,1,0" -> list by stage index."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    try:
        if all("=" in t for t in items):
            return {k.strip(): int(v) for k, v in (t.split("=", 1) for t in items)}
        return [int(t) for t in items]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}': expected STAGE=RANK,... or RANK,RANK,...")


def _parser():
    p = argparse.ArgumentParser(prog=f"torchrun --nproc_per_node=K -m {PROG}",
                                description=__doc__.split("\n\n")[1])
    p.add_argument("--split", required=True, help="fxsplit's json result (-O json:SPLIT.json)")
    p.add_argument("--model", required=True, help="FILE.py:FACTORY or package.module:FACTORY")
    p.add_argument("--input-shape", type=shape_arg, action="append", required=True,
                   help="shape of one input, batch first (repeat per input)")
    p.add_argument("--micro-batches", type=int, default=1, help="micro-batches per batch (1)")
    p.add_argument("--runs", type=int, default=5, help="timed runs (5)")
    p.add_argument("--warmup", type=int, default=1, help="runs before timing (1)")
    p.add_argument("--placement", type=_placement,
                   help="STAGE=RANK,... or RANK,... by stage index (default: labels, else i mod K)")
    p.add_argument("--driver", type=int, default=0, help="the rank with the inputs and outputs (0)")
    p.add_argument("--backend", default="gloo", help="gloo (CPU) or nccl (GPUs)")
    p.add_argument("--device", default="cpu", help="cpu, or cuda (each rank its LOCAL_RANK's GPU)")
    p.add_argument("--timeout", type=float, default=60.0,
                   help="seconds any rank waits for a value before giving up (60)")
    p.add_argument("--threads", type=int, help="torch threads per process")
    p.add_argument("--seed", type=int, default=0, help="seeds the model (every rank) and inputs")
    p.add_argument("--check", action="store_true",
                   help="the driver also runs the unsplit model on the same micro-batches and compares "
                        "(torch.allclose)")
    p.add_argument("--baseline", action="store_true",
                   help="the driver also times the unsplit model on its own process")
    p.add_argument("--allow-module", action="append", default=[],
                   help="a module call_function targets may come from (as load_split's)")
    p.add_argument("--trust-targets", action="store_true", help="as load_split's trust_targets")
    return p


def _size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def _predicted(pipe, split_path):
    """({stage: node count}, cut bytes or None): the split's report's
    numbers for cost=nodes, from its partition table and tensor metadata."""
    with open(split_path, encoding="utf-8") as f:
        table = json.load(f).get("partitions")
    counts = {e.get("submodule"): len(e.get("nodes", ())) for e in table or ()
              if isinstance(e, dict)}
    plan = pipe.plan
    for s in plan.stages:
        if s not in counts:
            counts[s] = sum(n.op not in ("placeholder", "output") for n in plan.stage_graphs[s].nodes)
    cut = 0
    stage_groups = plan.groups[1:-1]
    for g in stage_groups:
        for n in g.nodes:
            takers = {plan.group_of[u] for u in n.users if u in plan.group_of} - {g}
            takers = [t for t in takers if t in stage_groups]
            if takers:
                meta = plan.meta[n]
                if meta is None:
                    return counts, None
                cut += len(takers) * math.prod(meta[0]) * torch.empty((), dtype=meta[1]).element_size()
    return counts, cut


def _report(pipe, args, stats, seconds, batch):
    runs, m = args.runs, args.micro_batches
    plan = pipe.plan
    counts, cut = _predicted(pipe, args.split)
    times = {s: stats[plan.placement[s]]["stage_seconds"][s] / runs for s in plan.stages}
    cpu = {s: stats[plan.placement[s]]["stage_cpu_seconds"][s] / runs for s in plan.stages}
    total_time, total_nodes = sum(times.values()) or 1.0, sum(counts.values()) or 1
    print(f"{PROG}: {pipe.world} ranks, {len(plan.stages)} stages, batch {batch} in {m} "
          f"micro-batches, {runs} runs after {args.warmup} warm-up")
    print(f"{'stage':<12} {'rank':>4} {'time/run':>10} {'share':>7} {'cpu/run':>10}   "
          f"predicted share (nodes)")
    for s in plan.stages:
        print(f"{s:<12} {plan.placement[s]:>4} {times[s] * 1e3:>7.1f} ms {times[s] / total_time:>7.1%}"
              f" {cpu[s] * 1e3:>7.1f} ms   {counts[s] / total_nodes:.1%} ({counts[s]} nodes)")
    print(f"{'rank':<4} {'busy/run':>10} {'idle/run':>10}   sent/run: stages + inputs/outputs + headers")
    for r, st in enumerate(stats):
        busy = sum(st["stage_seconds"].values()) / runs
        sent = st["sent_bytes"]
        print(f"{r:<4} {busy * 1e3:>7.1f} ms {st['idle_seconds'] / runs * 1e3:>7.1f} ms   "
              f"{_size(sent['stage'] / runs)} + {_size(sent['io'] / runs)} + "
              f"{_size(sent['header'] / runs)}")
    mean_time, mean_nodes = total_time / len(times), total_nodes / len(counts)
    print(f"balance: max/mean stage time {max(times.values()) / mean_time:.3f} measured; "
          f"max/mean nodes {max(counts.values()) / mean_nodes:.3f} predicted (the split's report)")
    measured = sum(st["sent_bytes"]["stage"] for st in stats) / (runs * m)
    predicted = f"{cut:,} bytes predicted for the split's example inputs (the report's cut)" \
        if cut is not None else "no prediction (values without tensor metadata)"
    print(f"cut: {measured:,.0f} bytes per micro-batch sent between stages on different ranks; "
          f"{predicted}")
    print(f"throughput: {batch * runs / seconds:.1f} samples/s "
          f"({seconds / runs * 1e3:.1f} ms per batch of {batch})")


def _unsplit(model, inputs, args):
    """The unsplit model's output on the same micro-batches (a smaller
    batch may round differently than the whole one), and its wall and CPU
    time per whole batch (args.runs runs, with --baseline)."""
    with torch.no_grad():
        parts = zip(*(torch.tensor_split(x, args.micro_batches) for x in inputs))
        outs = [model(*p) for p in parts]
        out = outs[0] if len(outs) == 1 else distributed.join_micro_batches(outs)
        t0, c0 = time.perf_counter(), time.thread_time()
        for _ in range(args.runs if args.baseline else 0):
            model(*inputs)
        n = max(args.runs, 1)
        return out, (time.perf_counter() - t0) / n, (time.thread_time() - c0) / n


def _compare(out, ref):
    if isinstance(out, torch.Tensor):
        diff = (out - ref).abs().max().item() if out.numel() else 0.0
        return torch.allclose(out, ref), diff
    pairs = [_compare(a, b) for a, b in zip(out, ref)]
    return all(ok for ok, _ in pairs), max((d for _, d in pairs), default=0.0)


def _main(args):
    if "RANK" not in os.environ or "WORLD_SIZE" not in os.environ:
        raise SystemExit(f"{PROG}: no RANK/WORLD_SIZE in the environment: start it under torchrun "
                         f"(torchrun --nproc_per_node=K -m {PROG} ...)")
    if args.micro_batches < 1 or args.runs < 1 or args.warmup < 0 or args.timeout <= 0:
        raise SystemExit(f"{PROG}: --micro-batches and --runs must be >= 1, --warmup >= 0, "
                         f"--timeout > 0")
    if args.threads:
        torch.set_num_threads(args.threads)
    rank, _ = distributed.init_from_env(args.backend, args.timeout)
    device = f"cuda:{os.environ.get('LOCAL_RANK', '0')}" if args.device == "cuda" else args.device
    torch.manual_seed(args.seed)
    model = load_factory(args.model)()
    model.train(False)
    pipe = distributed.Pipeline(args.split, model, placement=args.placement, driver=args.driver,
                                device=device, allow_modules=args.allow_module,
                                trust_targets=args.trust_targets)
    _current["pipe"] = pipe
    print(f"{PROG}: rank {rank} ({pipe.who(rank)}): ready; the {pipe.world} ranks agree on the "
          f"split {pipe.split_digest.hex()[:12]} and the model {pipe.model_digest.hex()[:12]}",
          flush=True)
    driver = rank == args.driver
    inputs = ()
    if driver:
        torch.manual_seed(args.seed + 1)
        inputs = tuple(torch.rand(s) for s in args.input_shape)
    else:
        del model  # this rank's stages hold their own parameters
    for _ in range(args.warmup):
        pipe.run(*inputs, micro_batches=args.micro_batches)
    pipe.reset_stats()
    t0 = time.perf_counter()
    for _ in range(args.runs):
        out = pipe.run(*inputs, micro_batches=args.micro_batches)
    seconds = time.perf_counter() - t0
    stats = pipe.gather_stats()
    dist.destroy_process_group()
    if not driver:
        return 0
    batch = args.input_shape[0][0]
    _report(pipe, args, stats, seconds, batch)
    if args.check or args.baseline:
        ref, per_batch, cpu = _unsplit(model, tuple(x.to(device) for x in inputs), args)
        if args.baseline:
            pipelined = seconds / args.runs
            slowest = max(st["stage_cpu_seconds"].get(s, 0.0) for st in stats
                          for s in pipe.plan.stages) / args.runs
            print(f"baseline: the unsplit model on one process: {batch / per_batch:.1f} samples/s "
                  f"({per_batch * 1e3:.1f} ms per batch, {cpu * 1e3:.1f} ms CPU); the pipeline is "
                  f"{per_batch / pipelined:.2f}x that; by CPU time, the unsplit batch over the "
                  f"slowest stage's: {cpu / slowest:.2f}x")
        if args.check:
            ok, diff = _compare(out, ref)
            print(f"check: the output {'equals' if ok else 'DIFFERS FROM'} the unsplit model's "
                  f"(torch.allclose; max abs difference {diff:.3g})")
            if not ok:
                return 5
    sys.stdout.flush()
    return 0


def _say(line):
    """One line on stderr in one write: ranks share the launcher's stderr,
    and print() writes the text and its newline apart, so two ranks
    stopping at once could run their lines together."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _watch_sigterm():
    """torchrun ends the other ranks with SIGTERM as soon as one fails,
    maybe before they have said why they stop.  SIGTERM is blocked in
    every thread, and this thread takes it (whatever the main thread is
    blocked in), prints the rank's one line and exits 4."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})

    def watch():
        signal.sigwait({signal.SIGTERM})
        pipe = _current.get("pipe")
        rank = os.environ.get("RANK", "?")
        line = pipe.stop_line("SIGTERM from the launcher") if pipe is not None \
            else f"rank {rank} stopped (SIGTERM from the launcher) before the pipeline was ready"
        _say(f"{PROG}: {line}")
        os._exit(4)
    threading.Thread(target=watch, daemon=True).start()


def main(argv=None):
    args = _parser().parse_args(argv)
    _watch_sigterm()
    try:
        code = _main(args)
    except distributed.MismatchError as e:
        code, line = 3, str(e)
    except distributed.PipelineError as e:
        code, line = 4, str(e)
    except (LoadError, PlacementError, OSError, ValueError, TypeError) as e:
        code, line = 2, f"rank {os.environ.get('RANK', '?')}: {e}"
        distributed._record_failure(line)
    except SystemExit as e:  # a usage error's one line (argparse exits 2 itself)
        if not isinstance(e.code, str):
            raise
        _say(e.code)
        os._exit(2)
    except RuntimeError as e:  # the rendezvous or the process group
        code, line = 4, f"rank {os.environ.get('RANK', '?')}: {distributed._first_line(e)}"
    else:
        return code
    _say(f"{PROG}: {line}")
    sys.stdout.flush()
    os._exit(code)  # a broken process group must not hold the process at exit


if __name__ == "__main__":
    sys.exit(main())
