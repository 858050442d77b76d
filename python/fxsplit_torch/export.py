"""Export a torch.fx GraphModule as an fxsplit graph file (format version 1).

Everything symbolic_trace produces is represented; anything else is an
ExportError naming the node, never a silent drop.
"""
import enum
import json
import math

import torch
import torch.fx
from torch.fx.node import Node, _get_qualified_name, _type_repr

FORMAT = "fxsplit-graph"
VERSION = 1


# While an EngineGraph is made: the SymInt constants of its arguments by
# their text, so that the rebuilt graphs get the objects back.
_symints = None


class ExportError(ValueError):
    """A graph holds something the fxsplit graph format cannot represent."""


def _float(v):
    if math.isnan(v):
        return {"float": "nan"}
    if math.isinf(v):
        return {"float": "inf" if v > 0 else "-inf"}
    return v


def _qualified_type(t):
    if t.__module__ == "builtins":
        return t.__qualname__
    return f"{t.__module__}.{t.__qualname__}"


# Constants torch.fx prints with repr() and that fxsplit keeps opaque.
_OPAQUE_TYPES = (torch.dtype, torch.device, torch.memory_format, torch.layout)


def _value(v, where):
    """One argument value in the format's JSON encoding."""
    if isinstance(v, Node):
        return {"node": v.name}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int) and not isinstance(v, enum.Enum):
        if not -(2**63) <= v < 2**63:
            raise ExportError(f"{where}: integer {v} does not fit in 64 bits")
        return v
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, tuple):
        if hasattr(v, "_fields"):
            raise ExportError(f"{where}: named tuple {type(v).__name__} is not supported")
        return {"tuple": [_value(x, f"{where}[{i}]") for i, x in enumerate(v)]}
    if isinstance(v, list):
        return [_value(x, f"{where}[{i}]") for i, x in enumerate(v)]
    if isinstance(v, dict):
        return {"dict": [[_value(k, f"{where}.key"), _value(x, f"{where}[{k!r}]")]
                         for k, x in v.items()]}
    if isinstance(v, slice):
        return {"slice": [_value(v.start, where), _value(v.stop, where), _value(v.step, where)]}
    if v is Ellipsis:
        return {"ellipsis": True}
    if isinstance(v, _OPAQUE_TYPES):
        return {"opaque": _qualified_type(type(v)), "repr": repr(v)}
    expr = _sym_expr(v)
    if expr is not None:  # a SymInt / SymFloat constant: its expression
        if _symints is not None:
            _symints.setdefault(str(expr), v)
        return {"opaque": "torch.SymInt", "repr": str(expr)}
    raise ExportError(f"{where}: cannot represent a value of type {_qualified_type(type(v))}: {v!r}")


class _Unrepresentable(Exception):
    """Raised by the fast encoder; the slow one then words the message."""


_SCALARS = (str, bool, type(None))


def _encode(v, Node=Node, tuple=tuple, list=list, isinstance=isinstance, type=type):
    """_value without a place to name: the fast path of the export."""
    t = type(v)
    if t is Node:
        return {"node": v.name}
    if t is int:
        if -(2**63) <= v < 2**63:
            return v
        raise _Unrepresentable
    if t in _SCALARS:
        return v
    if t is float:
        return v if math.isfinite(v) else _float(v)
    if t is tuple:
        return {"tuple": [_encode(x) for x in v]}
    if isinstance(v, list):  # torch.fx's immutable_list too
        return [_encode(x) for x in v]
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        return {"tuple": [_encode(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[_encode(k), _encode(x)] for k, x in v.items()]}
    if isinstance(v, Node):
        return {"node": v.name}
    try:
        return _value(v, "")
    except ExportError:
        raise _Unrepresentable from None


def _arguments(node, entry):
    """Adds @node's args and kwargs to @entry; the error names the node and
    the argument."""
    try:
        if node.args:
            entry["args"] = [_encode(a) for a in node.args]
        if node.kwargs:
            entry["kwargs"] = {k: _encode(v) for k, v in node.kwargs.items()}
    except (_Unrepresentable, RecursionError):
        where = f"node '{node.name}'"
        for i, a in enumerate(node.args):
            _value(a, f"{where} args[{i}]")
        for k, v in node.kwargs.items():
            _value(v, f"{where} kwargs[{k!r}]")
        raise ExportError(f"{where}: an argument cannot be represented")


# target object -> qualified name, across exports (torch.fx's naming walks
# modules); dropped whole when it grows beyond _NAME_CACHE_SIZE entries.
_qualified_names = {}
_NAME_CACHE_SIZE = 4096


class _Targets:
    """call_function targets as torch.fx names them, computed once each, and
    the objects behind each name (None when two objects share one)."""

    def __init__(self):
        self.functions = {}   # qualified name -> target object, or None

    def name(self, node):
        target = node.target
        try:
            name = _qualified_names[target]
        except KeyError:
            name = _get_qualified_name(target)
            if len(_qualified_names) >= _NAME_CACHE_SIZE:
                _qualified_names.clear()
            _qualified_names[target] = name
        except TypeError:  # not hashable
            name = _get_qualified_name(target)
        known = self.functions.get(name, target)
        self.functions[name] = target if known is target else None
        return name


def _target(node, targets):
    if node.op == "call_function":
        return targets.name(node)
    if not isinstance(node.target, str):
        raise ExportError(f"node '{node.name}': {node.op} target is not a string: {node.target!r}")
    return node.target


def _tensor_meta(tm):
    return {"shape": [_size(s) for s in tm.shape], "dtype": str(tm.dtype)}


def _size(s):
    """A size: an int, or a symbolic size as its expression's text."""
    if isinstance(s, int):
        return s
    expr = _sym_expr(s)
    return str(expr) if expr is not None else None


def _sym_expr(v):
    """The sympy expression of a SymInt / SymFloat (torch 1.13's SymIntNode
    and PySymInt, later torch.SymInt), or None for anything else."""
    for attr in ("node", "get_pyobj"):
        inner = getattr(v, attr, None)
        if inner is None:
            continue
        inner = inner() if callable(inner) else inner
        expr = getattr(inner, "expr", None)
        if expr is not None:
            return expr
    return getattr(v, "expr", None) if hasattr(v, "expr") and "Sym" in type(v).__name__ else None


def _tensors(value):
    """Tensor metadata for a tensor (FakeTensor) or a tuple of tensors."""
    if isinstance(value, torch.Tensor):
        return {"tensor": _tensor_meta(value)}
    if isinstance(value, (tuple, list)) and value and all(isinstance(t, torch.Tensor) for t in value):
        return {"tensors": [_tensor_meta(t) for t in value]}
    return {}


def _symbols(value):
    """free_symbols / symbol of a node's example_value (what current
    PyTorch's split_module reads for symbolic sizes)."""
    meta = {}
    expr = _sym_expr(value)
    if expr is not None:
        if getattr(expr, "is_Symbol", False):
            meta["symbol"] = str(expr)
        symbols = getattr(expr, "free_symbols", ())
    elif isinstance(value, torch.Tensor):
        symbols = set()
        for s in tuple(value.shape):
            e = _sym_expr(s)
            if e is not None:
                symbols |= e.free_symbols
    else:
        symbols = ()
    if symbols:
        meta["free_symbols"] = sorted(str(s) for s in symbols)
    return meta


# Meta entries with a representation of their own (the rest is free-form).
_STRUCTURED = ("tensor_meta", "val", "example_value", "nn_module_stack", "type")


def _meta(node):
    """The node's meta in the format: tensor metadata from tensor_meta
    (ShapeProp) or val / example_value (FakeTensors), symbols from
    example_value, nn_module_stack as text, and every other entry whose
    value the format can hold, as it is (docs/python.md)."""
    meta = {}
    nm = node.meta
    if not nm:
        return meta
    tm = nm.get("tensor_meta")
    if tm is not None:
        if hasattr(tm, "shape") and hasattr(tm, "dtype"):
            meta["tensor"] = _tensor_meta(tm)
        elif isinstance(tm, (tuple, list)) and all(hasattr(t, "shape") for t in tm):
            meta["tensors"] = [_tensor_meta(t) for t in tm]
    else:
        for key in ("val", "example_value"):
            if key in nm:
                meta.update(_tensors(nm[key]))
                break
    if "example_value" in nm:
        meta.update(_symbols(nm["example_value"]))
    for key, value in nm.items():
        if key in _STRUCTURED:
            continue
        try:
            meta[key] = _encode(value)
        except (_Unrepresentable, RecursionError):
            pass  # not a value of the format: left out (docs/python.md)
    stack = nm.get("nn_module_stack")
    if isinstance(stack, dict):
        meta["nn_module_stack"] = {"dict": [[str(k), _module_stack_entry(v)]
                                            for k, v in stack.items()]}
    return meta


def _module_stack_entry(v):
    if isinstance(v, tuple):
        return {"tuple": [_module_stack_entry(x) for x in v]}
    if isinstance(v, type):
        return _qualified_type(v)
    return str(v)


def _attribute(value, parent=None, atom=None):
    if isinstance(value, torch.nn.Module):
        return {"kind": "module", "class": _qualified_type(type(value))}
    if isinstance(value, torch.Tensor):
        if isinstance(value, torch.nn.Parameter):
            kind = "parameter"
        elif isinstance(parent, torch.nn.Module) and atom in parent._buffers:
            kind = "buffer"
        else:
            kind = "constant"
        return {"kind": kind, "shape": list(value.shape), "dtype": str(value.dtype)}
    return {"kind": "object"}


_MISSING = object()


def _member(obj, atom):
    """getattr(@obj, @atom), a module's own tables first (nn.Module's
    __getattr__ is slow); KeyError when there is none."""
    if isinstance(obj, torch.nn.Module):
        d = obj.__dict__
        for table in ("_modules", "_parameters", "_buffers"):
            value = d[table].get(atom, _MISSING) if table in d else _MISSING
            if value is not _MISSING and atom not in d:
                return value
    value = getattr(obj, atom, _MISSING)
    if value is _MISSING:
        raise KeyError(atom)
    return value


class Attributes:
    """The module's attributes by qualified name, each looked up once (its
    prefixes too), and their entries of the attribute table."""

    def __init__(self, gm, lean=False):
        self.objects = {"": gm}
        self.table = {}
        self.lean = lean

    def lookup(self, qualname):
        """The object, or KeyError."""
        obj = self.objects.get(qualname)
        if obj is None and qualname not in self.objects:
            parent_name, _, atom = qualname.rpartition(".")
            parent = self.lookup(parent_name)
            obj = _member(parent, atom)
            self.objects[qualname] = obj
        return obj

    def add(self, node, target):
        if target in self.table:
            return
        try:
            obj = self.lookup(target)
        except KeyError:
            raise ExportError(f"node '{node.name}': target {target} not found in the module") from None
        if node.op == "call_module" and isinstance(obj, torch.nn.Module):
            # the kind is all the split needs; the class costs a name per module
            self.table[target] = {"kind": "module"} if self.lean else _attribute(obj)
            return
        parent_name, _, atom = target.rpartition(".")
        self.table[target] = _attribute(obj, self.objects.get(parent_name), atom)


def _full_table(gm, attrs):
    """Every module, parameter and buffer (partitioners weigh them), then
    the targets; one walk of the module tree."""
    table = {}
    for name, mod in gm.named_modules():
        if name:
            table[name] = _attribute(mod)
        prefix = name + "." if name else ""
        for pname, p in mod._parameters.items():
            if p is not None:
                table.setdefault(prefix + pname, _attribute(p))
        for bname, b in mod._buffers.items():
            if b is not None:
                table.setdefault(prefix + bname, {"kind": "buffer", "shape": list(b.shape),
                                                  "dtype": str(b.dtype)})
    for name, entry in attrs.table.items():
        table.setdefault(name, entry)
    return table


def _nodes(gm, node_meta, lean=False):
    """The node entries of @gm, its targets and its attribute look-ups
    (@lean: modules without their class)."""
    targets = _Targets()
    attrs = Attributes(gm, lean)
    types = {}
    type_texts = {}
    entries = []
    for node in gm.graph.nodes:
        op = node.op
        entry = {"name": node.name, "op": op, "target": _target(node, targets)}
        _arguments(node, entry)
        t = node.type
        if t is not None:
            try:
                text = type_texts[t]
            except (KeyError, TypeError):
                text = _type_repr(t)
                types.setdefault(text, t)
                try:
                    type_texts[t] = text
                except TypeError:
                    pass
            entry["type"] = text
        meta = node_meta(node, len(entries))
        if meta:
            entry["meta"] = meta
        if op == "get_attr" or op == "call_module":
            attrs.add(node, node.target)
        entries.append(entry)
    return entries, targets, attrs, types


def graph_to_dict(gm, example_inputs=None):
    """The graph file of @gm as a dict.  With @example_inputs, runs ShapeProp
    first so every node gets its tensor shapes and dtypes."""
    if example_inputs is not None:
        from torch.fx.passes.shape_prop import ShapeProp
        ShapeProp(gm).propagate(*example_inputs)
    nodes, _, attrs, _ = _nodes(gm, lambda node, i: _meta(node))
    return {"format": FORMAT, "version": VERSION,
            "attributes": _full_table(gm, attrs), "nodes": nodes}


def _dumps(doc):
    return json.dumps(doc, allow_nan=False, separators=(",", ":"))


class EngineGraph:
    """@gm exported for an in-process split: the graph file text (only the
    attributes the nodes name), the original nodes in order, and the
    objects behind the names the text uses."""

    def __init__(self, gm, index_key, full=False):
        """@full: every meta entry and the whole attribute table (what
        partitioner plugins read), as graph_to_dict writes them."""
        def node_meta(node, i):
            meta = _meta(node) if full else {}
            meta[index_key] = i
            value = node.meta.get("example_value") if node.meta and not full else None
            if value is not None:
                meta.update(_symbols(value))
            return meta
        global _symints
        _symints = self.symints = {}
        try:
            entries, targets, self._attrs, self.types = _nodes(gm, node_meta, lean=not full)
        finally:
            _symints = None
        self.nodes = list(gm.graph.nodes)
        self.functions = targets.functions
        table = _full_table(gm, self._attrs) if full else self._attrs.table
        self.text = _dumps({"format": FORMAT, "version": VERSION,
                            "attributes": table, "nodes": entries}).encode()

    def attribute(self, qualname):
        return self._attrs.lookup(qualname)


def engine_graph(gm, index_key, full=False):
    return EngineGraph(gm, index_key, full)


def export(gm, example_inputs=None, path=None):
    """Writes @gm as an fxsplit graph file at @path (or returns the text when
    @path is None)."""
    text = json.dumps(graph_to_dict(gm, example_inputs), allow_nan=False)
    if path is None:
        return text
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.write("\n")
    return path
