"""fxsplit_torch: the bridge between torch.fx and fxsplit (docs/python.md).

- split_module(m, root_m, split_callback, qualname_map=None, ...): torch.fx
  .passes.split_module.split_module's signature and result, split by
  libfxsplit in this process.
- split(gm, partitioner, options=None, outputs=(), ...): a split by a
  partitioner plugin, with extra outputs written by their plugins, in
  this process.
- export(gm, example_inputs=None, path=None): a GraphModule as an fxsplit
  graph file (docs/graph-format.md).
- load_split(result_path, original_module): the split GraphModule from
  fxsplit's json output, bound to the original module's parameters;
  allow_modules=[...] / trust_targets=True widen what its call_function
  targets may name (UnsafeGraphError otherwise).
- load_library(path=None): choose the libfxsplit to use.
- fxsplit_torch.distributed (imported on its own): Pipeline runs a split
  on the processes of a torch.distributed group; `torchrun -m
  fxsplit_torch.run_pipeline` launches one.
"""
from .export import ExportError, export, graph_to_dict
from .load import LoadError, UnsafeGraphError, build_graph, load_split, resolve_function
from .native import EngineError, LibraryNotFoundError, load_library
from .run import SplitError, find_fxsplit, split
from .split_module import split_module

__all__ = ["EngineError", "ExportError", "LibraryNotFoundError", "LoadError", "SplitError",
           "UnsafeGraphError", "build_graph", "export", "find_fxsplit", "graph_to_dict",
           "load_library", "load_split", "resolve_function", "split", "split_module"]
