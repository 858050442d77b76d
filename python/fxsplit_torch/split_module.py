"""fxsplit_torch.split_module: torch.fx.passes.split_module.split_module's
signature and result, the split done by libfxsplit in this process.

The data path: the graph becomes graph-file text in memory (export.py's
encoder, attributes looked up once per qualified name), the callback runs
once per call node in graph order, fxs_split_with_ids splits, and the
result's json text comes back through json.loads.  The rebuilt graphs take
their call_function targets, annotations and node.meta from the original
graph's own nodes (a meta entry carries each node's position through the
engine), never from names in text, so nothing is looked up by name.
"""
import contextlib
import gc
import json
import operator

import torch
import torch.fx

from . import native
from torch.fx.immutable_collections import immutable_dict, immutable_list

from .decode import Policy, decode_value
from .export import engine_graph

__all__ = ["split_module", "rebuild", "paused_collector"]

# The free-form meta entry that carries a node's position in the original
# graph through the engine (which copies meta to the nodes standing for it).
INDEX_KEY = "fxsplit_torch.index"


def _fx_113_layout(graph):
    """Whether @graph and its nodes are laid out as in torch.fx 1.13, whose
    create_node the fast path below reproduces."""
    ns = getattr(graph, "_graph_namespace", None)
    return (isinstance(getattr(ns, "_used_names", None), dict)
            and isinstance(getattr(ns, "_obj_to_name", None), dict)
            and not hasattr(ns, "_base_count") and not hasattr(graph, "_find_nodes_lookup_table")
            and hasattr(graph, "_insert") and isinstance(getattr(graph, "_len", None), int)
            and hasattr(torch.fx.Node, "_Node__update_args_kwargs"))


def _node_factory(graph):
    """create(op, target, args, kwargs, name, type_expr, inputs): a node of
    @graph as graph.create_node makes it, for names the engine made (unique,
    legal, as torch.fx 1.13's namespace makes them).  On torch.fx 1.13's
    layout, when the caller passes @inputs (the nodes @args and @kwargs
    refer to, in order; lists already immutable_list), the node is filled
    in directly: Node() would walk the arguments four times and the
    namespace would return the name unchanged.  Otherwise create_node."""
    create_node = graph.create_node
    if not _FAST_NODES or not _fx_113_layout(graph):
        return lambda op, target, args, kwargs, name, type_expr, inputs: \
            create_node(op, target, args, kwargs, name=name, type_expr=type_expr)
    used = graph._graph_namespace._used_names
    names = graph._graph_namespace._obj_to_name
    insert = graph._insert
    new = object.__new__
    Node = torch.fx.Node
    empty = immutable_dict()

    def create(op, target, args, kwargs, name, type_expr, inputs):
        if name in used or inputs is None or (op == "call_function") != (not isinstance(target, str)):
            return create_node(op, target, args, kwargs, name=name, type_expr=type_expr)
        n = new(Node)
        n.graph = graph
        n.name = name
        n.op = op
        n.target = target
        n._input_nodes = inputs
        n._args = args
        n._kwargs = immutable_dict(kwargs) if kwargs else empty
        for i in inputs:
            i.users.setdefault(n)
        n.users = {}
        n.type = type_expr
        n._prev = n._next = n
        n._erased = False
        n._repr_fn = None
        n.meta = {}
        used[name] = 0
        names[n] = name
        insert(n)
        graph._len += 1
        return n
    return create


def _fast_nodes_work():
    """The fast path makes the very node create_node makes (checked once)."""
    import operator as op
    slow, fast = torch.fx.Graph(), torch.fx.Graph()
    if not _fx_113_layout(slow):
        return False
    xs = slow.placeholder("x")
    ys = slow.create_node("call_function", op.add, (xs, [xs, 1]), {"k": 2}, name="add")
    create = _node_factory(fast)
    xf = create("placeholder", "x", (), {}, "x", None, {})
    yf = create("call_function", op.add, (xf, immutable_list([xf, 1])), {"k": 2}, "add", None,
                {xf: None})
    def shape(n):
        return {k: (type(v), v if k in ("name", "op", "target", "_erased", "meta") else None)
                for k, v in vars(n).items()}
    return (shape(xs) == shape(xf) and shape(ys) == shape(yf) and type(ys.args[1]) is type(yf.args[1])
            and type(ys.kwargs) is type(yf.kwargs) and list(xs.users) == [ys]
            and list(xf.users) == [yf] and ys._prev is xs and yf._prev is xf
            and slow.python_code("self").src == fast.python_code("self").src)


_FAST_NODES = True
try:
    _FAST_NODES = _fast_nodes_work()
except Exception:  # any other torch.fx: the plain path
    _FAST_NODES = False


class _Builder:
    """Graphs from the engine's json nodes.  Every call_function target and
    annotation is the object the export found behind its text, looked up
    in a table; a text the export did not write is an error (the engine
    adds _operator.getitem calls only)."""

    def __init__(self, exported):
        self.functions = {"_operator.getitem": operator.getitem}
        self.types = exported.types
        self.originals = exported.nodes
        self.symints = exported.symints
        self.policy = Policy()

    def _annotation(self, text, where):
        t = self.types.get(text)
        if t is None:  # one the engine derived (getitem of a typed tuple)
            t = self.policy.annotation(text, where)
        return t

    def graph(self, nodes, label):
        graph = torch.fx.Graph()
        env = {}
        create = _node_factory(graph)
        functions = self.functions
        originals = self.originals
        symints = self.symints

        inputs = {}
        plain = [True]  # False once a value needs decode_value

        def value(v):
            t = type(v)
            if t is dict:
                ref = v.get("node")
                if ref is not None and len(v) == 1:
                    n = env[ref]
                    inputs[n] = None
                    return n
                items = v.get("tuple")
                if items is not None and len(v) == 1:
                    return tuple([value(x) for x in items])
                if v.get("opaque") == "torch.SymInt" and v.get("repr") in symints:
                    return symints[v["repr"]]
                plain[0] = False
                return decode_value(v, env, f"{label}, node {name!r}")
            if t is list:
                return immutable_list([value(x) for x in v])
            return v

        for e in nodes:
            op, name, target = e["op"], e["name"], e["target"]
            meta = e.get("meta")
            original = originals[meta[INDEX_KEY]] if meta and INDEX_KEY in meta else None
            if op == "call_function":
                # the original node's own target (two functions may share a
                # name); the getitem calls the engine adds have none
                target = original.target if original is not None and original.op == op \
                    else functions.get(target)
                if target is None:
                    raise native.EngineError(f"{label}, node {name!r}: no function for the "
                                             f"target {e['target']!r}", "graph")
            inputs = {}
            plain[0] = True
            args = e.get("args")
            args = tuple([value(a) for a in args]) if args else ()
            kwargs = e.get("kwargs")
            kwargs = {k: value(v) for k, v in kwargs.items()} if kwargs else {}
            type_text = e.get("type")
            node = create(op, target, args, kwargs, name,
                          self._annotation(type_text, f"{label}, node {name!r}")
                          if type_text is not None else None,
                          inputs if plain[0] else None)
            if original is not None:
                node.meta = original.meta.copy()
            env[name] = node
        return graph


def split_module(m, root_m, split_callback, qualname_map=None, keep_original_order=False,
                 keep_original_node_name=False, keep_original_input_name=True,
                 partition_affix=None, tuple_return=False):
    """Splits the GraphModule @m as torch.fx.passes.split_module does (current
    PyTorch's rules, docs/split-semantics.md): @split_callback(node) gives
    the partition id (an int) of every call node, called exactly once per
    call node in graph order.  @qualname_map, when given, receives the new
    -> original qualified names.  @root_m is not used (as in PyTorch).

    Raises what the callback raises, TypeError for an id that is not an
    int, native.EngineError with the engine's message for a failed split
    (a cycle names its ring), export.ExportError for a graph the format
    cannot hold, native.LibraryNotFoundError without a libfxsplit."""
    lib = native.library()
    with paused_collector():
        return _split(lib, m, split_callback, qualname_map, dict(
            keep_original_order=keep_original_order,
            keep_original_node_name=keep_original_node_name,
            keep_original_input_name=keep_original_input_name,
            partition_affix=partition_affix, tuple_return=tuple_return))


@contextlib.contextmanager
def paused_collector():
    """A split makes many small objects and frees none: the cyclic
    collector would scan the whole heap again and again for nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _split(lib, m, split_callback, qualname_map, options):
    exported = engine_graph(m, INDEX_KEY)
    ids = [0] * len(exported.nodes)
    for i, node in enumerate(exported.nodes):
        if node.op not in ("placeholder", "get_attr", "output"):
            pid = split_callback(node)
            try:
                ids[i] = operator.index(pid)
            except TypeError:
                raise TypeError(f"node '{node.name}': split_callback returned {pid!r}, "
                                f"not an int partition id") from None
    with native.Graph(lib, exported.text) as graph:
        text = native.split_with_ids(graph, ids, **options)
    return rebuild(json.loads(text), exported, qualname_map)


def rebuild(doc, exported, qualname_map=None):
    """The split GraphModule of the engine's result @doc (parsed json) of
    the graph @exported (export.EngineGraph): submodules bound to the
    original module's attributes through the qualname map, which
    @qualname_map (a dict) receives too."""
    builder = _Builder(exported)
    new_qualnames = doc.get("qualname_map", {})
    if qualname_map is not None:
        qualname_map.update(new_qualnames)
    submodules = {}
    for sub in doc["submodules"]:
        name = sub["name"]
        root = {}
        for e in sub["nodes"]:
            if e["op"] in ("get_attr", "call_module") and e["target"] not in root:
                target = e["target"]
                root[target] = exported.attribute(new_qualnames.get(f"{name}.{target}", target))
        submodules[name] = torch.fx.GraphModule(root, builder.graph(sub["nodes"], name))
    root = {}
    for e in doc["nodes"]:
        if e["op"] in ("get_attr", "call_module"):
            target = e["target"]
            root[target] = submodules[target] if target in submodules \
                else exported.attribute(target)
    return torch.fx.GraphModule(root, builder.graph(doc["nodes"], "the top-level graph"))
