"""The fxsplit command line: help, version, usage errors, `plugins` and
`inspect`."""
import json
import os

from fxtest import DOCSTRING, SMALL_CNN, TEST_PLUGINS, FxsplitTestCase, fxsplit, main


class TestCommandLine(FxsplitTestCase):
    def test_version(self):
        r = fxsplit("--version")
        self.assert_ok(r)
        self.assertRegex(r.stdout, r"^fxsplit \d+\.\d+\.\d+ \(plugin ABI 1\.1, graph format 1\)\n$")

    def test_help(self):
        r = fxsplit("--help")
        self.assert_ok(r)
        for command in ("run", "split", "plugins", "inspect"):
            self.assertIn(f"  {command} ", r.stdout)
        expected = {"run": "--set", "split": "--partitioner", "plugins": "--plugin-dir",
                    "inspect": "--quiet"}
        for command, option in expected.items():
            r = fxsplit(command, "--help")
            self.assert_ok(r)
            self.assertIn(f"fxsplit {command}", r.stdout)
            self.assertIn(option, r.stdout)

    def test_usage_errors(self):
        r = fxsplit()
        self.assertEqual(r.returncode, 1)
        self.assertIn("Usage: fxsplit COMMAND", r.stderr)
        self.assert_fails(fxsplit("frobnicate"), 1, "unknown command 'frobnicate'")
        self.assert_fails(fxsplit("run", "--bogus"), 1, "Unknown option --bogus")
        self.assert_fails(fxsplit("run"), 1, "run: expected one pipeline file")
        self.assert_fails(fxsplit("split", DOCSTRING), 1, "--partitioner NAME is required")
        self.assert_fails(fxsplit("run", "a.ini", "--set", "nodot=1"), 1,
                          "--set 'nodot=1': expected GROUP.KEY=VALUE")
        self.assert_fails(fxsplit("split", DOCSTRING, "-p", "modulo", "--option", "novalue"),
                          1, "--option 'novalue': expected KEY=VALUE")

    def test_plugins_list(self):
        r = fxsplit("plugins")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("modulo 1.0 (partitioner): round-robin", r.stdout)
        self.assertIn("map 1.1 (partitioner)", r.stdout)
        self.assertIn("json 1.0 (output)", r.stdout)
        self.assertIn("    partitions (int, default 3): ", r.stdout)
        self.assertIn("    path (output-path, required): ", r.stdout)
        # Broken test plugins are reported, one line each, and do not stop the listing.
        self.assertIn("abi-major.so: built for plugin ABI 2.0", r.stderr)
        for line in r.stderr.splitlines():
            self.assertTrue(line.startswith("fxsplit: warning: "), line)
        # --quiet drops the warnings; --verbose adds the search path.
        self.assertEqual(fxsplit("plugins", "--quiet").stderr, "")
        r = fxsplit("plugins", "--verbose")
        self.assertIn("search path:\n", r.stdout)
        self.assertIn("(FXSPLIT_PLUGIN_PATH)", r.stdout)

    def test_plugins_one(self):
        r = fxsplit("plugins", "map")
        self.assert_ok(r)
        self.assertTrue(r.stdout.startswith("map 1.1 (partitioner): "))
        self.assertIn("built for plugin ABI 1.1", r.stdout)
        self.assertIn("    default (int, unset by default): ", r.stdout)
        by_path = fxsplit("plugins", os.path.join(TEST_PLUGINS, "halves.so"))
        self.assert_ok(by_path)
        self.assertIn("halves 0 (partitioner)", by_path.stdout)
        self.assert_fails(fxsplit("plugins", "nope"), 3, "unknown plugin 'nope'", "searched: ")

    def test_plugin_dir_option(self):
        # Only --plugin-dir, nothing from the environment: the test plugins only.
        env = {"FXSPLIT_PLUGIN_PATH": ""}
        r = fxsplit("plugins", "--plugin-dir", TEST_PLUGINS, "--quiet", env=env)
        self.assert_ok(r)
        self.assertIn("halves 0", r.stdout)
        self.assertNotIn("modulo", r.stdout)
        r = fxsplit("plugins", "modulo", env=env)
        self.assert_fails(r, 3, "unknown plugin 'modulo'",
                          "the plugin search path is empty")

    def test_inspect(self):
        r = fxsplit("inspect", DOCSTRING)
        self.assert_ok(r)
        self.assertIn("10 nodes, 2 inputs, 4 attributes", r.stdout)
        self.assertIn("  call_module    2\n", r.stdout)
        self.assertIn("  _operator.add                  2\n", r.stdout)
        self.assertIn("  parameter  3, 148 B\n", r.stdout)
        self.assertIn("inputs:\n  x [3, 4] torch.float32\n  y [3, 4] torch.float32\n", r.stdout)
        self.assertIn("outputs:\n  add_1 [3, 5] torch.float32\n", r.stdout)
        r = fxsplit("inspect", SMALL_CNN)
        self.assert_ok(r)
        self.assertIn("  torch.relu                     3\n", r.stdout)

    def test_inspect_bad_graphs(self):
        self.assert_fails(fxsplit("inspect", self.path("missing.json")), 2, "missing.json")
        bad = self.write("bad.json", '{"format": "fxsplit-graph", "version": 1, "nodes": [\n')
        self.assert_fails(fxsplit("inspect", bad), 2, "bad.json:")
        wrong = self.write("wrong.json", json.dumps({"format": "fxsplit-graph", "version": 99,
                                                     "nodes": []}))
        self.assert_fails(fxsplit("inspect", wrong), 2, "wrong.json")


if __name__ == "__main__":
    main()
