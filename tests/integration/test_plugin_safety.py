"""The plugin that was checked is the plugin that runs, and a misbehaving
plugin is named (issue 16, sections 3 and 4): one concrete file per plugin,
opened once, never a .la file; --verbose names it; graphviz paths are
relative to the pipeline file; plugin directories are checked and a
shadowed module is visible; a callback that stores no id, a descriptor
with bad pointers and hostile error texts are one short, escaped line."""
import os
import shutil
import stat

from fxtest import BUILD_ROOT, DOCSTRING, TEST_PLUGINS, FxsplitTestCase, fxsplit, main

BUILTIN = os.path.join(BUILD_ROOT, "plugins")
HOSTILE = os.path.join(TEST_PLUGINS, "hostile")
# a short line: the message cap of docs/cli.md plus its prefix
SHORT = 5000
# what --verbose says when the halves test plugin split docstring.json
HALVES_RAN = "(2 partitions)"


class PluginFile(FxsplitTestCase):
    def copy(self, plugin, *dest):
        os.makedirs(os.path.dirname(self.path(*dest)), exist_ok=True)
        shutil.copy(plugin, self.path(*dest))
        return self.path(*dest)

    def test_path_without_suffix_runs_exactly_that_file(self):
        # sub/x (halves) and sub/x.so (modulo) side by side: -p ./sub/x is sub/x.
        self.copy(os.path.join(TEST_PLUGINS, "halves.so"), "sub", "x")
        self.copy(os.path.join(BUILTIN, "modulo.so"), "sub", "x.so")
        r = fxsplit("split", DOCSTRING, "-p", "./sub/x", "--verbose", cwd=self.tmp)
        self.assert_ok(r)
        self.assertIn(HALVES_RAN, r.stderr)  # not modulo's 3
        self.assertIn("[partitioner] halves: loaded from " + self.path("sub", "x") + "\n",
                      r.stderr)
        self.assertNotIn("modulo", r.stderr)
        r = fxsplit("plugins", "./sub/x", cwd=self.tmp)
        self.assertTrue(r.stdout.startswith("halves 0 (partitioner)"), r.stdout)
        # in a pipeline, relative to the pipeline file
        self.write("sub/p.ini", f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = ./x\n")
        r = fxsplit("run", "sub/p.ini", "-v", cwd=self.tmp)
        self.assert_ok(r)
        self.assertIn("[partitioner] halves: loaded from " + self.path("sub", "x") + "\n",
                      r.stderr)
        # without sub/x, the rule's second choice: sub/x.so
        os.unlink(self.path("sub", "x"))
        r = fxsplit("split", DOCSTRING, "-p", "./sub/x", "-v", cwd=self.tmp)
        self.assert_ok(r)
        self.assertIn("[partitioner] modulo: loaded from " + self.path("sub", "x.so"), r.stderr)

    def test_la_file_never_loads_anything(self):
        # sub/y is a genuine plugin; sub/y.la names another library (modulo
        # in other/), which libltdl used to load instead.
        self.copy(os.path.join(TEST_PLUGINS, "halves.so"), "sub", "y")
        self.copy(os.path.join(BUILTIN, "modulo.so"), "other", "y.so")
        la = ("# y.la - a libtool library file\ndlname='y.so'\nlibrary_names='y.so'\n"
              f"old_library=''\ninstalled=yes\nlibdir='{self.path('other')}'\n")
        self.write("sub/y.la", la)
        r = fxsplit("split", DOCSTRING, "-p", "./sub/y", "-v", cwd=self.tmp)
        self.assert_ok(r)
        self.assertIn(HALVES_RAN, r.stderr)  # not modulo's 3
        self.assertIn("[partitioner] halves: loaded from " + self.path("sub", "y") + "\n",
                      r.stderr)
        self.assertNotIn("modulo", r.stderr + r.stdout)
        # the .la file itself is refused as not a shared object
        os.unlink(self.path("sub", "y"))
        self.assert_fails(fxsplit("split", DOCSTRING, "-p", "./sub/y.la", cwd=self.tmp), 3,
                          "sub/y.la: cannot load: not a shared object")
        self.assert_fails(fxsplit("split", DOCSTRING, "-p", "./sub/y", cwd=self.tmp), 3,
                          "sub/y' does not exist")


class GraphvizPath(FxsplitTestCase):
    SVG = '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"></svg>'

    def script(self, path, body):
        with open(path, "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, stat.S_IRWXU)

    def test_relative_graphviz_is_relative_to_the_pipeline_file(self):
        a, b = self.path("a"), self.path("b")
        os.makedirs(a)
        os.makedirs(b)
        self.script(os.path.join(a, "g.sh"), f"cat >/dev/null\necho '{self.SVG}'\n")
        marker = self.path("marker")
        self.script(os.path.join(b, "g.sh"), f"touch '{marker}'\necho '{self.SVG}'\n")
        self.write("a/p.ini", f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = modulo\n"
                   "[output dot]\nplugin = dot\npath = out.dot\nrender = svg\n"
                   "graphviz = ./g.sh\n")
        r = fxsplit("run", os.path.join(a, "p.ini"), cwd=b)
        self.assert_ok(r)
        self.assertFalse(os.path.exists(marker), "the current directory's g.sh ran")
        with open(os.path.join(a, "out.svg"), encoding="utf-8") as f:
            self.assertEqual(f.read().strip(), self.SVG)
        # --set is relative to the current directory, as docs/cli.md says
        r = fxsplit("run", os.path.join(a, "p.ini"), "--set", "output dot.graphviz=./g.sh",
                    cwd=b)
        self.assert_ok(r)
        self.assertTrue(os.path.exists(marker))


class PluginDirs(FxsplitTestCase):
    def test_nonexistent_plugin_dir_is_one_error_both_ways(self):
        missing = self.path("nonexistent")
        self.assert_fails(fxsplit("split", DOCSTRING, "-p", "modulo", "--plugin-dir", missing),
                          1, f"--plugin-dir: '{missing}' is not a directory")
        self.assert_fails(fxsplit("plugins", "-P", missing), 1,
                          f"--plugin-dir: '{missing}' is not a directory")
        self.write("p.ini", f"[graph]\ninput = {DOCSTRING}\nplugin_dir = nonexistent\n"
                   "[partitioner]\nplugin = modulo\n")
        self.assert_fails(fxsplit("run", self.path("p.ini")), 1,
                          f"plugin_dir: '{missing}' is not a directory")

    def test_shadowed_builtin_is_a_warning_naming_both_files(self):
        os.makedirs(self.path("mine"))
        mine = self.path("mine", "modulo.so")
        shutil.copy(os.path.join(TEST_PLUGINS, "halves.so"), mine)
        builtin = os.path.join(BUILTIN, "modulo.so")
        # the built-ins where a user has them: the default directory (here
        # the build tree's), after the pipeline's plugin_dir
        env = {"FXSPLIT_PLUGIN_PATH": "", "FXSPLIT_NO_DEFAULT_PLUGIN_DIR": "0"}
        self.write("p.ini", f"[graph]\ninput = {DOCSTRING}\nplugin_dir = mine\n"
                   "[partitioner]\nplugin = modulo\n")
        r = fxsplit("run", self.path("p.ini"), env=env)
        self.assert_ok(r)
        self.assertEqual(r.stderr, f"fxsplit: warning: [partitioner] halves: {mine} (plugin_dir) "
                         f"shadows {builtin} (build tree), which is not used\n")
        # --plugin-dir before FXSPLIT_PLUGIN_PATH
        r = fxsplit("split", DOCSTRING, "-p", "modulo", "-P", self.path("mine"))
        self.assert_ok(r)
        self.assertIn(f"fxsplit: warning: [partitioner] halves: {mine} (--plugin-dir) shadows "
                      f"{builtin} (FXSPLIT_PLUGIN_PATH), which is not used\n", r.stderr)
        r = fxsplit("plugins", "modulo", "-P", self.path("mine"))
        self.assertIn(f"  shadows: {builtin} (FXSPLIT_PLUGIN_PATH), found before it in "
                      "--plugin-dir\n", r.stdout)
        # --quiet drops the warning; a path names one file and hides nothing
        self.assertEqual(fxsplit("split", DOCSTRING, "-p", "modulo", "-P", self.path("mine"),
                                 "-q").stderr, "")
        self.assertEqual(fxsplit("split", DOCSTRING, "-p", mine, "-P", self.path("mine"))
                         .stderr, "")


class MisbehavingPlugins(FxsplitTestCase):
    def assert_short_line(self, r, code, *parts):
        line = self.assert_fails(r, code, *parts)
        self.assertLess(len(r.stderr), SHORT)
        self.assertNotIn("\x1b", r.stderr)
        self.assertNotIn("\r", r.stderr)
        self.assertNotIn("CRITICAL", r.stderr)
        self.assertNotIn("(null)", r.stderr)
        return line

    def test_callback_that_stores_no_id_is_named(self):
        r = fxsplit("split", DOCSTRING, "-p", os.path.join(HOSTILE, "unset-id.so"))
        self.assert_short_line(r, 3, "node 'add': partitioner 'unset-id': split_callback "
                               "returned TRUE without storing a partition id")

    def test_bad_descriptor_pointers_are_refused(self):
        for name, what in (("bad-options", "the option table (0x1)"),
                           ("bad-name", "the name (0x1)")):
            path = os.path.join(HOSTILE, name + ".so")
            self.assert_short_line(fxsplit("plugins", path), 3,
                                   f"{path}: broken descriptor: {what} does not point")
            args = ["-p", path] if name == "bad-options" else ["-p", "modulo", "-O",
                                                                f"{path}:x"]
            self.assert_short_line(fxsplit("split", DOCSTRING, *args, cwd=self.tmp), 3,
                                   f"{path}: broken descriptor: {what}")
        # the listing reports them, one line each, and goes on (exit 0)
        r = fxsplit("plugins", "-P", HOSTILE)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("unset-id 0 (partitioner)", r.stdout)
        self.assertIn("modulo 1.0 (partitioner)", r.stdout)
        self.assertIn("bad-options.so: broken descriptor: the option table (0x1)", r.stderr)
        self.assertIn("bad-name.so: broken descriptor: the name (0x1)", r.stderr)

    def test_plugin_texts_are_escaped(self):
        plugin = os.path.join(HOSTILE, "bad-message.so")
        r = fxsplit("split", DOCSTRING, "-p", plugin)
        self.assert_short_line(r, 3, "node 'add': partitioner 'bad-message': "
                               "\\x1b[2J\\x1b[31mred\\r\\nfxsplit: all good\\u009b[1m\\x9b\\xff"
                               "\\x7f\\u202e")
        for hook in ("callback", "init"):
            r = fxsplit("split", DOCSTRING, "-p", plugin, "-o", "message=null", "-o",
                        f"hook={hook}")
            self.assert_short_line(r, 3 if hook == "callback" else 1,
                                   "bad-message", "(plugin gave no message)")
            r = fxsplit("split", DOCSTRING, "-p", plugin, "-o", "message=huge", "-o",
                        f"hook={hook}")
            self.assert_short_line(r, 3 if hook == "callback" else 1,
                                   "xxxxxxxx ... (", " bytes cut)")
        # the listing shows its description and help escaped
        r = fxsplit("plugins", plugin)
        self.assert_ok(r)
        self.assertNotIn("\x1b", r.stdout)
        self.assertIn("test: \\x1b[1mhostile\\x1b[0m error messages\\nfxsplit: fake line\n",
                      r.stdout)
        self.assertNotIn("\nfxsplit: fake", r.stdout)

    def test_huge_pipeline_value_is_cut(self):
        value = "y" * (10 << 20)
        self.write("p.ini", f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = modulo\n"
                   f"partitions = {value}\n")
        r = fxsplit("run", self.path("p.ini"))
        line = self.assert_short_line(r, 1, "partitions: expected an integer, got 'yyyy",
                                      " bytes cut)")
        self.assertTrue(line.startswith(f"fxsplit: {self.path('p.ini')}:5: "), line[:200])


if __name__ == "__main__":
    main()
