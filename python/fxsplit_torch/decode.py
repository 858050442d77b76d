# ---- fxsplit graph decoder: graph file nodes to torch.fx graphs ----
#
# The one decoder of the graph format in Python: fxsplit_torch.load uses
# this module, and the python output embeds this very text in every file
# it writes (plugins/outputs/python/meson.build), so both follow the same
# rules.  A graph file is untrusted data: nothing in it is evaluated or
# imported.  Opaque constants come from a table, type annotations from a
# small parser, and call_function targets only from an allow-list of
# modules walked attribute by attribute (Policy below; docs/python.md).
# Names torch.fx pastes into the code it compiles (placeholder targets,
# attribute and method names, keyword names) must be identifiers.
import builtins as _builtins
import importlib as _importlib
import keyword as _keyword
import math as _math  # noqa: F401  (in sys.modules for targets)
import operator as _operator  # noqa: F401
import re as _re
import sys as _sys
import types as _types
import typing as _typing
import warnings as _warnings

import torch
import torch.fx


class LoadError(ValueError):
    """A graph file that cannot be turned back into a torch.fx graph."""


class UnsafeGraphError(LoadError):
    """A graph file names a function, module, method or attribute outside
    what a graph file may use by default (see Policy)."""


def _short(value):
    """repr(@value) for a message, at most about 120 characters."""
    text = repr(value)
    return text if len(text) <= 120 else text[:100] + f"...' ({len(text)} characters)"


# ---- opaque constants -------------------------------------------------------

def _constants(kind):
    return {repr(v): v for v in vars(torch).values() if isinstance(v, kind)}


_OPAQUE = {"torch.dtype": _constants(torch.dtype),
           "torch.memory_format": _constants(torch.memory_format),
           "torch.layout": _constants(torch.layout)}
_DEVICE = _re.compile(r"device\(type='([a-z_]+)'(?:, index=([0-9]{1,4}))?\)"
                      r"|torch\.device\('([a-z_]+)'(?:, ([0-9]{1,4}))?\)")


def decode_opaque(type_name, text, where):
    """The torch.dtype, device, memory_format or layout whose repr is @text."""
    if type_name == "torch.device" and isinstance(text, str):
        m = _DEVICE.fullmatch(text)
        if m:
            kind, index = m.group(1) or m.group(3), m.group(2) or m.group(4)
            try:
                return torch.device(kind, int(index)) if index else torch.device(kind)
            except RuntimeError:
                pass
    elif type_name in _OPAQUE and text in _OPAQUE[type_name]:
        return _OPAQUE[type_name][text]
    raise LoadError(f"{where}: not a {_short(type_name)} constant fxsplit knows: {_short(text)}")


def decode_value(value, env, where):
    """An argument in the graph file format's JSON encoding; node references
    become the nodes of @env."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [decode_value(v, env, where) for v in value]
    if not isinstance(value, dict) or len(value) not in (1, 2):
        raise LoadError(f"{where}: bad value {_short(value)}")
    if len(value) == 1 and "node" in value:
        if value["node"] not in env:
            raise LoadError(f"{where}: reference to unknown node {_short(value['node'])}")
        return env[value["node"]]
    if len(value) == 1 and "tuple" in value:
        return tuple(decode_value(v, env, where) for v in value["tuple"])
    if len(value) == 1 and "dict" in value:
        return {decode_value(k, env, where): decode_value(v, env, where) for k, v in value["dict"]}
    if len(value) == 1 and "slice" in value and len(value["slice"]) == 3:
        return slice(*(decode_value(v, env, where) for v in value["slice"]))
    if len(value) == 1 and "ellipsis" in value:
        return Ellipsis
    if len(value) == 1 and value.get("float") in ("inf", "-inf", "nan"):
        return float(value["float"])
    if len(value) == 2 and "opaque" in value and "repr" in value:
        return decode_opaque(value["opaque"], value["repr"], where)
    raise LoadError(f"{where}: bad value {_short(value)}")


# ---- what a graph file may name ---------------------------------------------

# torch, operator and math functions are allowed, except those that read,
# write or run something other than tensor math (or call back a callable).
_DEFAULT_MODULES = ("torch", "_operator", "operator", "math")
_DENIED_MODULES = ("torch.hub", "torch.serialization", "torch.package", "torch.utils",
                   "torch.jit", "torch._jit_internal", "torch.multiprocessing",
                   "torch.distributed", "torch.onnx", "torch.fx", "torch.testing",
                   "torch.overrides", "torch.autograd", "torch._vmap_internals", "torch.func",
                   "torch._functorch", "torch.library", "torch._classes", "torch.classes",
                   "torch.storage", "torch.profiler", "torch._dynamo", "torch._inductor",
                   "torch.export", "torch._export", "torch._utils_internal", "torch._C")
_ALLOWED_TORCH_C = ("torch._C._nn", "torch._C._fft", "torch._C._linalg", "torch._C._special",
                    "torch._C._sparse", "torch._C._nested", "torch._C._VariableFunctions",
                    "torch._C._return_types")
_DENIED_ATOMS = frozenset(("load", "save", "from_file", "import_ir_module",
                           "import_ir_module_from_buffer", "load_library", "import_module",
                           "attrgetter", "methodcaller", "call"))
# The builtins torch.fx records as call_function targets, and plain
# value functions; never exec, open, __import__, setattr and the like.
_BUILTINS = {name: getattr(_builtins, name) for name in (
    "getattr", "len", "abs", "min", "max", "round", "divmod", "pow", "sum", "all", "any",
    "isinstance", "int", "float", "bool", "complex", "str", "tuple", "list", "dict",
    "range", "slice", "zip", "sorted", "reversed", "enumerate")}
# Methods a call_method may not call: they leave tensor math (numpy() then
# tofile(), hooks that call back, module.apply).
_DENIED_METHODS = frozenset(("numpy", "tofile", "dump", "dumps", "apply", "share_memory_",
                             "from_file", "register_hook", "register_forward_hook",
                             "register_forward_pre_hook", "register_backward_hook",
                             "register_full_backward_hook", "register_full_backward_pre_hook",
                             "register_load_state_dict_post_hook",
                             "_register_load_state_dict_pre_hook",
                             "_register_state_dict_hook"))
_TYPE_BUILTINS = {t.__name__: t for t in (int, float, bool, complex, str, bytes, list, tuple,
                                           dict, set, frozenset, slice, object, type(None))}
_TYPE_TOKEN = _re.compile(r"\s*(?:([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(\.\.\.)|(.))")


def _within(name, modules):
    return any(name == m or name.startswith(m + ".") for m in modules)


def _is_identifier(text):
    return isinstance(text, str) and text.isidentifier() and not _keyword.iskeyword(text)


def _is_dunder(atom):
    return atom.startswith("__")


class Policy:
    """What a graph file may name.  By default: call_function targets from
    torch (and its submodules but those in _DENIED_MODULES), operator, math
    and the builtins in _BUILTINS, found by walking the attributes of those
    already-imported modules; no dunder names; annotation classes from
    builtins, torch, typing and collections, never imported.  @allow_modules adds modules (and their
    submodules; they are imported if need be) for targets and annotations;
    @trust_targets=True resolves any target, importing its module, as
    torch.fx's own pickling does: only for files you trust."""

    def __init__(self, allow_modules=(), trust_targets=False):
        if isinstance(allow_modules, str):
            allow_modules = (allow_modules,)
        self.allow_modules = tuple(allow_modules)
        self.trust_targets = bool(trust_targets)
        self._functions = {}
        self._types = {}

    def _module_allowed(self, name):
        if _within(name, self.allow_modules):
            return True
        if not _within(name, _DEFAULT_MODULES):
            return False
        return not _within(name, _DENIED_MODULES) or _within(name, _ALLOWED_TORCH_C)

    def _refuse(self, where, what, name):
        raise UnsafeGraphError(
            f"{where}: {what} {_short(name)} is not allowed by default (torch, operator, math and "
            f"plain builtins only); pass allow_modules=[...] or trust_targets=True to load it "
            f"from a file you trust")

    def _module(self, name):
        """The module @name if it is allowed; imported only when the caller
        named it in allow_modules (or trusts the file)."""
        module = _sys.modules.get(name)
        if module is None and (self.trust_targets or _within(name, self.allow_modules)):
            try:
                module = _importlib.import_module(name)
            except ImportError:
                return None
        return module

    def _walk(self, module, atoms, where, what, qualname):
        obj = module
        for atom in atoms:
            if not self.trust_targets and _is_dunder(atom):
                self._refuse(where, what, qualname)
            obj = getattr(obj, atom, None)
            if obj is None:
                return None
            if isinstance(obj, _types.ModuleType) and not self.trust_targets \
                    and not self._module_allowed(obj.__name__):
                self._refuse(where, what, qualname)
        return obj

    def _explicit(self, name):
        return _within(name, self.allow_modules)

    def function(self, qualname, where):
        """The function torch.fx.node._get_qualified_name names @qualname."""
        fn = self._functions.get(qualname)
        if fn is not None:
            return fn
        name = qualname[len("builtins."):] if qualname.startswith("builtins.") else qualname
        atoms = name.split(".")
        if len(atoms) == 1:
            fn = _BUILTINS.get(name)
            if fn is None and (self.trust_targets or "builtins" in self.allow_modules):
                fn = getattr(_builtins, name, None)
            if fn is None and hasattr(_builtins, name):
                self._refuse(where, "call_function target", qualname)
        else:
            if not self.trust_targets and not self._explicit(name) \
                    and any(a in _DENIED_ATOMS for a in atoms):
                self._refuse(where, "call_function target", qualname)
            fn = self._resolve(atoms, where, "call_function target", qualname)
            module = getattr(fn, "__module__", None)
            if fn is not None and isinstance(module, str) and not self.trust_targets \
                    and not self._explicit(name) and not self._module_allowed(module):
                self._refuse(where, "call_function target", qualname)
        if fn is None or not callable(fn):
            raise LoadError(f"{where}: cannot find the function {_short(qualname)}")
        self._functions[qualname] = fn
        return fn

    def _resolve(self, atoms, where, what, qualname):
        """The object named by @atoms: the longest prefix that is an allowed
        module, then attributes."""
        for cut in range(len(atoms) - 1, 0, -1):
            modname = ".".join(atoms[:cut])
            if not self.trust_targets and not self._module_allowed(modname):
                continue
            module = self._module(modname)
            if module is not None:
                obj = self._walk(module, atoms[cut:], where, what, qualname)
                if obj is not None:
                    return obj
        if not self.trust_targets and not any(self._module_allowed(".".join(atoms[:cut]))
                                              for cut in range(1, len(atoms))):
            self._refuse(where, what, qualname)
        return None

    def annotation(self, text, where):
        """The annotation whose torch.fx.node._type_repr is @text, or None
        (with a warning naming @where) when it is not one this parser reads
        or names a class outside the allowed modules."""
        if text is None:
            return None
        if text not in self._types:
            try:
                tokens = [m.groups() for m in _TYPE_TOKEN.finditer(text) if m.group(0).strip()]
                t, rest = self._type(tokens, 0, where)
                if rest != len(tokens):
                    raise LoadError("trailing text")
            except (LoadError, TypeError, IndexError, RecursionError) as e:
                _warnings.warn(f"{where}: type annotation {_short(text)} dropped: {e}", stacklevel=2)
                t = None
            self._types[text] = t
        return self._types[text]

    def _type(self, tokens, i, where):
        name, dots, other = tokens[i]
        if other == "[":  # a Callable's argument list
            items, i = self._type_list(tokens, i + 1, where)
            return items, i
        if dots:
            return Ellipsis, i + 1
        if not name:
            raise LoadError(f"unexpected {_short(other)}")
        base = self._type_name(name)
        i += 1
        if i < len(tokens) and tokens[i][2] == "[":
            if not (getattr(base, "__module__", None) == "typing" or base in _TYPE_BUILTINS.values()):
                raise LoadError(f"{_short(name)} takes no parameters")
            items, i = self._type_list(tokens, i + 1, where)
            base = base[tuple(items) if len(items) != 1 else items[0]]
        return base, i

    def _type_list(self, tokens, i, where):
        items = []
        while tokens[i][2] != "]":
            item, i = self._type(tokens, i, where)
            items.append(item)
            if tokens[i][2] == ",":
                i += 1
            elif tokens[i][2] != "]":
                raise LoadError(f"unexpected {_short(tokens[i])}")
        return items, i + 1

    def _type_name(self, name):
        if name == "None":
            return None
        if name in _TYPE_BUILTINS:
            return _TYPE_BUILTINS[name]
        atoms = name.split(".")
        if atoms[0] == "typing" and len(atoms) == 2 and atoms[1] in _typing.__all__:
            return getattr(_typing, atoms[1])
        for cut in range(len(atoms) - 1, 0, -1):
            modname = ".".join(atoms[:cut])
            module = _sys.modules.get(modname)  # never imported
            # classes as annotations are never called: any torch module will do
            allowed = ("torch", "typing", "collections") + self.allow_modules
            if module is not None and (self.trust_targets or _within(modname, allowed)) \
                    and not any(_is_dunder(a) for a in atoms):
                obj = module
                for atom in atoms[cut:]:
                    obj = getattr(obj, atom, None)
                if isinstance(obj, type) and (self.trust_targets or _within(obj.__module__, allowed)):
                    return obj
        raise LoadError(f"{_short(name)} is not a class of an allowed, imported module")

    def attribute_path(self, qualname, where):
        """Checks a get_attr / call_module target: identifiers, no dunders."""
        # torch.fx prints an atom that is no identifier as getattr(x, "atom")
        atoms = qualname.split(".") if isinstance(qualname, str) else [""]
        if not all(a and not _UNQUOTABLE.search(a) for a in atoms):
            raise LoadError(f"{where}: target {_short(qualname)} is not a dotted name")
        if not self.trust_targets and any(_is_dunder(a) for a in atoms):
            self._refuse(where, "attribute", qualname)

    def method(self, name, where):
        if not _is_identifier(name):
            raise LoadError(f"{where}: call_method target {_short(name)} is not an identifier")
        if not self.trust_targets and (_is_dunder(name) or name in _DENIED_METHODS):
            self._refuse(where, "call_method target", name)


_UNQUOTABLE = _re.compile(r'["\\\x00-\x1f\x7f]')
_PLACEHOLDER = _re.compile(r"\*{0,2}([A-Za-z_][A-Za-z0-9_]*)")


def _check_names(op, target, args, kwargs, fn, policy, where):
    """torch.fx pastes these texts into the forward code it compiles."""
    for key in kwargs:
        if not _is_identifier(key):
            raise LoadError(f"{where}: keyword {_short(key)} is not an identifier")
    if op == "placeholder":
        m = _PLACEHOLDER.fullmatch(target) if isinstance(target, str) else None
        if not m or not _is_identifier(m.group(1)):
            raise LoadError(f"{where}: placeholder target {_short(target)} is not a parameter name")
    elif op in ("get_attr", "call_module"):
        policy.attribute_path(target, where)
    elif op == "call_method":
        policy.method(target, where)
    elif fn is _builtins.getattr and not policy.trust_targets:
        # a computed or dunder name would reach any object at forward()
        name = args[1] if len(args) > 1 else None
        if not _is_identifier(name) or _is_dunder(name):
            policy._refuse(where, "getattr of", name)


# Meta members of the graph format with a structure of their own; every
# other member is a free-form entry that goes back into node.meta as is.
_STRUCTURED_META = ("tensor", "tensors", "free_symbols", "symbol")


def _tensor_metadata(entry, where):
    """A shape_prop.TensorMetadata with the shape and dtype of a `tensor`
    meta member (the rest of it is not in the file: no grad, no stride)."""
    from torch.fx.passes.shape_prop import TensorMetadata
    if not isinstance(entry, dict) or not isinstance(entry.get("shape"), list):
        raise LoadError(f"{where}: bad tensor metadata {_short(entry)}")
    dims = tuple(entry["shape"])
    shape = torch.Size(dims) if all(isinstance(d, int) for d in dims) else dims
    dtype = _OPAQUE["torch.dtype"].get(entry.get("dtype"))
    return TensorMetadata(shape, dtype, False, None, None, False, {})


def _set_meta(node, meta, env, where):
    """node.meta from a node's meta: tensor / tensors as tensor_meta, the
    free-form entries decoded as values (docs/python.md)."""
    if not isinstance(meta, dict):
        raise LoadError(f"{where}: bad meta {_short(meta)}")
    if "tensor" in meta:
        node.meta["tensor_meta"] = _tensor_metadata(meta["tensor"], where)
    elif isinstance(meta.get("tensors"), list):
        node.meta["tensor_meta"] = tuple(_tensor_metadata(t, where) for t in meta["tensors"])
    for key, value in meta.items():
        if key not in _STRUCTURED_META:
            node.meta[key] = decode_value(value, env, where)


def decode_graph(entries, policy, label=""):
    """A torch.fx.Graph from (op, name, target, args, kwargs, type, meta)
    entries in order; node names are kept (they must be ones torch.fx keeps)."""
    graph = torch.fx.Graph()
    env = {}
    for op, name, target, args, kwargs, type_text, meta in entries:
        where = f"{label or 'the top-level graph'}, node {_short(name)}"
        if not isinstance(name, str) or not isinstance(target, str) \
                or not isinstance(args, list) or not isinstance(kwargs, dict):
            raise LoadError(f"{where}: name, target, args or kwargs of the wrong type")
        if op not in ("placeholder", "get_attr", "call_function", "call_method",
                      "call_module", "output"):
            raise LoadError(f"{where}: unknown op {_short(op)}")
        fn = policy.function(target, where) if op == "call_function" else None
        args = tuple(decode_value(a, env, where) for a in args)
        kwargs = {k: decode_value(v, env, where) for k, v in kwargs.items()}
        _check_names(op, target, args, kwargs, fn, policy, where)
        node = graph.create_node(op, fn or target, args, kwargs, name=name,
                                 type_expr=policy.annotation(type_text, where))
        if meta:
            _set_meta(node, meta, env, where)
        if node.name != name:
            raise LoadError(f"{where}: torch.fx renamed it to {node.name!r}")
        env[name] = node
    return graph


def lookup_attribute(module, qualname, where):
    """The attribute @qualname of @module (checked by Policy.attribute_path)."""
    obj = module
    for atom in qualname.split("."):
        if _is_dunder(atom) or not hasattr(obj, atom):
            raise LoadError(f"{where}: the original module has no attribute {_short(qualname)}")
        obj = getattr(obj, atom)
    return obj
