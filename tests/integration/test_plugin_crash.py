"""A plugin that crashes, aborts, overflows its stack or calls exit()
inside a hook: the command says which plugin, hook and node in one line,
removes its temporaries, leaves old outputs as they were, and never
reports success (docs/cli.md, "Security and data safety")."""
import os
import signal

from fxtest import DOCSTRING, TEST_PLUGINS, FxsplitTestCase, fxsplit, main

CRASH_PARTITIONER = os.path.join(TEST_PLUGINS, "crash-partitioner.so")
CRASH_OUTPUT = os.path.join(TEST_PLUGINS, "crash-output.so")
OLD = "old contents\n"


class TestPluginCrash(FxsplitTestCase):
    def setUp(self):
        super().setUp()
        self.out = self.write("out.json", OLD)
        self.inode = os.stat(self.out).st_ino

    def tearDown(self):
        # the old output is untouched and nothing else is left
        self.assertEqual(os.stat(self.out).st_ino, self.inode)
        with open(self.out, encoding="utf-8") as f:
            self.assertEqual(f.read(), OLD)
        self.assertEqual(self.files(), ["out.json"])

    def partitioner(self, how):
        return fxsplit("split", DOCSTRING, "-p", "crash-partitioner", "-o", f"how={how}",
                       "-O", f"json:{self.out}")

    def output(self, how):
        return fxsplit("split", DOCSTRING, "-p", "modulo", "-O", f"json:{self.out}",
                       "-O", f"crash-output:{self.path('big.bin')}",
                       "--output-option", f"crash-output.how={how}")

    def assert_line(self, r, returncode, line):
        self.assertEqual(r.returncode, returncode, r.stderr)
        self.assertEqual(r.stderr.splitlines(), [line])
        self.assertEqual(r.stdout, "")

    def test_segfault_in_split_callback(self):
        self.assert_line(self.partitioner("segv"), -signal.SIGSEGV,
                         f"fxsplit: plugin 'crash-partitioner' ({CRASH_PARTITIONER}) crashed in "
                         'split_callback on node "linear": Segmentation fault')

    def test_abort_in_split_callback(self):
        self.assert_line(self.partitioner("abort"), -signal.SIGABRT,
                         f"fxsplit: plugin 'crash-partitioner' ({CRASH_PARTITIONER}) crashed in "
                         'split_callback on node "linear": Aborted')

    def test_stack_overflow_in_split_callback(self):
        self.assert_line(self.partitioner("recurse"), -signal.SIGSEGV,
                         f"fxsplit: plugin 'crash-partitioner' ({CRASH_PARTITIONER}) crashed in "
                         'split_callback on node "linear": Segmentation fault')

    def test_segfault_in_write_removes_temporaries(self):
        self.assert_line(self.output("segv"), -signal.SIGSEGV,
                         f"fxsplit: plugin 'crash-output' ({CRASH_OUTPUT}) crashed in write: "
                         "Segmentation fault")

    def test_exit_in_split_callback_is_a_failure(self):
        self.assert_line(self.partitioner("exit"), 3,
                         f"fxsplit: plugin 'crash-partitioner' ({CRASH_PARTITIONER}) called "
                         'exit() in split_callback on node "linear": the command did not finish '
                         "and wrote no output")

    def test_exit_in_write_is_a_failure_and_removes_temporaries(self):
        self.assert_line(self.output("exit"), 3,
                         f"fxsplit: plugin 'crash-output' ({CRASH_OUTPUT}) called exit() in "
                         "write: the command did not finish and wrote no output")


if __name__ == "__main__":
    main()
