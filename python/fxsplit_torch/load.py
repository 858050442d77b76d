"""Build torch.fx GraphModules from fxsplit graph files and split results."""
import builtins
import importlib
import json
import typing

import torch
import torch.fx


class LoadError(ValueError):
    """A graph file that cannot be turned back into a torch.fx graph."""


def resolve_function(qualified_name):
    """The callable behind a call_function target as torch.fx names it
    (`_operator.add`, `torch.relu`, `torch._C._nn.linear`, `getattr`)."""
    if "." not in qualified_name:
        if hasattr(builtins, qualified_name):
            return getattr(builtins, qualified_name)
        raise LoadError(f"unknown builtin function {qualified_name}")
    atoms = qualified_name.split(".")
    # Import the longest importable module prefix, then walk attributes.
    for cut in range(len(atoms) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(atoms[:cut]))
        except ImportError:
            continue
        try:
            for atom in atoms[cut:]:
                obj = getattr(obj, atom)
            return obj
        except AttributeError:
            continue
    raise LoadError(f"cannot resolve function {qualified_name}")


_OPAQUE_EVAL_GLOBALS = {"torch": torch, "device": torch.device}


def _decode(value, env, where):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_decode(v, env, where) for v in value]
    if not isinstance(value, dict) or len(value) not in (1, 2):
        raise LoadError(f"{where}: bad value {value!r}")
    if "node" in value:
        name = value["node"]
        if name not in env:
            raise LoadError(f"{where}: reference to unknown node '{name}'")
        return env[name]
    if "tuple" in value:
        return tuple(_decode(v, env, where) for v in value["tuple"])
    if "dict" in value:
        return {_decode(k, env, where): _decode(v, env, where) for k, v in value["dict"]}
    if "slice" in value:
        return slice(*(_decode(v, env, where) for v in value["slice"]))
    if "ellipsis" in value:
        return Ellipsis
    if "float" in value:
        return float(value["float"])
    if "opaque" in value:
        try:
            return eval(value["repr"], dict(_OPAQUE_EVAL_GLOBALS))  # noqa: S307 (our own file)
        except Exception as e:
            raise LoadError(f"{where}: cannot rebuild {value['opaque']} {value['repr']}: {e}") from e
    raise LoadError(f"{where}: bad value {value!r}")


def _type(text):
    if text is None:
        return None
    try:
        return eval(text, {"torch": torch, "typing": typing, "NoneType": type(None)})  # noqa: S307
    except Exception:
        return None


# Meta members of the graph format with a structure of their own; every
# other member is a free-form entry that goes back into node.meta as is.
_STRUCTURED_META = ("tensor", "tensors", "free_symbols", "symbol")


def build_graph(nodes):
    """A torch.fx.Graph from the `nodes` list of a graph file; node names are
    kept (they are already valid, unique torch.fx names)."""
    graph = torch.fx.Graph()
    env = {}
    for entry in nodes:
        name, op, target = entry["name"], entry["op"], entry["target"]
        where = f"node '{name}'"
        args = tuple(_decode(a, env, where) for a in entry.get("args", []))
        kwargs = {k: _decode(v, env, where) for k, v in entry.get("kwargs", {}).items()}
        if op == "call_function":
            target = resolve_function(target)
        if op == "output":
            node = graph.output(args[0], type_expr=_type(entry.get("type")))
        else:
            node = graph.create_node(op, target, args, kwargs, name=name,
                                     type_expr=_type(entry.get("type")))
        for key, value in entry.get("meta", {}).items():
            if key not in _STRUCTURED_META:
                node.meta[key] = value
        if node.name != name:
            raise LoadError(f"{where}: torch.fx renamed it to '{node.name}'")
        env[name] = node
    return graph


def _lookup(module, qualname):
    obj = module
    for atom in qualname.split("."):
        if not hasattr(obj, atom):
            raise LoadError(f"the original module has no attribute {qualname}")
        obj = getattr(obj, atom)
    return obj


def _targets(nodes):
    return [e["target"] for e in nodes if e["op"] in ("get_attr", "call_module")]


def load_split(result_path, original_module):
    """The split GraphModule described by fxsplit's json output at
    @result_path, with every parameter, buffer and submodule bound from
    @original_module through the qualname map."""
    with open(result_path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("format") != "fxsplit-graph" or "submodules" not in doc:
        raise LoadError(f"{result_path}: not an fxsplit split result")
    qualname_map = doc.get("qualname_map", {})
    submodules = {}
    for sub in doc["submodules"]:
        root = {}
        for target in _targets(sub["nodes"]):
            original = qualname_map.get(f"{sub['name']}.{target}", target)
            root[target] = _lookup(original_module, original)
        submodules[sub["name"]] = torch.fx.GraphModule(root, build_graph(sub["nodes"]))
    root = {}
    for target in _targets(doc["nodes"]):
        root[target] = submodules[target] if target in submodules else _lookup(original_module, target)
    gm = torch.fx.GraphModule(root, build_graph(doc["nodes"]))
    # Keep submodules in the order the top-level graph calls them.
    return gm


