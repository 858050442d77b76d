#!/usr/bin/python3
"""Crafted graph files must never run code in Python (docs/python.md).

Each case is a graph file holding something hostile; fxsplit splits it
(it passes these strings through unchanged), and the result is loaded
through every path: fxsplit_torch.load_split on the json output, build()
of the python output's file, then the first forward().  No path may create
the marker file, and the error (or for an annotation, the warning) names
the node."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import typing
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import torch  # noqa: E402  (fails loudly without python3-torch)

import fxsplit_torch  # noqa: E402

EVIL_MODULE = """
import os
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "MARKER"), "w").write("imported")

class Thing:
    pass

def run(x):
    return x
"""


def placeholder(name="x", **extra):
    return dict({"name": name, "op": "placeholder", "target": name}, **extra)


def call(name, op, target, *args, **extra):
    return dict({"name": name, "op": op, "target": target, "args": list(args)}, **extra)


def ref(name):
    return {"node": name}


class HostileFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.marker = os.path.join(self.dir, "MARKER")
        self.touch = f"touch {self.marker}"
        with open(os.path.join(self.dir, "evilmod.py"), "w") as f:
            f.write(EVIL_MODULE)
        sys.path.insert(0, self.dir)
        self.addCleanup(sys.path.remove, self.dir)
        self.addCleanup(sys.modules.pop, "evilmod", None)
        self.addCleanup(self.tmp.cleanup)
        self.count = 0

    def split(self, nodes, attributes=None):
        """Splits the graph of @nodes (an output node is added) into one
        submodule; returns the paths of the json and python outputs."""
        self.reset()
        self.count += 1
        nodes = nodes + [call("output", "output", "output", ref(nodes[-1]["name"]))]
        graph = {"format": "fxsplit-graph", "version": 1, "attributes": attributes or {},
                 "nodes": nodes}
        base = os.path.join(self.dir, f"case{self.count}")
        with open(base + ".json", "w") as f:
            json.dump(graph, f)
        proc = subprocess.run([fxsplit_torch.find_fxsplit(), "split", base + ".json", "--quiet",
                               "-p", "modulo", "-o", "partitions=1",
                               "-O", f"json:{base}.split.json", "-O", f"python:{base}.py"],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertFalse(os.path.exists(self.marker), "fxsplit itself ran something")
        return base + ".split.json", base + ".py"

    def reset(self):
        """No marker, evilmod not imported (a case before may have done both)."""
        if os.path.exists(self.marker):
            os.remove(self.marker)
        sys.modules.pop("evilmod", None)

    def generated(self, path):
        spec = importlib.util.spec_from_file_location(f"hostile_{self.count}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    def loaders(self, json_path, py_path, **policy):
        """(path label, function returning the loaded module) for every path."""
        root = torch.nn.Module()
        root.lin = torch.nn.Linear(2, 2)
        return [("load_split", lambda: fxsplit_torch.load_split(json_path, root, **policy)),
                ("python output build()", lambda: self.generated(py_path).build(root, **policy))]

    def names(self, json_path, target):
        """The names the split gave the nodes whose target is @target."""
        with open(json_path) as f:
            doc = json.load(f)
        graphs = [doc["nodes"]] + [sub["nodes"] for sub in doc["submodules"]]
        return [f"node {n['name']!r}" for nodes in graphs for n in nodes if n["target"] == target]

    def assertRefused(self, nodes, target, unsafe=True, attributes=None):
        """Every path fails with an error naming the node of @target, and
        nothing ran: neither while loading nor on the first forward()."""
        paths = self.split(nodes, attributes)
        names = self.names(paths[0], target)
        for label, load in self.loaders(*paths):
            with self.subTest(path=label):
                self.reset()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        module = load()
                        module(torch.ones(2, 2))  # the first forward()
                    except ValueError as e:
                        error = e
                    except Exception as e:  # noqa: BLE001  (a crash is a failure too)
                        self.fail(f"{label}: {type(e).__name__}: {e}")
                    else:
                        error = None
                self.assertFalse(os.path.exists(self.marker), f"{label}: the file's code ran")
                self.assertIsNotNone(error, f"{label}: loaded and ran without an error")
                self.assertTrue(any(name in str(error) for name in names),
                                f"{label}: the error names none of {names}: {error}")
                if unsafe:  # (the generated file has a class of its own)
                    self.assertEqual(type(error).__name__, "UnsafeGraphError")

    def assertDropped(self, nodes, target, text):
        """Every path loads and runs, the annotation dropped with a warning
        naming the node of @target; nothing ran."""
        paths = self.split(nodes)
        names = self.names(paths[0], target)
        for label, load in self.loaders(*paths):
            with self.subTest(path=label):
                self.reset()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        load()(torch.ones(2, 2))
                    except Exception:  # noqa: BLE001  (checked below: the marker)
                        pass
                self.assertFalse(os.path.exists(self.marker), f"{label}: the file's code ran")
                texts = [str(w.message) for w in caught]
                self.assertTrue(any(name in t and "dropped" in t and text in t
                                    for t in texts for name in names),
                                f"{label}: no warning naming {names}: {texts}")

    # (a) opaque constants
    def test_opaque_repr_is_never_evaluated(self):
        for text in (f"__import__('os').system('{self.touch}')",
                     f"torch.os.system('{self.touch}')",
                     "torch.float32 if True else 0"):
            with self.subTest(repr=text):
                self.assertRefused([placeholder(), call("to", "call_method", "to", ref("x"),
                                                        {"opaque": "torch.dtype", "repr": text})],
                                   "to", unsafe=False)

    # (b) type annotations
    def test_type_annotation_is_never_evaluated_or_imported(self):
        for text in (f"__import__('os').system('{self.touch}')",
                     f"torch.os.system('{self.touch}')",
                     "evilmod.Thing",
                     "typing.List[evilmod.Thing]"):
            with self.subTest(type=text):
                self.assertDropped([placeholder(), call("relu", "call_function", "torch.relu",
                                                        ref("x"), type=text)], "torch.relu", text)

    # (c) call_function targets outside the allow-list
    def test_dangerous_call_function_targets_are_refused(self):
        cases = [("os.system", self.touch), ("posix.system", self.touch),
                 ("torch.os.system", self.touch), ("builtins.exec", f"open({self.marker!r}, 'w')"),
                 ("exec", f"open({self.marker!r}, 'w')"), ("subprocess.call", ["touch", self.marker]),
                 ("torch.utils.collect_env.run", self.touch),
                 ("torch.save", {"node": "x"}), ("torch.from_file", self.marker),
                 ("torch.hub.load", "x"), ("torch.nn.functional.torch.os.system", self.touch),
                 ("_operator.methodcaller", "system")]
        for target, arg in cases:
            with self.subTest(target=target):
                self.assertRefused([placeholder(), call("run", "call_function", target, arg)], target)

    # (d) a hostile module named by the file is never imported
    def test_hostile_module_is_never_imported(self):
        self.assertRefused([placeholder(), call("run", "call_function", "evilmod.run", ref("x"))],
                           "evilmod.run")

    # torch.fx pastes these texts into the forward code it compiles
    def test_names_pasted_into_code_are_checked(self):
        pwn = f"__import__('os').system('{self.touch}')"
        self.assertRefused([placeholder("x", target=f"x={pwn}"),
                            call("relu", "call_function", "torch.relu", ref("x"))], f"x={pwn}",
                           unsafe=False)
        self.assertRefused([placeholder(), call("add", "call_function", "torch.add", ref("x"),
                                                kwargs={f"alpha=1, other={pwn}, out": 1})],
                           "torch.add", unsafe=False)
        view = f'view"); {pwn}; ("'
        self.assertRefused([placeholder(), call("view", "call_method", view, ref("x"), -1)], view,
                           unsafe=False)
        evil = f'lin.x"); {pwn}; ("'
        self.assertRefused([placeholder(), call("w", "get_attr", evil)], evil, unsafe=False,
                           attributes={evil: {"kind": "object"}})

    # a chain of harmless-looking calls reaching exec on forward()
    def test_dunder_walks_are_refused(self):
        self.assertRefused([placeholder(), call("cls", "call_function", "getattr", ref("x"), "__class__")],
                           "getattr")
        self.assertRefused([placeholder(), call("m", "call_method", "__reduce_ex__", ref("x"), 2)], "__reduce_ex__")
        self.assertRefused([placeholder(), call("g", "get_attr", "forward.__globals__")],
                           "forward.__globals__",
                           attributes={"forward.__globals__": {"kind": "object"}})
        self.assertRefused([placeholder(), call("n", "call_method", "numpy", ref("x"))], "numpy")

    # the opt-in keywords
    def test_allow_modules_and_trust_targets_opt_in(self):
        paths = self.split([placeholder(), call("run", "call_function", "evilmod.run", ref("x"),
                                                type="evilmod.Thing")])
        for policy in ({"allow_modules": ["evilmod"]}, {"trust_targets": True}):
            for label, load in self.loaders(*paths, **policy):
                with self.subTest(path=label, policy=policy):
                    self.reset()
                    out = load()(torch.ones(2, 2))
                    self.assertTrue(torch.equal(out, torch.ones(2, 2)))
                    self.assertTrue(os.path.exists(self.marker), "the allowed module was not imported")

    def test_legit_constants_and_annotations_load(self):
        nodes = [placeholder(type="torch.Tensor"),
                 call("to", "call_method", "to", ref("x"), {"opaque": "torch.dtype", "repr": "torch.float64"},
                      kwargs={"memory_format": {"opaque": "torch.memory_format",
                                                "repr": "torch.contiguous_format"}},
                      type="typing.Optional[torch.Tensor]"),
                 call("t", "call_method", "to", ref("to"), {"opaque": "torch.device",
                                                            "repr": "device(type='cpu')"},
                      type="typing.Tuple[typing.List[int], ...]"),
                 call("size", "call_function", "getattr", ref("t"), "dtype"),
                 call("z", "call_function", "torch.zeros", 2, 2, kwargs={
                     "dtype": ref("size"), "layout": {"opaque": "torch.layout", "repr": "torch.strided"}})]
        for label, load in self.loaders(*self.split(nodes)):
            with self.subTest(path=label):
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    module = load()
                out = module(torch.ones(2, 2))
                self.assertEqual(out.dtype, torch.float64)
                to = [n for n in module.submod_0.graph.nodes if n.name == "to"][0]
                self.assertEqual(to.type, typing.Optional[torch.Tensor])


class Decoder(unittest.TestCase):
    """fxsplit_torch.decode directly: what each rule accepts and refuses."""

    def setUp(self):
        from fxsplit_torch import decode
        self.decode = decode
        self.policy = decode.Policy()

    def test_opaque_constants_from_their_text(self):
        d = self.decode.decode_opaque
        self.assertIs(d("torch.dtype", "torch.float16", "n"), torch.float16)
        self.assertIs(d("torch.layout", "torch.sparse_coo", "n"), torch.sparse_coo)
        self.assertIs(d("torch.memory_format", "torch.channels_last", "n"), torch.channels_last)
        self.assertEqual(d("torch.device", "device(type='cpu')", "n"), torch.device("cpu"))
        self.assertEqual(d("torch.device", "device(type='cuda', index=1)", "n"), torch.device("cuda", 1))
        self.assertEqual(d("torch.device", "torch.device('cuda', 1)", "n"), torch.device("cuda", 1))
        for kind, text in (("torch.dtype", "torch.strided"), ("torch.dtype", "torch.float32 "),
                           ("torch.device", "device(type='cpu'); x"), ("torch.device", "device(type='nope')"),
                           ("builtins.object", "object()"), ("torch.dtype", None)):
            with self.subTest(kind=kind, text=text):
                with self.assertRaisesRegex(fxsplit_torch.LoadError, "node 'n'"):
                    d(kind, text, "node 'n'")

    def test_messages_are_short(self):
        """A huge or deeply nested text gives a short message, no crash."""
        with self.assertRaises(fxsplit_torch.LoadError) as cm:
            self.decode.decode_opaque("torch.dtype", "x" * 1000000, "node 'n'")
        self.assertLess(len(str(cm.exception)), 300)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertIsNone(self.policy.annotation("typing.List[" * 100000, "node 'n'"))
        self.assertTrue(caught and all(len(str(w.message)) < 400 for w in caught))

    def test_annotations_torch_fx_prints(self):
        for text, expected in (("torch.Tensor", torch.Tensor), ("int", int), ("NoneType", type(None)),
                               ("typing.List[int]", typing.List[int]),
                               ("typing.Optional[torch.Tensor]", typing.Optional[torch.Tensor]),
                               ("typing.Tuple[int, ...]", typing.Tuple[int, ...]),
                               ("typing.Dict[str, torch.Tensor]", typing.Dict[str, torch.Tensor]),
                               ("typing.Callable[[int], int]", typing.Callable[[int], int]),
                               ("torch.Size", torch.Size), ("typing.Any", typing.Any)):
            with self.subTest(text=text):
                self.assertEqual(self.policy.annotation(text, "node 'n'"), expected)
        for text in ("os.PathLike", "torch.os.PathLike", "int[", "int]", "typing.List[int](1)",
                     "int.__class__", "(lambda: 0)()", "typing.List[int] + 1", ""):
            with self.subTest(text=text):
                with self.assertWarnsRegex(UserWarning, "node 'n'.*dropped"):
                    self.assertIsNone(self.policy.annotation(text, "node 'n'"))

    def test_functions_torch_fx_names(self):
        import math
        import operator
        f = self.policy.function
        self.assertIs(f("torch.relu", "n"), torch.relu)
        self.assertIs(f("torch._C._nn.linear", "n"), torch._C._nn.linear)
        self.assertIs(f("torch.nn.functional.relu", "n"), torch.nn.functional.relu)
        self.assertIs(f("torch.ops.aten.add.Tensor", "n"), torch.ops.aten.add.Tensor)
        self.assertIs(f("_operator.add", "n"), operator.add)
        self.assertIs(f("operator.getitem", "n"), operator.getitem)
        self.assertIs(f("math.sqrt", "n"), math.sqrt)
        self.assertIs(f("getattr", "n"), getattr)
        self.assertIs(f("builtins.getattr", "n"), getattr)
        for target in ("open", "builtins.eval", "torch.load", "torch.jit.load", "torch.fx.graph_module._exec_with_source",
                       "torch.ops.load_library", "torch._C.import_ir_module", "torch.import_ir_module",
                       "_operator.attrgetter", "_operator.call", "torch.Tensor.__subclasses__",
                       "torch.autograd.functional.jacobian", "torch.overrides.handle_torch_function",
                       "math.__loader__.load_module"):
            with self.subTest(target=target):
                with self.assertRaisesRegex(fxsplit_torch.UnsafeGraphError, f"n: .*{target!r}"):
                    f(target, "n")

    def test_the_python_output_embeds_this_decoder(self):
        """One decoder: the generated file holds decode.py's text, verbatim."""
        with open(self.decode.__file__, encoding="utf-8") as f:
            source = f.read()
        with tempfile.TemporaryDirectory() as tmp:
            graph = os.path.join(tmp, "g.json")
            with open(graph, "w") as f:
                json.dump({"format": "fxsplit-graph", "version": 1, "attributes": {}, "nodes": [
                    placeholder(), call("relu", "call_function", "torch.relu", ref("x")),
                    call("output", "output", "output", ref("relu"))]}, f)
            out = os.path.join(tmp, "g.py")
            subprocess.run([fxsplit_torch.find_fxsplit(), "split", graph, "--quiet", "-p", "modulo",
                            "-O", f"python:{out}"], check=True)
            with open(out, encoding="utf-8") as f:
                self.assertTrue(source in f.read(), f"{out} does not hold {self.decode.__file__}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
