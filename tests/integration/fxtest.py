"""Shared helpers of the integration tests: run the fxsplit binary from the
build tree in a scratch directory, and check what it said and left behind.

Set FXSPLIT_TEST_WRAPPER (e.g. "valgrind -q --leak-check=full
--errors-for-leak-kinds=definite,indirect --error-exitcode=9") to run every
fxsplit command under a wrapper; a wrapper's own failure shows up as an
unexpected exit status."""
import os
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
    """Runs fxsplit with @args; returns the CompletedProcess (text)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(WRAPPER + [BIN, *args], cwd=cwd, env=full_env, text=True,
                          capture_output=True, timeout=120)


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
