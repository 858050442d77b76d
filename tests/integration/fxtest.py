"""Shared helpers of the integration tests: run the fxsplit binary from the
build tree in a scratch directory, and check what it said and left behind.

Set FXSPLIT_TEST_WRAPPER (e.g. "valgrind -q --leak-check=full
--errors-for-leak-kinds=definite,indirect --error-exitcode=9") to run every
fxsplit command under a wrapper; a wrapper's own failure shows up as an
unexpected exit status."""
import configparser
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import unittest

BIN = os.environ["FXSPLIT_BIN"]
SOURCE_ROOT = os.environ["FXSPLIT_SOURCE_ROOT"]
BUILD_ROOT = os.environ["FXSPLIT_BUILD_ROOT"]
WRAPPER = shlex.split(os.environ.get("FXSPLIT_TEST_WRAPPER", ""))
DOCSTRING = os.path.join(SOURCE_ROOT, "examples", "graphs", "docstring.json")
SMALL_CNN = os.path.join(SOURCE_ROOT, "examples", "graphs", "small-cnn.json")
TEST_PLUGINS = os.path.join(BUILD_ROOT, "tests", "plugins")


def fxsplit(*args, cwd=None, env=None):
    """Runs fxsplit with @args; returns the CompletedProcess (text).  Every
    split result that a successful `split` or `run` wrote with the json
    output is checked with `fxsplit verify` against the graph it split."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    result = subprocess.run(WRAPPER + [BIN, *args], cwd=cwd, env=full_env, text=True,
                            capture_output=True, timeout=120)
    if result.returncode == 0 and args and args[0] in ("split", "run"):
        verify_written_splits(args, result.stdout, cwd, full_env)
    return result


def split_input(args, cwd):
    """The graph file a `split` or `run` command line split (relative to
    @cwd, as the command saw it), or None when it is not a file of its own
    (a submodule)."""
    if "--submodule" in args or len(args) < 2:
        return None
    if args[0] == "split":
        return args[1]
    for i, arg in enumerate(args[:-1]):
        if arg == "--set" and args[i + 1].startswith("graph.input="):
            return args[i + 1].split("=", 1)[1]
    ini = args[1]
    parser = configparser.ConfigParser(interpolation=None, comment_prefixes=("#",),
                                       inline_comment_prefixes=None, strict=False)
    parser.read(os.path.join(cwd or "", ini), encoding="utf-8")
    if not parser.has_option("graph", "input"):
        return None
    return os.path.join(os.path.dirname(ini), parser.get("graph", "input"))


def verify_written_splits(args, stdout, cwd, env):
    """`fxsplit verify` of every file the json output reported writing
    (paths as printed: relative to @cwd)."""
    original = split_input(args, cwd)
    written = re.findall(r"(?m)^\[[^\]]*\] json: wrote (.+)$", stdout)
    for path in written if original else []:
        check = subprocess.run(WRAPPER + [BIN, "verify", "--quiet", original, path], cwd=cwd,
                               env=env, text=True, capture_output=True, timeout=120)
        if check.returncode != 0:
            raise AssertionError(f"fxsplit {' '.join(args)}: the split it wrote does not "
                                 f"verify: {check.stderr.strip()}")


class FxsplitTestCase(unittest.TestCase):
    """A test case with a scratch directory (self.tmp) per test."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="fxsplit-it-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def write(self, name, text):
        p = self.path(name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        return p

    def files(self):
        """Every file under the scratch directory, relative, sorted."""
        found = []
        for root, _, names in os.walk(self.tmp):
            found += [os.path.relpath(os.path.join(root, n), self.tmp) for n in names]
        return sorted(found)

    def assert_ok(self, result):
        self.assertEqual(result.returncode, 0,
                         f"exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}")

    def assert_fails(self, result, code, *parts):
        """Exit status @code and one 'fxsplit: ' line on stderr holding @parts."""
        self.assertEqual(result.returncode, code,
                         f"exit {result.returncode}, expected {code}\nstderr: {result.stderr}")
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, f"expected one line on stderr, got: {result.stderr!r}")
        self.assertTrue(lines[0].startswith("fxsplit: "), lines[0])
        for part in parts:
            self.assertIn(part, lines[0])
        self.assertEqual(result.stdout, "")
        return lines[0]


def main():
    unittest.main(verbosity=2)
