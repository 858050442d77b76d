#!/usr/bin/python3
"""fxsplit_torch.split_module and split() in process: callbacks, errors,
library look-up, no subprocess, meta and symbolic sizes that survive, and
names in a graph that are never resolved as text (docs/python.md)."""
import gc
import json
import os
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402  (fails loudly without python3-torch)
import torch.fx  # noqa: E402
from torch.fx.passes.split_module import split_module as torch_split_module  # noqa: E402

import fxsplit_torch  # noqa: E402


class Chain(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(4, 4)
        self.b = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x))) + x


def traced():
    torch.manual_seed(0)
    m = Chain().eval()
    return m, torch.fx.symbolic_trace(m)


def stages(gm, k):
    calls = [n.name for n in gm.graph.nodes if n.op.startswith("call_")]
    table = {name: i * k // len(calls) for i, name in enumerate(calls)}
    return lambda node: table[node.name]


class SplitModule(unittest.TestCase):
    def test_same_as_torch(self):
        m, gm = traced()
        ours_q, torch_q = {}, {}
        ours = fxsplit_torch.split_module(gm, m, stages(gm, 3), ours_q)
        theirs = torch_split_module(gm, m, stages(gm, 3), torch_q)
        self.assertEqual(ours.code, theirs.code)
        self.assertEqual([n for n, _ in ours.named_children()], [n for n, _ in theirs.named_children()])
        for name, sub in theirs.named_children():
            self.assertEqual(getattr(ours, name).code, sub.code)
        self.assertEqual(list(ours_q.items()), list(torch_q.items()))
        x = torch.rand(2, 4)
        self.assertTrue(torch.equal(ours(x), theirs(x)))
        self.assertIs(ours.submod_0.a.weight, m.a.weight)

    def test_cycle_names_the_ring(self):
        m, gm = traced()
        ids = {"a": 0, "relu": 1, "b": 0, "add": 0}
        with self.assertRaises(fxsplit_torch.EngineError) as cm:
            fxsplit_torch.split_module(gm, m, lambda n: ids[n.name])
        self.assertEqual(cm.exception.code, "cycle")
        self.assertIn("cycle between partitions 0 -> 1 -> 0: 'a' (partition 0) is used by "
                      "'relu' (partition 1)", str(cm.exception))

    def test_callback_called_once_per_call_node_in_graph_order(self):
        m, gm = traced()
        seen = []

        def counting(node):  # a callback with state: round robin
            seen.append(node.name)
            return (len(seen) - 1) // 2
        fxsplit_torch.split_module(gm, m, counting)
        self.assertEqual(seen, [n.name for n in gm.graph.nodes if n.op.startswith("call_")])

    def test_callback_exception_propagates_and_nothing_is_left(self):
        m, gm = traced()
        before = [dict(n.__dict__) for n in gm.graph.nodes]

        class Stop(Exception):
            pass

        def failing(node):
            if node.name == "relu":
                raise Stop("no partition for relu")
            return 0
        self.assertTrue(gc.isenabled())
        with self.assertRaises(Stop):
            fxsplit_torch.split_module(gm, m, failing)
        self.assertTrue(gc.isenabled(), "the collector is running again")
        self.assertEqual([set(n.__dict__) for n in gm.graph.nodes], [set(d) for d in before])
        # the same graph splits fine afterwards
        self.assertIn("torch.relu", fxsplit_torch.split_module(gm, m, lambda n: 0).submod_0.code)

    def grad_graph(self):
        g = torch.fx.Graph()
        x = g.placeholder("x")
        g.call_function(torch._C._set_grad_enabled, (False,))
        a = g.call_function(torch.relu, (x,))
        g.call_function(torch._C._set_grad_enabled, (True,))
        g.output(g.call_function(torch.sin, (a,)))
        return torch.fx.GraphModule(torch.nn.Module(), g)

    def test_global_state_regions(self):
        """A grad region over two partitions: the second starts with a copy
        of the region's node (current PyTorch's rule); ids that decrease
        are an EngineError naming the node."""
        gm = self.grad_graph()
        ids = {"_set_grad_enabled": 0, "relu": 0, "_set_grad_enabled_1": 1, "sin": 1}
        split = fxsplit_torch.split_module(gm, gm, lambda n: ids[n.name])
        first = next(n for n in split.submod_1.graph.nodes if n.op == "call_function")
        self.assertIs(first.target, torch._C._set_grad_enabled)
        x = torch.rand(3, requires_grad=True)
        self.assertTrue(torch.equal(split(x), torch.sin(torch.relu(x))))
        torch._C._set_grad_enabled(True)
        ids.update(relu=1, sin=0, _set_grad_enabled_1=0)
        with self.assertRaises(fxsplit_torch.EngineError) as cm:
            fxsplit_torch.split_module(gm, gm, lambda n: ids[n.name])
        self.assertEqual(cm.exception.code, "global_state")
        self.assertIn("partition 0 comes after partition 1", str(cm.exception))

    def test_non_int_id_names_the_node(self):
        m, gm = traced()
        with self.assertRaisesRegex(TypeError, "node 'a': split_callback returned 'x'"):
            fxsplit_torch.split_module(gm, m, lambda n: "x")

    def test_options_equal_the_command(self):
        """partition_affix, tuple_return, keep_original_node_name and
        keep_original_input_name=False (beyond torch 1.13) as the command
        gives them."""
        m, gm = traced()
        ours = fxsplit_torch.split_module(gm, m, stages(gm, 2), partition_affix="p", tuple_return=True,
                                          keep_original_node_name=True, keep_original_input_name=False)
        with tempfile.TemporaryDirectory() as tmp:
            graph, decisions, result = (os.path.join(tmp, f) for f in ("g.json", "d.json", "s.json"))
            fxsplit_torch.export(gm, path=graph)
            cb = stages(gm, 2)
            with open(decisions, "w") as f:
                json.dump({n.name: cb(n) for n in gm.graph.nodes if n.op.startswith("call_")}, f)
            subprocess.run([fxsplit_torch.find_fxsplit(), "split", graph, "--quiet", "-p", "map",
                            "--option", f"file={decisions}", "--output", f"json:{result}",
                            "--partition-affix", "p", "--tuple-return", "--keep-original-node-name",
                            "--no-keep-original-input-name"], check=True)
            theirs = fxsplit_torch.load_split(result, gm)
        self.assertEqual(ours.code, theirs.code)
        self.assertEqual([n for n, _ in ours.named_children()], ["submod_p_0", "submod_p_1"])
        for name in ("submod_p_0", "submod_p_1"):
            self.assertEqual(getattr(ours, name).code, getattr(theirs, name).code)

    def test_no_subprocess_no_temporary_file(self):
        m, gm = traced()
        refuse = mock.Mock(side_effect=AssertionError("no subprocess, no temporary file"))
        with mock.patch("subprocess.Popen", refuse), mock.patch("tempfile.mkstemp", refuse), \
                mock.patch("tempfile.mkdtemp", refuse):
            split = fxsplit_torch.split_module(gm, m, stages(gm, 2))
            by_plugin = fxsplit_torch.split(gm, "balanced", {"stages": 2})
        x = torch.rand(2, 4)
        self.assertTrue(torch.equal(split(x), m(x)))
        self.assertTrue(torch.equal(by_plugin(x), m(x)))


def test_plugin(name):
    """A test plugin of the build tree (tests/plugins), next to the library."""
    lib = fxsplit_torch.load_library().path
    return os.path.join(os.path.dirname(os.path.dirname(lib)), "tests", "plugins", name)


class Plugins(unittest.TestCase):
    """split() runs plugins in this process: their failures are exceptions
    and no output file appears."""

    def test_partitioner_failure_names_the_node(self):
        m, gm = traced()
        with tempfile.TemporaryDirectory() as tmp:
            dot = os.path.join(tmp, "g.dot")
            with self.assertRaises(fxsplit_torch.SplitError) as cm:
                fxsplit_torch.split(gm, test_plugin("callback-fails.so"), {"fail_at": "relu"},
                                    outputs=[f"dot:{dot}"])
            self.assertEqual(cm.exception.code, "callback")
            self.assertIn("relu", str(cm.exception))
            self.assertEqual(os.listdir(tmp), [])

    def test_failing_output_leaves_no_file(self):
        m, gm = traced()
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaises(fxsplit_torch.SplitError) as cm:
                fxsplit_torch.split(gm, "balanced", {"stages": 2},
                                    outputs=[f"dot:{tmp}/g.dot", f"{test_plugin('failing-output.so')}:{tmp}/bad"])
            self.assertEqual(cm.exception.code, "plugin_failed")
            self.assertEqual(os.listdir(tmp), [])


class Library(unittest.TestCase):
    def run_python(self, code, **env):
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), **env))

    def test_missing_library_names_what_was_tried(self):
        r = self.run_python("import fxsplit_torch, torch.fx, torch\n"
                            "gm = torch.fx.symbolic_trace(torch.nn.ReLU())\n"
                            "fxsplit_torch.split_module(gm, gm, lambda n: 0)",
                            FXSPLIT_LIBRARY="/nonexistent/libfxsplit.so")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("LibraryNotFoundError: libfxsplit not found; tried /nonexistent/libfxsplit.so "
                      "(FXSPLIT_LIBRARY: no such file)", r.stderr)

    def test_explicit_path(self):
        with self.assertRaisesRegex(fxsplit_torch.LibraryNotFoundError, "/no/such.so"):
            fxsplit_torch.load_library("/no/such.so")


def evil_run(x):
    return x * 2


# torch.fx names this function "evilmod.run": a module that, imported,
# would run code.  The in-process paths use the function object itself.
evil_run.__module__ = "evilmod"
evil_run.__name__ = evil_run.__qualname__ = "run"


class NamesAreNotResolved(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.marker = os.path.join(self.tmp.name, "MARKER")
        with open(os.path.join(self.tmp.name, "evilmod.py"), "w") as f:
            f.write(f"open({self.marker!r}, 'w').write('imported')\ndef run(x):\n    return x\n")
        sys.path.insert(0, self.tmp.name)
        self.addCleanup(sys.path.remove, self.tmp.name)
        self.addCleanup(sys.modules.pop, "evilmod", None)

    def graph(self):
        g = torch.fx.Graph()
        x = g.placeholder("x")
        a = g.call_function(evil_run, (x,))
        b = g.call_function(torch.relu, (a,))
        g.output(g.call_method("add", (b, x)))
        gm = torch.fx.GraphModule(torch.nn.Module(), g)
        for node in gm.graph.nodes:
            node.meta["stage"] = 0 if node.name == "run" else 1
            node.meta["note"] = "__import__('os').system('touch " + self.marker + "')"
        return gm

    def test_split_module_uses_the_objects(self):
        gm = self.graph()
        split = fxsplit_torch.split_module(gm, gm, lambda n: n.meta["stage"])
        x = torch.rand(3)
        self.assertTrue(torch.equal(split(x), torch.relu(x * 2) + x))
        self.assertFalse(os.path.exists(self.marker))
        self.assertNotIn("evilmod", sys.modules)
        run = next(n for n in split.submod_0.graph.nodes if n.op == "call_function")
        self.assertIs(run.target, evil_run)
        self.assertIsInstance(run.meta["note"], str)

    def test_split_uses_the_objects(self):
        gm = self.graph()
        split = fxsplit_torch.split(gm, "map", {"meta_key": "stage"})
        x = torch.rand(3)
        self.assertTrue(torch.equal(split(x), torch.relu(x * 2) + x))
        self.assertFalse(os.path.exists(self.marker))
        self.assertNotIn("evilmod", sys.modules)

    def test_functions_sharing_a_name_stay_apart(self):
        """Two closures torch.fx names alike: each node keeps its own."""
        def scale(k):
            def f(x):
                return x * k
            return f
        g = torch.fx.Graph()
        x = g.placeholder("x")
        a = g.call_function(scale(2), (x,))
        g.output(g.call_function(scale(3), (a,)))
        gm = torch.fx.GraphModule(torch.nn.Module(), g)
        split = fxsplit_torch.split_module(gm, gm, lambda n: 0)
        self.assertTrue(torch.equal(split(torch.ones(2)), torch.full((2,), 6.0)))


class MetaRoundTrip(unittest.TestCase):
    def annotated(self):
        m, gm = traced()
        from torch.fx.passes.shape_prop import ShapeProp
        ShapeProp(gm).propagate(torch.rand(2, 4))
        for i, node in enumerate(gm.graph.nodes):
            node.meta["stage"] = 0 if i < 2 else 1
            node.meta["stack_trace"] = f'  File "model.py", line {i}, in forward'
            node.meta["nn_module_stack"] = {"a": Chain}
            node.meta["tags"] = ("hot", [1, 2.5], {"k": None})
        return m, gm

    def check(self, node, i):
        self.assertEqual(node.meta["stage"], 0 if i < 2 else 1)
        self.assertEqual(node.meta["stack_trace"], f'  File "model.py", line {i}, in forward')
        self.assertEqual(node.meta["tags"], ("hot", [1, 2.5], {"k": None}))
        self.assertEqual(tuple(node.meta["tensor_meta"].shape), (2, 4))
        self.assertEqual(node.meta["tensor_meta"].dtype, torch.float32)

    def test_through_a_file(self):
        """export -> fxsplit split -> load_split: the meta comes back."""
        m, gm = self.annotated()
        with tempfile.TemporaryDirectory() as tmp:
            graph, result = os.path.join(tmp, "g.json"), os.path.join(tmp, "s.json")
            fxsplit_torch.export(gm, path=graph)
            subprocess.run([fxsplit_torch.find_fxsplit(), "split", graph, "--quiet", "-p", "map",
                            "--option", "meta_key=stage", "--output", f"json:{result}"], check=True)
            split = fxsplit_torch.load_split(result, gm)
        relu = next(n for n in split.submod_1.graph.nodes if n.name == "relu")
        self.check(relu, 2)
        self.assertEqual(relu.meta["nn_module_stack"], {"a": f"{__name__}.Chain"})

    def test_in_process(self):
        m, gm = self.annotated()
        for split in (fxsplit_torch.split(gm, "map", {"meta_key": "stage"}),
                      fxsplit_torch.split_module(gm, m, lambda n: n.meta["stage"])):
            relu = next(n for n in split.submod_1.graph.nodes if n.name == "relu")
            self.check(relu, 2)
            self.assertEqual(relu.meta["nn_module_stack"], {"a": Chain})
            placeholder = next(n for n in split.submod_1.graph.nodes if n.op == "placeholder")
            self.assertEqual(tuple(placeholder.meta["tensor_meta"].shape), (2, 4))


def symbolic(x, y):
    n = x.shape[0]
    return (x.sin().reshape(n, -1) + y.sum()).cos()


class SymbolicSizes(unittest.TestCase):
    def graph(self):
        from torch.fx.experimental.proxy_tensor import make_fx
        return make_fx(symbolic, tracing_mode="symbolic")(torch.rand(4, 3), torch.rand(2))

    def test_make_fx_graph_exports_its_symbolic_sizes(self):
        doc = json.loads(fxsplit_torch.export(self.graph()))
        sin = next(n for n in doc["nodes"] if n["name"] == "sin")
        self.assertEqual(sin["meta"]["tensor"], {"shape": ["t0.size(0)", "t0.size(1)"],
                                                 "dtype": "torch.float32"})

    def test_make_fx_graph_splits_as_torch(self):
        gm = self.graph()
        ours = fxsplit_torch.split_module(gm, gm, stages(gm, 3))
        theirs = torch_split_module(gm, gm, stages(gm, 3))
        self.assertEqual(ours.code, theirs.code)
        for name, sub in theirs.named_children():
            self.assertEqual(getattr(ours, name).code, sub.code)
        x, y = torch.rand(5, 3), torch.rand(2)
        self.assertTrue(torch.allclose(ours(x, y), gm(x, y)))

    def test_binding_nodes_cross_partitions(self):
        """As dynamo records them (example_value), a value with symbolic sizes
        that crosses partitions takes the nodes binding its symbols along
        (current PyTorch's rule; torch 1.13 has none)."""
        gm = self.graph()
        after = False
        for node in gm.graph.nodes:
            after = after or node.name == "sym_size"
            if after and "val" in node.meta:
                node.meta["example_value"] = node.meta["val"]
        ids = {"sin": 0, "sym_size": 0, "sym_numel": 0, "floordiv": 0, "_reshape_alias": 1,
               "sum_1": 1, "add": 2, "cos": 2}
        split = fxsplit_torch.split_module(gm, gm, lambda n: ids[n.name])
        inputs = [n.target for n in split.submod_2.graph.nodes if n.op == "placeholder"]
        self.assertEqual(inputs, ["_reshape_alias", "sym_size", "floordiv", "sum_1"])
        x, y = torch.rand(5, 3), torch.rand(2)
        self.assertTrue(torch.allclose(split(x, y), gm(x, y)))

    def test_symint_argument_is_represented(self):
        """A SymInt constant in an argument: its expression in the file; in
        process the rebuilt node gets the object itself."""
        import operator
        size = next(n for n in self.graph().graph.nodes if n.name == "sym_size").meta["val"]
        g = torch.fx.Graph()
        x = g.placeholder("x")
        a = g.call_function(operator.add, (x, size))
        g.output(g.call_function(operator.mul, (a, 2)))
        gm = torch.fx.GraphModule(torch.nn.Module(), g)
        doc = json.loads(fxsplit_torch.export(gm))
        self.assertEqual(doc["nodes"][1]["args"][1], {"opaque": "torch.SymInt", "repr": "t0.size(0)"})
        split = fxsplit_torch.split_module(gm, gm, lambda n: 0 if n.name == "add" else 1)
        add = next(n for n in split.submod_0.graph.nodes if n.op == "call_function")
        self.assertIs(add.args[1], size)


if __name__ == "__main__":
    unittest.main(verbosity=2)
