"""libfxsplit in this process, through ctypes (the package stays pure Python).

The library is found, in this order: the path given to load_library(),
$FXSPLIT_LIBRARY, the path `meson install` recorded in _installed.py, the
source tree's build/core/, the system's library path.  Every engine error
becomes an EngineError carrying the engine's one-line message.

Ownership: graphs, results and options made here are freed by the objects
that wrap them (their close() or the `with` block); GStrings and GErrors
are freed as soon as their text is copied out.
"""
import array
import ctypes
import ctypes.util
import os

__all__ = ["EngineError", "LibraryNotFoundError", "load_library", "library"]

_ERROR_CODES = ("io", "parse", "format", "version", "graph", "cycle", "callback",
                "global_state", "plugin_not_found", "plugin_abi", "plugin_invalid",
                "plugin_failed", "config", "option", "verify")


class EngineError(RuntimeError):
    """libfxsplit failed: the engine's message; .code names the FxsErrorCode
    ("cycle", "graph", "plugin_not_found", ...)."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


class LibraryNotFoundError(OSError):
    """No libfxsplit could be loaded; the message lists what was tried."""


class _GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int), ("message", ctypes.c_char_p)]


class _GString(ctypes.Structure):
    _fields_ = [("str", ctypes.c_void_p), ("len", ctypes.c_size_t),
                ("allocated_len", ctypes.c_size_t)]


_P = ctypes.c_void_p
_ERR = ctypes.POINTER(ctypes.POINTER(_GError))
# name: (restype, argtypes)
_SIGNATURES = {
    "fxs_graph_load_data": (_P, [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, _ERR]),
    "fxs_graph_unref": (None, [_P]),
    "fxs_graph_n_nodes": (ctypes.c_uint, [_P]),
    "fxs_split_options_new": (_P, []),
    "fxs_split_options_free": (None, [_P]),
    "fxs_split_options_set_keep_original_order": (None, [_P, ctypes.c_int]),
    "fxs_split_options_set_keep_original_node_name": (None, [_P, ctypes.c_int]),
    "fxs_split_options_set_keep_original_input_name": (None, [_P, ctypes.c_int]),
    "fxs_split_options_set_tuple_return": (None, [_P, ctypes.c_int]),
    "fxs_split_options_set_partition_affix": (None, [_P, ctypes.c_char_p]),
    "fxs_split_with_ids": (_P, [_P, ctypes.POINTER(ctypes.c_int64), _P, _ERR]),
    "fxs_split_result_free": (None, [_P]),
    "fxs_split_result_to_json": (None, [_P, _P]),
    "fxs_plugin_registry_new": (_P, []),
    "fxs_plugin_registry_unref": (None, [_P]),
    "fxs_plugin_registry_add_dir": (None, [_P, ctypes.c_int, ctypes.c_char_p]),
    "fxs_plugin_registry_add_default_dirs": (None, [_P]),
    "fxs_pipeline_new": (_P, [_P]),
    "fxs_pipeline_free": (None, [_P]),
    "fxs_pipeline_set": (None, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                ctypes.c_char_p]),
    "fxs_pipeline_set_graph": (None, [_P, _P]),
    "fxs_pipeline_prepare": (ctypes.c_int, [_P, _ERR]),
    "fxs_pipeline_split": (ctypes.c_int, [_P, _ERR]),
    "fxs_pipeline_write": (ctypes.c_int, [_P, _ERR]),
    "fxs_pipeline_result": (_P, [_P]),
    "fxs_pipeline_n_outputs": (ctypes.c_uint, [_P]),
    "fxs_pipeline_output_n_files": (ctypes.c_uint, [_P, ctypes.c_uint]),
    "fxs_pipeline_output_file": (ctypes.c_char_p, [_P, ctypes.c_uint, ctypes.c_uint]),
    "fxs_error_quark": (ctypes.c_uint32, []),
    "g_string_new": (ctypes.POINTER(_GString), [ctypes.c_char_p]),
    "g_string_free": (_P, [ctypes.POINTER(_GString), ctypes.c_int]),
    "g_error_free": (None, [ctypes.POINTER(_GError)]),
}
PLUGIN_DIR_COMMAND_LINE = 0
PLUGIN_DIR_ENVIRONMENT = 1
PLUGIN_DIR_BUILD_TREE = 4


class Library:
    """The bound functions of one loaded libfxsplit (attributes by C name)."""

    def __init__(self, path):
        self.path = path
        self._dll = ctypes.CDLL(path)
        for name, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(self._dll, name)
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)
        self.domain = self.fxs_error_quark()

    def call(self, fn, *args):
        """@fn(*args, &error); raises EngineError when it sets the error."""
        error = ctypes.POINTER(_GError)()
        value = fn(*args, ctypes.byref(error))
        if error:
            raise self.take_error(error)
        return value

    def take_error(self, error):
        message = error.contents.message.decode("utf-8", "replace")
        code = error.contents.code
        name = _ERROR_CODES[code] if error.contents.domain == self.domain \
            and 0 <= code < len(_ERROR_CODES) else "unknown"
        self.g_error_free(error)
        return EngineError(message, name)

    def text(self, writer, obj):
        """The bytes a `void writer (obj, GString *out)` function appends."""
        out = self.g_string_new(b"")
        try:
            writer(obj, out)
            return ctypes.string_at(out.contents.str, out.contents.len)
        finally:
            self.g_string_free(out, 1)


def _build_tree_library():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "build", "core", "libfxsplit.so"))


def _installed_library():
    try:
        from . import _installed
    except ImportError:
        return None
    return getattr(_installed, "LIBRARY", None)


_loaded = None


def load_library(path=None):
    """Loads libfxsplit (once per process; an explicit @path replaces an
    earlier choice) and returns it.  LibraryNotFoundError names every
    place tried."""
    global _loaded
    if _loaded is not None and path is None:
        return _loaded
    tried = []
    candidates = []
    if path is not None:
        candidates.append(("the path given", path))
    else:
        env = os.environ.get("FXSPLIT_LIBRARY")
        if env:
            candidates.append(("FXSPLIT_LIBRARY", env))
        installed = _installed_library()
        if installed:
            candidates.append(("the installed library", installed))
        candidates.append(("the build tree", _build_tree_library()))
        system = ctypes.util.find_library("fxsplit")
        candidates.append(("the system library path", system or "libfxsplit.so.0"))
    for origin, candidate in candidates:
        if origin != "the system library path" and not os.path.exists(candidate):
            tried.append(f"{candidate} ({origin}: no such file)")
            if origin in ("the path given", "FXSPLIT_LIBRARY"):
                break  # an explicit choice is not silently replaced
            continue
        try:
            _loaded = Library(candidate)
            return _loaded
        except (OSError, AttributeError) as e:
            tried.append(f"{candidate} ({origin}: {e})")
            if origin in ("the path given", "FXSPLIT_LIBRARY"):
                break
    raise LibraryNotFoundError("libfxsplit not found; tried " + "; ".join(tried)
                               + " (set FXSPLIT_LIBRARY to the library's path)")


def library():
    return load_library()


class Graph:
    """An FxsGraph loaded from graph-file text in memory."""

    def __init__(self, lib, data, display_name="<torch.fx graph>"):
        self.lib = lib
        self.ptr = lib.call(lib.fxs_graph_load_data, data, len(data), display_name.encode())

    def close(self):
        if self.ptr:
            self.lib.fxs_graph_unref(self.ptr)
            self.ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def split_options(lib, keep_original_order=False, keep_original_node_name=False,
                  keep_original_input_name=True, partition_affix=None, tuple_return=False):
    """A new FxsSplitOptions (free with lib.fxs_split_options_free)."""
    options = lib.fxs_split_options_new()
    lib.fxs_split_options_set_keep_original_order(options, bool(keep_original_order))
    lib.fxs_split_options_set_keep_original_node_name(options, bool(keep_original_node_name))
    lib.fxs_split_options_set_keep_original_input_name(options, bool(keep_original_input_name))
    lib.fxs_split_options_set_tuple_return(options, bool(tuple_return))
    if partition_affix is not None:
        lib.fxs_split_options_set_partition_affix(options, str(partition_affix).encode())
    return options


def split_with_ids(graph, ids, **options):
    """The json text of the split of @graph (a Graph) with the partition
    ids @ids (one int per node, non-call entries ignored)."""
    lib = graph.lib
    ids = array.array("q", ids)
    address = ctypes.cast(ids.buffer_info()[0], ctypes.POINTER(ctypes.c_int64))
    opts = split_options(lib, **options)
    try:
        result = lib.call(lib.fxs_split_with_ids, graph.ptr, address, opts)
    finally:
        lib.fxs_split_options_free(opts)
    try:
        return lib.text(lib.fxs_split_result_to_json, result)
    finally:
        lib.fxs_split_result_free(result)
