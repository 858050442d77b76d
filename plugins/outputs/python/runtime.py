# ---- fxsplit runtime: rebuilds the graphs below (the same in every file) ----
#
# Each graph is rebuilt node by node as a torch.fx.Graph, and torch.fx
# compiles the forward of every GraphModule from its graph, as it does for
# split_module's result: the module's code, graph and behaviour always
# agree, whatever torch version imports this file.  CODE keeps the forward
# code text torch.fx 1.13 prints for each graph; check_code() compares it.
import builtins as _builtins
import importlib as _importlib
import re as _re
import typing

import torch
import torch.fx
from math import inf, nan
from torch import device

__all__ = ["build", "check_code", "CODE", "QUALNAME_MAP"]


class _R:
    """A reference to the node named `name` of the same graph."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def _O(type_name, text):
    """An opaque constant (a torch.dtype, device, ...) from its repr."""
    try:
        return eval(text, {"__builtins__": {}, "torch": torch, "device": device,
                           "inf": inf, "nan": nan})
    except Exception as e:
        raise ValueError(f"fxsplit: cannot rebuild the {type_name} constant {text!r}: {e}") from None


_functions = {}


def _function(qualname, where):
    """The function torch.fx.node._get_qualified_name calls `qualname`."""
    fn = _functions.get(qualname)
    if fn is not None:
        return fn
    if qualname.startswith("builtins."):
        qualname = qualname[len("builtins."):]
    parts = qualname.split(".")
    if len(parts) == 1:
        fn = getattr(_builtins, qualname, None)
    for i in range(len(parts) - 1, 0, -1):
        try:
            fn = _importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for atom in parts[i:]:
            fn = getattr(fn, atom, None)
        break
    if fn is None or not callable(fn):
        raise LookupError(f"fxsplit: {where}: cannot find the function {qualname}")
    _functions[qualname] = fn
    return fn


_types = {}
_dotted_name = _re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


def _type(text, where):
    """The annotation whose torch.fx.node._type_repr is `text`."""
    if text is None:
        return None
    if text in _types:
        return _types[text]
    namespace = {"typing": typing, "torch": torch, "NoneType": type(None)}
    for name in _dotted_name.findall(text):
        top = name.split(".")[0]
        if top in namespace or hasattr(_builtins, top):
            continue
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            try:
                _importlib.import_module(".".join(parts[:i]))
                break
            except ImportError:
                continue
        try:
            namespace[top] = _importlib.import_module(top)
        except ImportError:
            pass
    try:
        t = eval(text, namespace)
    except Exception as e:
        raise ValueError(f"fxsplit: {where}: cannot rebuild the type annotation {text!r}: {e}") from None
    _types[text] = t
    return t


def _graph(label, nodes):
    """A torch.fx.Graph from (op, name, target, args, kwargs, type, wrapped)
    tuples, in order; args and kwargs refer to earlier nodes with _R."""
    graph = torch.fx.Graph()
    env = {}

    def ref(a):
        return env[a.name] if isinstance(a, _R) else a

    for op, name, target, args, kwargs, type_text, wrapped in nodes:
        where = f"{label or 'the top-level graph'}, node {name!r}"
        if op == "call_function":
            target = _function(target, where)
        node = graph.create_node(op, target,
                                 torch.fx.node.map_aggregate(args, ref),
                                 torch.fx.node.map_aggregate(kwargs, ref),
                                 name=name, type_expr=_type(type_text, where))
        if wrapped:
            node.meta["is_wrapped"] = True
        env[name] = node
    return graph


def _attr(module, qualname, where):
    obj = module
    for atom in qualname.split("."):
        if not hasattr(obj, atom):
            raise AttributeError(f"fxsplit: {where}: the original module has no attribute {qualname!r}")
        obj = getattr(obj, atom)
    return obj


def build(original_module):
    """The split module: a torch.fx.GraphModule calling one GraphModule
    child per partition, bound to `original_module`'s parameters, buffers
    and submodules (shared, not copied) through QUALNAME_MAP."""
    children = {}
    for name, (nodes, targets) in _SUBMODULES.items():
        attrs = {target: _attr(original_module, QUALNAME_MAP.get(f"{name}.{target}", target),
                               f"{name}.{target}")
                 for target in targets}
        children[name] = torch.fx.GraphModule(attrs, _graph(name, nodes))
    nodes, targets = _TOP
    attrs = {target: children[target] if target in children
             else _attr(original_module, target, target)
             for target in targets}
    return torch.fx.GraphModule(attrs, _graph("", nodes))


def check_code(split_module):
    """The names ("" for the top level, "submod_0", ...) of the graphs of
    `split_module` whose code text differs from CODE; [] when all agree."""
    modules = dict(split_module.named_modules())
    return [name for name, text in CODE.items()
            if name not in modules or modules[name].code != text]
