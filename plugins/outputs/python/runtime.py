# ---- fxsplit runtime: rebuilds the graphs below (the same in every file) ----
#
# The decoder above is python/fxsplit_torch/decode.py, embedded at build
# time: the file decodes its graphs with the rules fxsplit_torch.load_split
# follows (no evaluation, call_function targets from an allow-list).
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
import json as _json

__all__ = ["build", "check_code", "CODE", "QUALNAME_MAP", "LABELS", "LoadError",
           "UnsafeGraphError"]


def _entries(nodes):
    """[op, name, target, args, kwargs, type, wrapped] as decode_graph's entries."""
    for op, name, target, args, kwargs, type_text, wrapped in nodes:
        yield op, name, target, args, kwargs, type_text, {"is_wrapped": True} if wrapped else None


def _bound(original_module, targets, label, qualname, policy):
    """The attributes of @original_module the graph's @targets (already
    checked by decode_graph) are bound to, through @qualname."""
    where = label or "the top-level graph"
    for target in targets:
        policy.attribute_path(qualname(target), f"{where}: QUALNAME_MAP[{target!r}]")
    return {target: lookup_attribute(original_module, qualname(target), f"{where}: {target}")
            for target in targets}


def build(original_module, allow_modules=(), trust_targets=False):
    """The split module: a torch.fx.GraphModule calling one GraphModule
    child per partition, bound to `original_module`'s parameters, buffers
    and submodules (shared, not copied) through QUALNAME_MAP.  Each child's
    `fxsplit_label` is its partition's label (LABELS), or None.

    call_function targets may come from torch, operator, math and plain
    builtins only (UnsafeGraphError otherwise): `allow_modules` (module
    names, with their submodules) adds modules, which are imported if need
    be; `trust_targets=True` resolves any target, importing its module, as
    for a file you wrote yourself."""
    policy = Policy(allow_modules, trust_targets)
    children = {}
    for name, data in _SUBMODULES.items():
        graph = decode_graph(_entries(data["nodes"]), policy, name)
        attrs = _bound(original_module, data["targets"], name,
                       lambda target: QUALNAME_MAP.get(f"{name}.{target}", target), policy)
        children[name] = torch.fx.GraphModule(attrs, graph)
        children[name].fxsplit_label = LABELS.get(name)
    graph = decode_graph(_entries(_TOP["nodes"]), policy, "")
    attrs = _bound(original_module, [t for t in _TOP["targets"] if t not in children], "",
                   lambda target: target, policy)
    attrs.update((t, children[t]) for t in _TOP["targets"] if t in children)
    return torch.fx.GraphModule(attrs, graph)


def check_code(split_module):
    """The names ("" for the top level, "submod_0", ...) of the graphs of
    `split_module` whose code text differs from CODE; [] when all agree."""
    modules = dict(split_module.named_modules())
    return [name for name, text in CODE.items()
            if name not in modules or modules[name].code != text]
