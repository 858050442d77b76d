"""The static plan of a split run across ranks (fxsplit_torch.distributed):
which rank evaluates which top-level node, which values cross to which
ranks, and in what order every rank sends and receives them.  Every rank
computes the same plan from the same split (the handshake checks it).

Groups: group 0 holds the placeholders (the driver rank's inputs), group
1..S the i-th stage (a call of a partition submodule in the top-level
graph's order, with the top-level nodes that take its result apart), and
group S+1 the output (the driver).  A node that is no stage call joins the
group of the latest group among its inputs, so the groups in index order
are a topological order of the graph.  Every rank runs its groups in
index order, micro-batch by micro-batch inside a group (GPipe's forward
schedule), so all ranks follow one global order of (group, micro-batch)
and point-to-point messages between two ranks come in one agreed order."""
import re

import torch
import torch.fx

_RANK_LABEL = re.compile(r"(?:^|[\s,;])rank\s*=\s*(\d+)(?![\w.])")
# where a partition label may sit on an in-process submodule
_LABEL_ATTRS = ("label", "fxsplit_label", "partition_label")


class PlacementError(ValueError):
    """A placement map or label that names no stage or no rank."""


def stage_names(graph, submodules):
    """The partition submodules called by the top-level @graph, in order."""
    names = []
    for n in graph.nodes:
        if n.op == "call_module" and n.target in submodules and n.target not in names:
            names.append(n.target)
    return names


def label_rank(label):
    """The rank a partition label such as "rank=2" or "backend=cpu, rank=1"
    names, or None."""
    if not isinstance(label, str):
        return None
    m = _RANK_LABEL.search(label)
    return int(m.group(1)) if m else None


def labels_of_doc(doc):
    """{submodule: label} from a json result's partition table (read
    defensively: a table without labels gives {})."""
    labels = {}
    table = doc.get("partitions") if isinstance(doc, dict) else None
    for entry in table if isinstance(table, list) else ():
        if isinstance(entry, dict) and isinstance(entry.get("submodule"), str) \
                and isinstance(entry.get("label"), str):
            labels[entry["submodule"]] = entry["label"]
    return labels


def labels_of_module(split_gm, stages):
    """{submodule: label} from an attribute on each in-process submodule."""
    labels = {}
    for name in stages:
        sub = getattr(split_gm, name, None)
        for attr in _LABEL_ATTRS:
            value = getattr(sub, attr, None)
            if isinstance(value, str):
                labels[name] = value
                break
    return labels


def placement_of(stages, world_size, placement=None, labels=None):
    """{stage: rank}: @placement (a dict stage name or index -> rank, or a
    sequence of ranks by stage index) first, then "rank=N" in a stage's
    label, then stage i on rank i mod @world_size."""
    result = {}
    if placement is not None:
        items = placement.items() if isinstance(placement, dict) else enumerate(placement)
        for key, rank in items:
            name = stages[key] if isinstance(key, int) and 0 <= key < len(stages) else key
            if name not in stages:
                raise PlacementError(f"placement: {key!r} is not a stage (the stages: "
                                     f"{', '.join(stages)})")
            result[name] = (rank, f"placement[{key!r}]")
    for name, label in (labels or {}).items():
        rank = label_rank(label)
        if name in stages and name not in result and rank is not None:
            result[name] = (rank, f"{name}'s label {label!r}")
    for i, name in enumerate(stages):
        result.setdefault(name, (i % world_size, "default"))
    for name, (rank, origin) in result.items():
        if not isinstance(rank, int) or isinstance(rank, bool) or not 0 <= rank < world_size:
            raise PlacementError(f"{origin}: places {name} on rank {rank!r}, but the group has "
                                 f"ranks 0 to {world_size - 1}")
    return {name: result[name][0] for name in stages}


def tensor_meta(node):
    """(shape, dtype) from a node's tensor metadata, or None."""
    tm = node.meta.get("tensor_meta") if hasattr(node, "meta") else None
    shape, dtype = getattr(tm, "shape", None), getattr(tm, "dtype", None)
    if isinstance(dtype, torch.dtype) and shape is not None \
            and all(isinstance(s, int) for s in shape):
        return tuple(shape), dtype
    return None


class Group:
    __slots__ = ("index", "name", "rank", "nodes", "sends")

    def __init__(self, index, name, rank):
        self.index, self.name, self.rank = index, name, rank
        self.nodes = []
        self.sends = []  # (node, destination rank, "stage" | "io"), in node order


class Plan:
    """The groups, owners and messages of the top-level @graph's nodes
    (module docstring); @stage_graphs: {partition submodule: its
    torch.fx.Graph}, every rank's (for the values' names and metadata)."""

    def __init__(self, graph, stage_graphs, placement, driver):
        self.stage_graphs = stage_graphs
        self.stages = stage_names(graph, stage_graphs)
        self.placement = placement
        self.driver = driver
        self.groups = [Group(0, "inputs", driver)]
        self.groups += [Group(i + 1, s, placement[s]) for i, s in enumerate(self.stages)]
        self.groups.append(Group(len(self.stages) + 1, "output", driver))
        stage_group = {s: self.groups[i + 1] for i, s in enumerate(self.stages)}
        self.group_of = {}
        self.constants = []  # get_attr nodes: every rank that needs one looks it up
        self.output = None
        for n in graph.nodes:
            if n.op == "get_attr":
                self.constants.append(n)
                continue
            if n.op == "placeholder":
                g = self.groups[0]
            elif n.op == "output":
                g, self.output = self.groups[-1], n
            elif n.op == "call_module" and n.target in stage_group:
                g = stage_group[n.target]
            else:
                inputs = [self.group_of[i].index for i in n.all_input_nodes if i in self.group_of]
                g = self.groups[max(inputs, default=0)]
            self.group_of[n] = g
            g.nodes.append(n)
        for g in self.groups:
            for n in g.nodes:
                users = [self.group_of[u] for u in n.users if u in self.group_of]
                for dst in sorted({u.rank for u in users} - {g.rank}):
                    only_output = all(u is self.groups[-1] for u in users if u.rank == dst)
                    kind = "io" if g.index == 0 or only_output else "stage"
                    g.sends.append((n, dst, kind))
        self.meta = {n: tensor_meta(self.value_node(n)) for n in self.group_of}

    def rank_groups(self, rank):
        return [g for g in self.groups if g.rank == rank]

    def incoming(self, src, dst, micro_batches):
        """(node, micro-batch) of every message @src sends @dst in a run,
        in the order it sends them."""
        for g in self.groups:
            if g.rank == src:
                for m in range(micro_batches):
                    for n, d, _ in g.sends:
                        if d == dst:
                            yield n, m

    def senders_to(self, rank):
        return sorted({g.rank for g in self.groups for _, d, _ in g.sends if d == rank})

    def value_node(self, node):
        """The node inside a partition that computes the top-level @node's
        value (for its name and tensor metadata), else @node itself."""
        if "tensor_meta" in getattr(node, "meta", {}):
            return node
        owner = self.group_of.get(node)
        graph = self.stage_graphs.get(getattr(owner, "name", None))
        if graph is None:
            return node
        out = next((o for o in graph.nodes if o.op == "output"), None)
        result = out.args[0] if out is not None and out.args else None
        if node.op == "call_module" and isinstance(result, torch.fx.Node):
            return result
        source = node.args[0] if node.op == "call_function" and len(node.args) == 2 else None
        if isinstance(source, torch.fx.Node) and source.op == "call_module" \
                and source.target == owner.name and isinstance(node.args[1], int) \
                and isinstance(result, (tuple, list)) and 0 <= node.args[1] < len(result) \
                and isinstance(result[node.args[1]], torch.fx.Node):
            return result[node.args[1]]
        return node

    def describe(self, node):
        """A value's name for messages: the partition's own node name."""
        inner = self.value_node(node)
        return repr(inner.name) if inner is node else f"{inner.name!r} ({node.name})"
