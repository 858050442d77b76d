"""FILE.py:FACTORY (or package.module:FACTORY) from a command line: the
user's own model code, which runs as a script given to python3 or torchrun
would.  Used by `python3 -m fxsplit_torch export` and
`python3 -m fxsplit_torch.run_pipeline`; never with a name read from a
data file."""
import argparse
import importlib
import importlib.util
import os


def load_factory(spec):
    """The callable FACTORY of FILE.py (run as a module) or of an importable
    module; SystemExit with one line when it cannot be found."""
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise SystemExit(f"fxsplit_torch: '{spec}': expected MODULE_OR_FILE:FACTORY")
    if path.endswith(".py") or os.path.sep in path:
        mod_spec = importlib.util.spec_from_file_location("_fxsplit_user_module", path)
        if mod_spec is None or not os.path.exists(path):
            raise SystemExit(f"fxsplit_torch: {path}: no such file")
        module = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(path)
    if not hasattr(module, name):
        raise SystemExit(f"fxsplit_torch: {path} has no '{name}'")
    return getattr(module, name)


def shape_arg(text):
    """argparse type of --input-shape: "1,3,224,224" -> (1, 3, 224, 224)."""
    try:
        return tuple(int(d) for d in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of sizes")
