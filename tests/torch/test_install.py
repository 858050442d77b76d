#!/usr/bin/python3
"""`pip install ./python` in a fresh virtual environment (with the system's
site-packages, for torch), offline, then `import fxsplit_torch` and a split
of resnet18 from outside the source tree: the installed package, not the
sources."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))

SPLIT_RESNET18 = """
import os, sys, torch, torch.fx, torchvision
import fxsplit_torch
assert os.path.realpath(fxsplit_torch.__file__).startswith(os.path.realpath(sys.prefix)), fxsplit_torch.__file__
m = torchvision.models.resnet18().eval()
gm = torch.fx.symbolic_trace(m)
calls = [n.name for n in gm.graph.nodes if n.op.startswith("call_")]
stage = {name: i * 4 // len(calls) for i, name in enumerate(calls)}
split = fxsplit_torch.split_module(gm, m, lambda n: stage[n.name])
x = torch.rand(1, 3, 64, 64)
assert torch.allclose(split(x), m(x), atol=1e-5)
print("split", len(gm.graph.nodes), "nodes into", [n for n, _ in split.named_children()])
"""


class Install(unittest.TestCase):
    def test_pip_install_in_a_venv(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "python")  # the source tree stays clean
            shutil.copytree(os.path.join(ROOT, "python"), source,
                            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
            venv = os.path.join(tmp, "venv")
            subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv],
                           check=True)
            python = os.path.join(venv, "bin", "python3")
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
            r = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                                "--quiet", source], capture_output=True, text=True, env=env, cwd=tmp)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            r = subprocess.run([python, "-c", SPLIT_RESNET18], capture_output=True, text=True,
                               env=env, cwd=tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("split", r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
