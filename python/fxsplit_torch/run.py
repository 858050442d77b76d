"""Run the fxsplit command on a torch.fx GraphModule and load the result."""
import os
import shutil
import subprocess
import tempfile

from .export import export
from .load import load_split


class SplitError(RuntimeError):
    """The fxsplit command failed; .returncode and .stderr tell why."""

    def __init__(self, message, returncode, stderr):
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


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


def _own_modules(gm):
    """The modules of @gm's own call_function targets beyond the default
    allow-list (its wrapped functions), whole: not torch's denied parts."""
    modules = {getattr(n.target, "__module__", None) for n in gm.graph.nodes if n.op == "call_function"}
    return sorted(m for m in modules if isinstance(m, str)
                  and m.split(".")[0] not in ("torch", "_operator", "operator", "math", "builtins"))


def split(gm, partitioner, options=None, outputs=(), example_inputs=None,
          split_options=(), root_module=None, workdir=None, allow_modules=()):
    """Splits @gm with the fxsplit partitioner plugin @partitioner and its
    @options (dict), writes extra @outputs ("dot:/tmp/g.dot", ...) too, and
    returns the split torch.fx.GraphModule bound to @root_module (default
    @gm).  @split_options: extra command-line flags such as
    "--keep-original-order".  The result may call the functions of the
    modules @gm's own calls come from, and of @allow_modules."""
    options = options or {}
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        graph_path = os.path.join(tmp, "graph.json")
        result_path = os.path.join(tmp, "split.json")
        export(gm, example_inputs, graph_path)
        cmd = [find_fxsplit(), "split", graph_path, "--partitioner", partitioner, "--quiet"]
        for key, value in options.items():
            cmd += ["--option", f"{key}={value}"]
        cmd += ["--output", f"json:{result_path}"]
        for out in outputs:
            cmd += ["--output", out]
        cmd += list(split_options)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SplitError(proc.stderr.strip() or f"fxsplit exited with {proc.returncode}",
                             proc.returncode, proc.stderr)
        return load_split(result_path, root_module if root_module is not None else gm,
                          allow_modules=_own_modules(gm) + list(allow_modules))
