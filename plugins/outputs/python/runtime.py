# ---- fxsplit runtime: rebuilds the graphs below (the same in every file) ----
#
# Each graph is rebuilt node by node as a torch.fx.Graph, and torch.fx
# compiles the forward of every GraphModule from its graph, as it does for
# split_module's result: the module's code, graph and behaviour always
# agree, whatever torch version imports this file.  CODE keeps the forward
# code text torch.fx 1.13 prints for each graph; check_code() compares it.
#
# The graphs are JSON (the values in the fxsplit graph file encoding, one
# node per line) in raw string literals: Python compiles a literal per node
# slowly and with much memory, while json.loads reads them quickly.
import builtins as _builtins
import importlib as _importlib
import json as _json
import re as _re
import typing

import torch
import torch.fx
from math import inf, nan
from torch import device

__all__ = ["build", "check_code", "CODE", "QUALNAME_MAP"]


def _opaque(type_name, text, where):
    """An opaque constant (a torch.dtype, device, ...) from its repr."""
    try:
        return eval(text, {"__builtins__": {}, "torch": torch, "device": device,
                           "inf": inf, "nan": nan})
    except Exception as e:
        raise ValueError(f"fxsplit: {where}: cannot rebuild the {type_name} constant {text!r}: {e}") from None


def _value(v, env, where):
    """An argument from the graph file format's JSON encoding; node
    references become the nodes of `env`."""
    if isinstance(v, list):
        return [_value(x, env, where) for x in v]
    if not isinstance(v, dict):
        return v
    if "node" in v:
        return env[v["node"]]
    if "tuple" in v:
        return tuple(_value(x, env, where) for x in v["tuple"])
    if "dict" in v:
        return {_value(k, env, where): _value(x, env, where) for k, x in v["dict"]}
    if "slice" in v:
        return slice(*(_value(x, env, where) for x in v["slice"]))
    if "ellipsis" in v:
        return Ellipsis
    if "float" in v:
        return float(v["float"])
    return _opaque(v["opaque"], v["repr"], where)


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
    """A torch.fx.Graph from [op, name, target, args, kwargs, type, wrapped]
    entries, in order."""
    graph = torch.fx.Graph()
    env = {}
    for op, name, target, args, kwargs, type_text, wrapped in nodes:
        where = f"{label or 'the top-level graph'}, node {name!r}"
        if op == "call_function":
            target = _function(target, where)
        node = graph.create_node(op, target,
                                 tuple(_value(a, env, where) for a in args),
                                 {k: _value(v, env, where) for k, v in kwargs.items()},
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
    for name, data in _SUBMODULES.items():
        attrs = {target: _attr(original_module, QUALNAME_MAP.get(f"{name}.{target}", target),
                               f"{name}.{target}")
                 for target in data["targets"]}
        children[name] = torch.fx.GraphModule(attrs, _graph(name, data["nodes"]))
    attrs = {target: children[target] if target in children
             else _attr(original_module, target, target)
             for target in _TOP["targets"]}
    return torch.fx.GraphModule(attrs, _graph("", _TOP["nodes"]))


def check_code(split_module):
    """The names ("" for the top level, "submod_0", ...) of the graphs of
    `split_module` whose code text differs from CODE; [] when all agree."""
    modules = dict(split_module.named_modules())
    return [name for name, text in CODE.items()
            if name not in modules or modules[name].code != text]
