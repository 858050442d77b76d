"""fxsplit_torch: the bridge between torch.fx and fxsplit.

- export(gm, example_inputs=None, path=None): a GraphModule as an fxsplit
  graph file (docs/graph-format.md).
- load_split(result_path, original_module): the split GraphModule from
  fxsplit's json output, bound to the original module's parameters;
  allow_modules=[...] / trust_targets=True widen what its call_function
  targets may name (UnsafeGraphError otherwise; docs/python.md).
- split(gm, partitioner=..., options=..., outputs=...): run the fxsplit
  command on an exported graph and load the result.
"""
from .export import ExportError, export, graph_to_dict
from .load import LoadError, UnsafeGraphError, build_graph, load_split, resolve_function
from .run import SplitError, find_fxsplit, split

__all__ = ["ExportError", "LoadError", "build_graph", "export", "graph_to_dict",
           "load_split", "resolve_function", "UnsafeGraphError", "SplitError", "find_fxsplit", "split"]
