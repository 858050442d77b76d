"""A plugin that crashes, aborts, overflows its stack or calls exit()
inside a hook: the command says which plugin, hook and node in one line,
removes its temporaries, leaves old outputs as they were, and never
reports success (docs/cli.md, "Security and data safety")."""
import os
import signal

from fxtest import DOCSTRING, TEST_PLUGINS, FxsplitTestCase, fxsplit, main

CRASH_PARTITIONER = os.path.join(TEST_PLUGINS, "crash-partitioner.so")
FAILING_OUTPUT = os.path.join(TEST_PLUGINS, "failing-output.so")
OLD = "old contents\n"
IN_CALLBACK = (f"fxsplit: plugin 'crash-partitioner' ({CRASH_PARTITIONER}) {{}} in split_callback "
               'on node "linear": {}')
IN_WRITE = f"fxsplit: plugin 'failing-output' ({FAILING_OUTPUT}) {{}} in write: {{}}"
NOT_FINISHED = "the command did not finish and wrote no output"


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

    def check(self, plugin, how, returncode, line):
        if plugin == "partitioner":
            r = fxsplit("split", DOCSTRING, "-p", "crash-partitioner", "-o", f"how={how}",
                        "-O", f"json:{self.out}")
        else:
            r = fxsplit("split", DOCSTRING, "-p", "modulo", "-O", f"json:{self.out}",
                        "-O", f"failing-output:{self.path('big.bin')}",
                        "--output-option", f"failing-output.how={how}")
        self.assertEqual(r.returncode, returncode, r.stderr)
        self.assertEqual(r.stderr.splitlines(), [line])
        self.assertEqual(r.stdout, "")

    def test_segfault_in_split_callback(self):
        self.check("partitioner", "segv", -signal.SIGSEGV,
                   IN_CALLBACK.format("crashed", "Segmentation fault"))

    def test_abort_in_split_callback(self):
        self.check("partitioner", "abort", -signal.SIGABRT, IN_CALLBACK.format("crashed", "Aborted"))

    def test_stack_overflow_in_split_callback(self):
        self.check("partitioner", "recurse", -signal.SIGSEGV,
                   IN_CALLBACK.format("crashed", "Segmentation fault"))

    def test_segfault_in_write_removes_temporaries(self):
        self.check("output", "segv", -signal.SIGSEGV, IN_WRITE.format("crashed", "Segmentation fault"))

    def test_exit_in_split_callback_is_a_failure(self):
        self.check("partitioner", "exit", 3, IN_CALLBACK.format("called exit()", NOT_FINISHED))

    def test_exit_in_write_is_a_failure_and_removes_temporaries(self):
        self.check("output", "exit", 3, IN_WRITE.format("called exit()", NOT_FINISHED))


if __name__ == "__main__":
    main()
