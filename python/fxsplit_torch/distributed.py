"""fxsplit_torch.distributed: a split GraphModule run as a pipeline on the
processes of a torch.distributed group (docs/python.md, "Running a split
on several processes").

Every rank builds the same plan (pipeline_plan.Plan) from the same split,
builds only the stages placed on it, checks with every other rank that
they hold the same split and model (a handshake before any value is
sent), then runs micro-batches through its stages in the plan's order.
Values cross ranks by c10d point-to-point send/recv, straight from the
rank that computes a value to each rank that uses it: with tensor
metadata for the run's shapes, a tensor goes as it is; anything else goes
with a small header of numbers (wire.py; never pickle).  Inference only:
everything runs under torch.no_grad()."""
import datetime
import hashlib
import json
import re
import threading
import time

import torch
import torch.distributed as dist
import torch.fx
from torch.fx.node import map_arg

from . import load, wire
from .decode import LoadError, Policy
from .pipeline_plan import PlacementError, Plan, labels_of_doc, labels_of_module, placement_of, \
    stage_names

__all__ = ["MismatchError", "PipelineError", "PlacementError", "Pipeline", "init_from_env"]

_MAGIC = 0x66787370  # "fxsp": the first word of a run's control message
_state = {"store": None, "timeout": None}


class PipelineError(RuntimeError):
    """The pipeline stopped: one line naming the rank that failed, its
    stage and the value that was awaited.  .rank, .stage and .value hold
    them (None where unknown).  The process group is not usable after it."""

    def __init__(self, line, rank=None, stage=None, value=None):
        super().__init__(line)
        self.rank, self.stage, self.value = rank, stage, value


class MismatchError(PipelineError):
    """The ranks hold different splits, models or placements (refused
    before any value is sent)."""


def init_from_env(backend="gloo", timeout=60.0):
    """torch.distributed.init_process_group from torchrun's environment
    (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), with @timeout seconds for
    every wait; the rendezvous store also carries the first failure's line
    to the other ranks.  Returns (rank, world size)."""
    span = datetime.timedelta(seconds=timeout)
    store, rank, world = next(dist.rendezvous("env://", timeout=span))
    dist.init_process_group(backend, store=dist.PrefixStore("fxsplit_torch/pg", store),
                            rank=rank, world_size=world, timeout=span)
    _state.update(store=dist.PrefixStore("fxsplit_torch/failures", store), timeout=timeout)
    return rank, world


def _bounded(call, seconds=2.0):
    """@call() on a thread for at most @seconds (a store on a rank that
    hangs must not hang this one); its result or None."""
    box = []

    def target():
        try:
            box.append(call())
        except Exception:  # the store is gone: no shared record
            pass
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    return box[0] if box else None


def _put(store, key, value):
    """Sets @key, then counts it as set (torch 1.13's PrefixStore has no
    check(): a reader asks the count first and never blocks in get)."""
    store.set(key, value.encode())
    store.add(key + "#", 1)


def _get(store, key):
    return store.get(key).decode("utf-8", "replace") if store.add(key + "#", 0) > 0 else None


def _first_failure():
    store = _state["store"]
    return None if store is None else _bounded(lambda: _get(store, "first"))


def _record_failure(line):
    """Records @line as the first failure unless another rank was first."""
    store = _state["store"]
    if store is not None:
        _bounded(lambda: store.add("count", 1) == 1 and _put(store, "first", line))


def _first_line(exc):
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return re.sub(r"^\[[^\]]*\]\s*", "", text)  # gloo's source location


def _digest(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.digest()


def _model_digest(module):
    """The parameter and buffer names, shapes and dtypes of @module."""
    return _digest(*(f"{k} {tuple(v.shape)} {v.dtype}" for k, v in module.state_dict().items()))


class Pipeline:
    """A split run across the ranks of the default process group (create
    it with init_from_env or torch.distributed.init_process_group first).

    @split: a split torch.fx.GraphModule (split_module, split, load_split:
    every rank then uses only its own stages of it), or the path of
    fxsplit's json result, with @original_module the unsplit model whose
    parameters it binds (then each rank builds only its own stages).
    @placement: {stage name or index: rank} or a sequence of ranks by stage
    index; stages it leaves out go by a "rank=N" partition label, else
    stage i goes to rank i mod world size.  @driver: the rank that takes
    the inputs and returns the outputs.  @device: where the stages run and
    values arrive (cpu with gloo; the rank's cuda device with nccl).
    @allow_modules, @trust_targets: as load_split's.  Every rank makes the
    same Pipeline; the constructor is collective (the handshake)."""

    def __init__(self, split, original_module=None, *, placement=None, driver=0, device=None,
                 allow_modules=(), trust_targets=False):
        if not dist.is_initialized():
            raise RuntimeError("fxsplit_torch.distributed: no process group: call "
                               "init_from_env() or torch.distributed.init_process_group() first")
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        if not 0 <= driver < self.world:
            raise PlacementError(f"driver rank {driver}: the group has ranks 0 to {self.world - 1}")
        self.device = torch.device(device or "cpu")
        if isinstance(split, torch.fx.GraphModule):
            graphs = self._from_module(split, placement)
        else:
            graphs = self._from_file(split, original_module, placement, allow_modules, trust_targets)
        self.plan = Plan(self.graph, graphs, self.placement, driver)
        self.stages = {s: self._root.get_submodule(s).to(self.device)
                       for s in self.plan.stages if self.placement[s] == self.rank}
        self._constants = {n: self._attribute(n.target) for n in self.plan.constants}
        self._groups = self.plan.rank_groups(self.rank)
        self._pending = []
        self.waiting = self.failing = None  # for stop_line
        self.reset_stats()
        self._handshake()

    def _from_module(self, gm, placement):
        children = dict(gm.named_children())
        stages = stage_names(gm.graph, children)
        self.placement = placement_of(stages, self.world, placement, labels_of_module(gm, stages))
        self.graph, self._root = gm.graph, gm
        self.split_digest = _digest(gm.code, *(f"{s}\n{children[s].code}" for s in stages))
        self.model_digest = _model_digest(gm)
        return {s: children[s].graph for s in stages}

    def _from_file(self, path, original_module, placement, allow_modules, trust_targets):
        if original_module is None:
            raise TypeError("Pipeline(path, original_module): a json split needs the original module")
        with open(path, "rb") as f:
            data = f.read()
        try:
            doc = json.loads(data)
        except ValueError as e:
            raise LoadError(f"{path}: not json ({e})") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list) \
                or not isinstance(doc.get("submodules"), list) \
                or not all(isinstance(s, dict) and isinstance(s.get("name"), str)
                           and isinstance(s.get("nodes"), list) for s in doc["submodules"]):
            raise LoadError(f"{path}: not an fxsplit split result")
        subs = {s["name"]: s for s in doc["submodules"]}
        stages = []
        for e in doc["nodes"]:
            if isinstance(e, dict) and e.get("op") == "call_module" and e.get("target") in subs \
                    and e["target"] not in stages:
                stages.append(e["target"])
        self.placement = placement_of(stages, self.world, placement, labels_of_doc(doc))
        own = {s for s in stages if self.placement[s] == self.rank}
        self._root = load.split_from_doc(doc, path, original_module, allow_modules, trust_targets,
                                         only=own)
        self.graph = self._root.graph
        self.split_digest = _digest(data)
        self.model_digest = _model_digest(original_module)
        policy = Policy(allow_modules, trust_targets)
        return {s: self._root.get_submodule(s).graph if s in own
                else load.build_graph(subs[s]["nodes"], label=s, policy=policy) for s in stages}

    def _attribute(self, target):
        obj = self._root
        for atom in target.split("."):
            obj = getattr(obj, atom)
        return obj

    # ---- who is who, and failures ----

    def who(self, rank):
        """"driver, stage submod_0" for messages."""
        names = [g.name for g in self.plan.groups[1:-1] if g.rank == rank]
        parts = (["driver"] if rank == self.plan.driver else []) \
            + ([f"stage {', '.join(names)}"] if names else [])
        return ", ".join(parts) or "no stage"

    def _fail(self, cause, rank, value=None, own=True):
        """PipelineError with the first failure any rank recorded (else
        @cause, which becomes the record): one line."""
        root = _first_failure()
        if root is None:
            _record_failure(cause)
            root = cause
        line = root if own and root == cause else \
            f"rank {self.rank} ({self.who(self.rank)}) stopped: {root}"
        return PipelineError(line, rank, self.who(rank) if rank is not None else None, value)

    def _timeout_text(self):
        t = _state["timeout"]
        return f"{t:g} s" if t else "the process group's timeout"

    def _follow_waits(self, peer, line, hung):
        """Which rank really failed.  A rank that times out notes whom it
        waited for, and gloo then closes its connections, so a peer that
        is "gone" may only have timed out waiting for a third rank.  For a
        few seconds this follows the notes from @peer on to a rank that
        waits for nobody.  (rank, line, whether @line is still ours)."""
        store = _state["store"]
        if store is None:
            return peer, line, True
        if hung:
            _bounded(lambda: _put(store, f"waiting/{self.rank}", f"{peer}\n{line}"))
        grace = min(5.0, (_state["timeout"] or 10.0) / 2) if hung else 1.5
        end = time.monotonic() + grace
        found = (peer, line, True)
        while time.monotonic() < end and _first_failure() is None:
            rank, link, seen = peer, line, {self.rank}
            while rank not in seen:
                seen.add(rank)
                key = f"waiting/{rank}"
                text = _bounded(lambda: _get(store, key))
                if not text:
                    break
                rank, link = int(text.split("\n", 1)[0]), text.split("\n", 1)[1]
            found = (rank, link, link == line)
            if not hung and link != line:
                break  # the peer timed out: its own wait names the rank
            time.sleep(0.2)
        return found

    def _peer_failure(self, peer, node, m, exc, waiting):
        text = _first_line(exc)
        hung = "timed out" in text.lower()
        value = f"{self.plan.describe(node)} (micro-batch {m})" if node is not None else None
        me = f"rank {self.rank} ({self.who(self.rank)})"
        if waiting:
            what = f"sent nothing for {self._timeout_text()}" if hung else f"is gone ({text})"
            line = f"rank {peer} ({self.who(peer)}) {what}: {me} was waiting for " \
                   + (f"its value {value}" if value else "the start of a run")
        else:
            what = f"took nothing for {self._timeout_text()}" if hung else f"is gone ({text})"
            line = f"rank {peer} ({self.who(peer)}) {what}: {me} was sending it " \
                   + (f"the value {value}" if value else "a control message")
        self.failing = line
        peer, line, own = self._follow_waits(peer, line, hung)
        return self._fail(line, peer, node.name if node is not None else None, own)

    def _own_failure(self, where, exc):
        line = f"rank {self.rank} ({self.who(self.rank)}) failed at {where}: " \
               f"{type(exc).__name__}: {_first_line(exc)}"
        return self._fail(line, self.rank)

    # ---- the handshake ----

    def _handshake(self):
        placement = _digest(self.world, self.plan.driver, *(f"{s}={r}" for s, r in
                                                            self.placement.items()))
        mine = self.split_digest + self.model_digest + placement
        words = torch.tensor([int.from_bytes(mine[i:i + 8], "little", signed=True)
                              for i in range(0, len(mine), 8)], dtype=torch.int64,
                             device=self.device)
        every = [torch.zeros_like(words) for _ in range(self.world)]
        try:
            dist.all_gather(every, words)
        except RuntimeError as e:
            raise self._fail(f"rank {self.rank} ({self.who(self.rank)}): the handshake failed "
                             f"({_first_line(e)}): a rank is gone or never started", None) from None
        first = every[0].tolist()
        for r, other in enumerate(every):
            theirs = other.tolist()
            for what, lo, hi, hint in (("split", 0, 4, "every rank must load the same split file"),
                                       ("model", 4, 8, "parameter names, shapes and dtypes differ"),
                                       ("placement", 8, 12, "placement and world size differ")):
                if theirs[lo:hi] != first[lo:hi]:
                    raise MismatchError(f"rank {r}'s {what} ({_hex(theirs[lo:hi])}) differs from "
                                        f"rank 0's ({_hex(first[lo:hi])}): {hint}", r)

    # ---- statistics ----

    def reset_stats(self):
        """Zero .stats: stage_seconds, stage_cpu_seconds (this thread's CPU
        time: what the stage costs on a busy machine) and stage_calls per
        own stage,
        idle_seconds (waiting for values and for sends to be taken) and
        sent_bytes by kind (stage: between stages; io: inputs and outputs;
        header: headers and control messages)."""
        self.stats = {"stage_seconds": {s: 0.0 for s in self.stages},
                      "stage_cpu_seconds": {s: 0.0 for s in self.stages},
                      "stage_calls": {s: 0 for s in self.stages}, "idle_seconds": 0.0,
                      "sent_bytes": {"stage": 0, "io": 0, "header": 0}}

    def gather_stats(self):
        """Every rank's .stats at the driver (a list by rank; None on the
        other ranks).  Collective: every rank calls it."""
        stages = self.plan.stages
        s = self.stats
        vec = torch.tensor([s["idle_seconds"], *(s["sent_bytes"][k] for k in ("stage", "io", "header")),
                            *(s["stage_seconds"].get(n, 0.0) for n in stages),
                            *(s["stage_calls"].get(n, 0) for n in stages),
                            *(s["stage_cpu_seconds"].get(n, 0.0) for n in stages)],
                           dtype=torch.float64, device=self.device)
        if self.rank != self.plan.driver:
            self._isend(vec, self.plan.driver, None, None, "header")
            self._finish_sends()
            return None
        out = []
        for r in range(self.world):
            v = vec if r == self.rank else self._recv(torch.empty_like(vec), r, None, None)
            v = v.tolist()
            k = len(stages)
            out.append({"idle_seconds": v[0],
                        "sent_bytes": dict(zip(("stage", "io", "header"), map(int, v[1:4]))),
                        "stage_seconds": {n: v[4 + i] for i, n in enumerate(stages)
                                          if self.placement[n] == r},
                        "stage_calls": {n: int(v[4 + k + i]) for i, n in enumerate(stages)
                                        if self.placement[n] == r},
                        "stage_cpu_seconds": {n: v[4 + 2 * k + i] for i, n in enumerate(stages)
                                              if self.placement[n] == r}})
        return out

    # ---- messages ----

    def _isend(self, tensor, dst, node, m, kind):
        try:
            work = dist.isend(tensor, dst)
        except RuntimeError as e:
            raise self._peer_failure(dst, node, m, e, waiting=False) from None
        self._pending.append((work, tensor, dst, node, m))
        self.stats["sent_bytes"][kind] += tensor.numel() * tensor.element_size()
        if len(self._pending) > 256:
            self._finish_sends(lambda w: w.is_completed())

    def _finish_sends(self, which=lambda w: True):
        keep = []
        for item in self._pending:
            work, _, dst, node, m = item
            if not which(work):
                keep.append(item)
                continue
            t0 = time.perf_counter()
            try:
                work.wait()
            except RuntimeError as e:
                raise self._peer_failure(dst, node, m, e, waiting=False) from None
            self.stats["idle_seconds"] += time.perf_counter() - t0
        self._pending = keep

    def _recv(self, buf, src, node, m):
        t0 = time.perf_counter()
        self.waiting = (src, node, m)
        try:
            dist.recv(buf, src)
        except RuntimeError as e:
            raise self._peer_failure(src, node, m, e, waiting=True) from None
        self.waiting = None
        self.stats["idle_seconds"] += time.perf_counter() - t0
        return buf

    def stop_line(self, reason):
        """The line of a rank stopped from outside (torchrun's SIGTERM when
        another rank failed): the first failure recorded (waiting up to 2 s
        for one), else the one this rank is handling, else what it was
        waiting for."""
        me = f"rank {self.rank} ({self.who(self.rank)})"
        if self.failing:
            root = _first_failure()
            if root is None:
                _record_failure(self.failing)
                return self.failing
        end = time.monotonic() + 2.0
        root = _first_failure()
        while root is None and time.monotonic() < end:
            time.sleep(0.1)
            root = _first_failure()
        if root:
            return f"{me} stopped ({reason}): {root}"
        if self.waiting:
            src, node, m = self.waiting
            what = f"its value {self.plan.describe(node)} (micro-batch {m})" if node is not None \
                else "the start of a run"
            return f"{me} stopped ({reason}) while waiting for {what} from rank {src} " \
                   f"({self.who(src)})"
        return f"{me} stopped ({reason})"

    def _send_value(self, value, node, m, dst, kind):
        where = f"{self.plan.describe(node)} (micro-batch {m})"
        meta = self.plan.meta[node] if self._use_meta else None
        if meta is not None:
            if not isinstance(value, torch.Tensor) or tuple(value.shape) != meta[0] \
                    or value.dtype != meta[1]:
                got = f"shape {tuple(value.shape)} {value.dtype}" \
                    if isinstance(value, torch.Tensor) else f"a {type(value).__name__}"
                raise self._own_failure(where, ValueError(
                    f"it is {got} where the split's tensor metadata says shape {meta[0]} "
                    f"{meta[1]}, for inputs of the metadata's shapes"))
            self._isend(value.contiguous(), dst, node, m, kind)
            return
        try:
            words, tensors = wire.encode(value, where)
        except wire.WireError as e:
            raise self._own_failure(where, e) from None
        head = [len(words)] + words[:wire.HEADER_WORDS - 1]
        head += [0] * (wire.HEADER_WORDS - len(head))
        self._isend(torch.tensor(head, dtype=torch.int64, device=self.device), dst, node, m, "header")
        if len(words) >= wire.HEADER_WORDS:
            self._isend(torch.tensor(words[wire.HEADER_WORDS - 1:], dtype=torch.int64,
                                     device=self.device), dst, node, m, "header")
        for t in tensors:
            self._isend(t.to(self.device), dst, node, m, kind)

    def _recv_value(self, src, node, m):
        meta = self.plan.meta[node] if self._use_meta else None
        if meta is not None:
            return self._recv(torch.empty(meta[0], dtype=meta[1], device=self.device), src, node, m)
        where = f"{self.plan.describe(node)} (micro-batch {m}) from rank {src}"
        head = self._recv(torch.empty(wire.HEADER_WORDS, dtype=torch.int64, device=self.device),
                          src, node, m).tolist()
        n = head[0]
        if not 1 <= n <= wire.MAX_WORDS:
            raise self._own_failure(where, wire.WireError(f"a header of {n} words"))
        words = head[1:1 + min(n, wire.HEADER_WORDS - 1)]
        if n >= wire.HEADER_WORDS:
            rest = torch.empty(n - wire.HEADER_WORDS + 1, dtype=torch.int64, device=self.device)
            words += self._recv(rest, src, node, m).tolist()
        try:
            return wire.decode(words, lambda shape, dtype: self._recv(
                torch.empty(shape, dtype=dtype, device=self.device), src, node, m), where)
        except wire.WireError as e:
            raise self._own_failure(where, e) from None

    # ---- running ----

    def run(self, *inputs, micro_batches=1):
        """One batch through the pipeline, cut into @micro_batches along
        dimension 0 of every tensor input (other inputs go to every
        micro-batch).  Every rank calls it; the inputs and @micro_batches
        count on the driver only, which returns the outputs (tensors joined
        along dimension 0); the other ranks return None.  PipelineError
        when a rank fails, dies or sends nothing within the timeout."""
        with torch.no_grad():
            started = self._start(inputs, micro_batches)
            if started is None:
                raise PipelineError(f"rank {self.rank}: the driver closed the pipeline",
                                    self.plan.driver)
            return self._run(*started)

    def serve(self):
        """On a rank other than the driver: run every batch the driver
        starts, until the driver calls close()."""
        with torch.no_grad():
            while True:
                started = self._start((), 1)
                if started is None:
                    return
                self._run(*started)

    def close(self):
        """On the driver: end the other ranks' serve()."""
        if self.rank == self.plan.driver:
            self._control(0, False, True)
            self._finish_sends()

    def _control(self, micro_batches, use_meta, stop):
        msg = torch.tensor([_MAGIC, micro_batches, int(use_meta), int(stop)], dtype=torch.int64,
                           device=self.device)
        for r in range(self.world):
            if r != self.rank:
                self._isend(msg, r, None, None, "header")

    def _start(self, inputs, micro_batches):
        """(micro-batches, tensor metadata fits, inputs by micro-batch), or
        None when the driver closed the pipeline."""
        driver = self.plan.driver
        if self.rank == driver:
            chunks = self._chunks(inputs, micro_batches)
            use_meta = self._meta_fits(chunks)
            self._control(micro_batches, use_meta, False)
            return micro_batches, use_meta, chunks
        msg = self._recv(torch.empty(4, dtype=torch.int64, device=self.device), driver, None,
                         None).tolist()
        if msg[0] != _MAGIC or msg[1] < (0 if msg[3] else 1):
            raise self._own_failure("the start of a run", ValueError(f"a bad control message {msg}"))
        return None if msg[3] else (msg[1], bool(msg[2]), None)

    def _chunks(self, inputs, micro_batches):
        placeholders = self.plan.groups[0].nodes
        if isinstance(micro_batches, bool) or not isinstance(micro_batches, int) \
                or micro_batches < 1:
            raise ValueError(f"micro_batches={micro_batches!r}: expected an int >= 1")
        if len(inputs) > len(placeholders):
            raise TypeError(f"run() takes {len(placeholders)} inputs, {len(inputs)} given")
        parts = []
        for i, p in enumerate(placeholders):
            if i < len(inputs):
                x = inputs[i]
            elif p.args:
                x = p.args[0]
            else:
                raise TypeError(f"run(): no value for the input {p.name!r}")
            if isinstance(x, torch.Tensor):
                if x.dim() == 0 or x.shape[0] < micro_batches:
                    raise ValueError(f"input {p.name!r} of shape {tuple(x.shape)}: cannot cut "
                                     f"it into {micro_batches} micro-batches along dimension 0")
                parts.append([c.to(self.device) for c in torch.tensor_split(x, micro_batches)])
            else:
                parts.append([x] * micro_batches)
        return [[part[m] for part in parts] for m in range(micro_batches)]

    def _meta_fits(self, chunks):
        for i, p in enumerate(self.plan.groups[0].nodes):
            meta = self.plan.meta[p]
            if meta is None or any(not isinstance(c[i], torch.Tensor) or tuple(c[i].shape) != meta[0]
                                   or c[i].dtype != meta[1] for c in chunks):
                return False
        return True

    def _fetch(self, node, m):
        if node in self._constants:
            return self._constants[node]
        env = self._envs[m]
        if node not in env:
            src = self.plan.group_of[node].rank
            for n, mm in self._incoming[src]:
                self._envs[mm][n] = self._recv_value(src, n, mm)
                if n is node and mm == m:
                    break
        return env[node]

    def _evaluate(self, node, m):
        args = map_arg(node.args, lambda a: self._fetch(a, m))
        kwargs = map_arg(node.kwargs, lambda a: self._fetch(a, m))
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            if node.op == "call_module":
                value = self._root.get_submodule(node.target)(*args, **kwargs)
            elif node.op == "call_method":
                value = getattr(args[0], node.target)(*args[1:], **kwargs)
            else:
                value = node.target(*args, **kwargs)
        except Exception as e:
            raise self._own_failure(f"{node.name} (micro-batch {m})", e) from None
        if node.op == "call_module" and node.target in self.stages:
            self.stats["stage_seconds"][node.target] += time.perf_counter() - t0
            self.stats["stage_cpu_seconds"][node.target] += time.thread_time() - c0
            self.stats["stage_calls"][node.target] += 1
        return value

    def _run(self, micro_batches, use_meta, chunks):
        self._use_meta = use_meta
        self._envs = [{} for _ in range(micro_batches)]
        self._incoming = {src: self.plan.incoming(src, self.rank, micro_batches)
                          for src in self.plan.senders_to(self.rank)}
        results = [None] * micro_batches
        for g in self._groups:
            for m in range(micro_batches):
                env = self._envs[m]
                for n in g.nodes:
                    if n.op == "placeholder":
                        env[n] = chunks[m][g.nodes.index(n)]
                    elif n.op == "output":
                        results[m] = map_arg(n.args[0], lambda a: self._fetch(a, m))
                    else:
                        env[n] = self._evaluate(n, m)
                for n, dst, kind in g.sends:
                    self._send_value(env[n], n, m, dst, kind)
        self._finish_sends()
        self._envs = self._incoming = None
        return join_micro_batches(results) if self.rank == self.plan.driver else None


def _hex(words):
    return b"".join(w.to_bytes(8, "little", signed=True) for w in words).hex()[:12]


def join_micro_batches(parts, where="the output"):
    """The micro-batches' outputs @parts as one: tensors concatenated along
    dimension 0, containers item by item, anything else equal in all."""
    first = parts[0]
    if isinstance(first, torch.Tensor):
        if first.dim() == 0:
            raise ValueError(f"{where}: a 0-dimensional tensor cannot be joined across micro-batches")
        return torch.cat(parts) if len(parts) > 1 else first
    if isinstance(first, (tuple, list)) and not isinstance(first, torch.Size):
        items = [join_micro_batches([p[i] for p in parts], f"{where}[{i}]") for i in range(len(first))]
        return type(first)(*items) if hasattr(first, "_fields") else type(first)(items)
    if isinstance(first, dict):
        return {k: join_micro_batches([p[k] for p in parts], f"{where}[{k!r}]") for k in first}
    if any(p != first for p in parts[1:]):
        raise ValueError(f"{where}: the micro-batches give different values ({first!r}, ...)")
    return first
