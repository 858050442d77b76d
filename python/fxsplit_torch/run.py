"""fxsplit_torch.split: a GraphModule split by a partitioner plugin, in this
process, through libfxsplit's plugin host (fxsplit/pipeline.h): the graph
goes in as text in memory, the result comes back the same way, and the
extra outputs (dot, report, python, ...) are written by their plugins."""
import json
import os
import shutil

from . import native
from .export import engine_graph
from .split_module import INDEX_KEY, paused_collector, rebuild


class SplitError(native.EngineError):
    """The split failed: the engine's or the plugin's one-line message;
    .code names the FxsErrorCode ("plugin_not_found", "option", "cycle")."""


def find_fxsplit():
    """The fxsplit binary: $FXSPLIT, then PATH, then the source tree's build/."""
    explicit = os.environ.get("FXSPLIT")
    if explicit:
        return explicit
    on_path = shutil.which("fxsplit")
    if on_path:
        return on_path
    here = os.path.dirname(os.path.abspath(__file__))
    candidate = os.path.join(here, "..", "..", "build", "cli", "fxsplit")
    if os.access(candidate, os.X_OK):
        return os.path.normpath(candidate)
    raise FileNotFoundError("no fxsplit binary: set FXSPLIT, put it on PATH, or build the tree")


# split_options as the command line spells them -> [split] keys.
_FLAGS = {"--keep-original-order": ("keep_original_order", "true"),
          "--keep-original-node-name": ("keep_original_node_name", "true"),
          "--no-keep-original-input-name": ("keep_original_input_name", "false"),
          "--tuple-return": ("tuple_return", "true")}
_VALUED = {"--partition-affix": "partition_affix", "--threads": "threads"}


def _split_settings(split_options):
    """[split] (key, value, origin) from command-line style flags."""
    settings = []
    items = list(split_options)
    while items:
        flag = items.pop(0)
        name, eq, value = flag.partition("=")
        if flag in _FLAGS:
            settings.append((*_FLAGS[flag], flag))
        elif name in _VALUED:
            if not eq:
                if not items:
                    raise ValueError(f"split option {flag}: needs a value")
                value = items.pop(0)
            settings.append((_VALUED[name], value, name))
        else:
            raise ValueError(f"split option {flag!r}: expected one of "
                             + ", ".join(sorted(list(_FLAGS) + list(_VALUED))))
    return settings


def _output_groups(outputs):
    """("output NAME", plugin, path or None) per "NAME[:PATH]", numbered as
    the command line numbers a second use of a plugin."""
    groups = []
    for out in outputs:
        plugin, colon, path = out.partition(":")
        if not plugin:
            raise ValueError(f"output {out!r}: expected NAME[:PATH]")
        group, n = f"output {plugin}", 2
        while any(g == group for g, _, _ in groups):
            group, n = f"output {plugin}-{n}", n + 1
        groups.append((group, plugin, path if colon else None))
    return groups


def _plugin_dirs(lib, plugin_dirs):
    """The registry's search path: @plugin_dirs, $FXSPLIT_PLUGIN_PATH, the
    build tree's plugins when the library is the build tree's, else the
    installed directory."""
    registry = lib.fxs_plugin_registry_new()
    for d in plugin_dirs:
        lib.fxs_plugin_registry_add_dir(registry, native.PLUGIN_DIR_COMMAND_LINE, os.fsencode(d))
    build_plugins = os.path.join(os.path.dirname(os.path.dirname(lib.path)), "plugins")
    if os.path.basename(os.path.dirname(lib.path)) == "core" and os.path.isdir(build_plugins) \
            and os.environ.get("FXSPLIT_NO_DEFAULT_PLUGIN_DIR") != "1":
        env = os.environ.get("FXSPLIT_PLUGIN_PATH")
        for d in (env.split(os.pathsep) if env else ()):
            if d:
                lib.fxs_plugin_registry_add_dir(registry, native.PLUGIN_DIR_ENVIRONMENT,
                                                os.fsencode(d))
        lib.fxs_plugin_registry_add_dir(registry, native.PLUGIN_DIR_BUILD_TREE,
                                        os.fsencode(build_plugins))
    else:
        lib.fxs_plugin_registry_add_default_dirs(registry)
    return registry


def _set(lib, pipeline, group, key, value, origin=None):
    lib.fxs_pipeline_set(pipeline, group.encode(), key.encode(), str(value).encode(),
                         origin.encode() if origin else None)


def _bool_text(value):
    return ("true" if value else "false") if isinstance(value, bool) else value


def _chain(partitioner, options):
    """(group, plugin, options) per level: @partitioner is a plugin name with
    @options, or a list of (name, options) pairs, a chain (docs/cli.md)."""
    levels = [(partitioner, options)] if isinstance(partitioner, (str, os.PathLike)) \
        else list(partitioner)
    if options is not None and len(levels) > 1:
        raise ValueError("options: give each level of a chain its own, as (name, options)")
    groups = []
    for plugin, opts in levels:
        base = os.path.basename(os.fspath(plugin)).removesuffix(".so")
        group, n = ("partitioner", 2) if not groups else (f"partitioner {base}", 2)
        while any(g == group for g, _, _ in groups):
            group, n = f"partitioner {base}-{n}", n + 1
        groups.append((group, os.fspath(plugin), opts or {}))
    return groups


def split(gm, partitioner, options=None, outputs=(), example_inputs=None,
          split_options=(), root_module=None, workdir=None, allow_modules=(),
          plugin_dirs=(), library=None):
    """Splits @gm with the partitioner plugin @partitioner (a built-in's name,
    "map", or a path to a plugin .so) and its @options (dict), in this
    process (a list of (name, options) pairs is a chain: each refines the
    partitions of the one before); writes the extra @outputs ("dot:/tmp/g.dot", "report:r.md")
    through their plugins; returns the split torch.fx.GraphModule.
    @split_options: command-line flags ("--keep-original-order",
    "--partition-affix=x", "--tuple-return", ...).  @example_inputs: run
    ShapeProp first (shapes for cost-based partitioners).  @plugin_dirs are
    searched before the default plugin directories.  @library: a path to
    libfxsplit (native.load_library).  The rebuilt graphs take their
    targets and meta from @gm's own nodes, so @allow_modules, @workdir and
    @root_module (the result is bound to @gm's attributes, as
    split_module's) are accepted for compatibility only.

    Raises SplitError with the host's one-line message (unknown plugin or
    option, a plugin's failure, a cycle, an output that cannot be written:
    then no output file appears).  Each submodule's `fxsplit_label` is its
    partition's label, or None."""
    del workdir, allow_modules, root_module
    lib = native.load_library(library)
    if example_inputs is not None:
        from torch.fx.passes.shape_prop import ShapeProp
        ShapeProp(gm).propagate(*example_inputs)
    levels = _chain(partitioner, options)
    settings = _split_settings(split_options)
    groups = _output_groups(outputs)
    with paused_collector():
        exported = engine_graph(gm, INDEX_KEY, full=True)
        registry = _plugin_dirs(lib, plugin_dirs)
        pipeline = lib.fxs_pipeline_new(registry)
        lib.fxs_plugin_registry_unref(registry)
        try:
            for group, plugin, opts in levels:
                _set(lib, pipeline, group, "plugin", plugin, "partitioner")
                for key, value in opts.items():
                    _set(lib, pipeline, group, key, _bool_text(value), f"options[{key!r}]")
            for key, value, origin in settings:
                _set(lib, pipeline, "split", key, value, origin)
            for group, plugin, path in groups:
                _set(lib, pipeline, group, "plugin", plugin, f"outputs {plugin}")
                if path is not None:
                    _set(lib, pipeline, group, "path", path, f"outputs {plugin}:{path}")
            try:
                with native.Graph(lib, exported.text) as graph:
                    lib.fxs_pipeline_set_graph(pipeline, graph.ptr)
                lib.call(lib.fxs_pipeline_prepare, pipeline)
                lib.call(lib.fxs_pipeline_split, pipeline)
                lib.call(lib.fxs_pipeline_write, pipeline)
            except native.EngineError as e:
                raise SplitError(str(e), e.code) from None
            text = lib.text(lib.fxs_split_result_to_json, lib.fxs_pipeline_result(pipeline))
        finally:
            lib.fxs_pipeline_free(pipeline)
        doc = json.loads(text)
        result = rebuild(doc, exported)
        for p in doc["partitions"]:
            getattr(result, p["submodule"]).fxsplit_label = p.get("label")
        return result
