#!/usr/bin/python3
"""The PyTorch bridge end to end: fxsplit_torch.split() on a traced module,
the export command line on a model file, and clear errors for what the
graph format cannot hold."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402  (fails loudly without python3-torch)
import torch.fx  # noqa: E402

import fxsplit_torch  # noqa: E402

MODEL_FILE = '''
import torch

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(8, 16)
        self.b = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))

def make():
    return Net()
'''


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        return self.fc(y.mean(dim=(2, 3)))


@torch.fx.wrap
def shifted(x, by):
    return x + by


class Wrapped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(shifted(self.fc(x), 1.5))


class TestBridge(unittest.TestCase):
    def test_split_allows_the_modules_of_its_own_calls(self):
        """split() loads back a graph calling a function of this module
        (beyond the default allow-list); load_split of the same file needs
        allow_modules."""
        model = Wrapped().eval()
        gm = torch.fx.symbolic_trace(model)
        x = torch.rand(2, 4)
        split = fxsplit_torch.split(gm, "balanced", {"stages": 2})
        self.assertTrue(torch.equal(split(x), model(x)))
        with tempfile.TemporaryDirectory() as tmp:
            graph, result = os.path.join(tmp, "g.json"), os.path.join(tmp, "s.json")
            fxsplit_torch.export(gm, None, graph)
            subprocess.run([fxsplit_torch.find_fxsplit(), "split", graph, "--quiet", "-p", "modulo",
                            "-O", f"json:{result}"], check=True)
            with self.assertRaisesRegex(fxsplit_torch.UnsafeGraphError, "__main__.shifted"):
                fxsplit_torch.load_split(result, model)
            loaded = fxsplit_torch.load_split(result, model, allow_modules=[__name__])
            self.assertTrue(torch.equal(loaded(x), model(x)))

    def test_split_returns_an_equivalent_module(self):
        model = Net().eval()
        gm = torch.fx.symbolic_trace(model)
        x = torch.rand(2, 3, 8, 8)
        split = fxsplit_torch.split(gm, "balanced", {"stages": 3}, example_inputs=(x,))
        names = [n.target for n in split.graph.nodes if n.op == "call_module"]
        self.assertEqual(names, ["submod_0", "submod_1", "submod_2"])
        self.assertTrue(torch.allclose(split(x), model(x), atol=1e-6))
        # parameters are the original module's, not copies
        self.assertIs(split.submod_0.conv.weight, model.conv.weight)

    def test_chain_labels_reach_every_module(self):
        """A chain through split(), and its labels as fxsplit_label on the
        submodules of split(), load_split and the python output's build()."""
        model = Net().eval()
        gm = torch.fx.symbolic_trace(model)
        x = torch.rand(2, 3, 8, 8)
        chain = [("balanced", {"stages": 2}), ("balanced", {"stages": 2})]
        split = fxsplit_torch.split(gm, chain)
        labels = {name: m.fxsplit_label for name, m in split.named_children()}
        self.assertEqual(labels, {"submod_0": "0/0", "submod_1": "0/1", "submod_2": "1/0",
                                  "submod_3": "1/1"})
        self.assertTrue(torch.allclose(split(x), model(x), atol=1e-6))
        self.assertIsNone(fxsplit_torch.split(gm, "balanced", {"stages": 2}).submod_0.fxsplit_label)
        with tempfile.TemporaryDirectory() as tmp:
            graph, result = os.path.join(tmp, "g.json"), os.path.join(tmp, "s.json")
            code = os.path.join(tmp, "s.py")
            fxsplit_torch.export(gm, None, graph)
            subprocess.run([fxsplit_torch.find_fxsplit(), "split", graph, "--quiet",
                            "-p", "balanced", "-o", "stages=2", "-p", "balanced", "-o", "stages=2",
                            "-O", f"json:{result}", "-O", f"python:{code}"], check=True)
            loaded = fxsplit_torch.load_split(result, model)
            self.assertEqual({n: m.fxsplit_label for n, m in loaded.named_children()}, labels)
            spec = importlib.util.spec_from_file_location("chain_split", code)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            built = module.build(model)
            self.assertEqual({n: m.fxsplit_label for n, m in built.named_children()}, labels)
            self.assertEqual(module.LABELS, labels)

    def test_split_error_carries_the_engine_code(self):
        gm = torch.fx.symbolic_trace(Net().eval())
        with self.assertRaises(fxsplit_torch.SplitError) as cm:
            fxsplit_torch.split(gm, "balanced", {"stages": 0})
        self.assertEqual(cm.exception.code, "option")
        self.assertIn("stages", str(cm.exception))

    def test_export_command_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            model_path = os.path.join(tmp, "net.py")
            with open(model_path, "w") as f:
                f.write(MODEL_FILE)
            out = os.path.join(tmp, "net.json")
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
            r = subprocess.run([sys.executable, "-m", "fxsplit_torch", "export", f"{model_path}:make",
                                "--input-shape", "2,8", "-o", out], capture_output=True, text=True, env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("wrote", r.stdout)
            r = subprocess.run([fxsplit_torch.find_fxsplit(), "inspect", out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("call_module", r.stdout)
            # a factory that does not exist is one clear line
            r = subprocess.run([sys.executable, "-m", "fxsplit_torch", "export", f"{model_path}:nope",
                                "-o", out], capture_output=True, text=True, env=env)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("has no 'nope'", r.stderr)

    def test_unrepresentable_value_names_the_node(self):
        g = torch.fx.Graph()
        x = g.placeholder("x")
        y = g.call_function(torch.add, (x, {1, 2}))  # a set: not in the format
        g.output(y)
        gm = torch.fx.GraphModule(torch.nn.Module(), g)
        with self.assertRaises(fxsplit_torch.ExportError) as cm:
            fxsplit_torch.graph_to_dict(gm)
        self.assertIn("node 'add'", str(cm.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
