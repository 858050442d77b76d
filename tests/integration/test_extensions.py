"""A built-in output whose path has another format's extension gets one
warning line naming the INI's file:line; the run still succeeds and writes
the file where it was asked to."""
import os

from fxtest import SMALL_CNN, FxsplitTestCase, fxsplit, main


class TestOutputExtensions(FxsplitTestCase):
    def run_output(self, plugin, path, *extra):
        lines = ["[graph]", f"input = {SMALL_CNN}", "", "[partitioner]", "plugin = modulo",
                 "partitions = 1", "", "[output x]", f"plugin = {plugin}", *extra,
                 f"path = {path}", ""]
        ini = self.write("p.ini", "\n".join(lines))
        # the path line is the last one
        return fxsplit("run", ini, cwd=self.tmp), f"{ini}:{len(lines) - 1}: "

    def test_contradicting_extensions_warn(self):
        cases = [("dot", "x.json", [], ".dot or .gv"),
                 ("json", "x.dot", [], ".json"),
                 ("python", "x.txt", [], ".py"),
                 ("report", "x.html", ["format = csv"], ".csv"),
                 ("report", "x.csv", [], ".txt or .text")]
        for plugin, path, extra, expected in cases:
            with self.subTest(plugin=plugin, path=path):
                r, where = self.run_output(plugin, path, *extra)
                self.assert_ok(r)
                warnings = r.stderr.splitlines()
                self.assertEqual(len(warnings), 1, r.stderr)
                ext = os.path.splitext(path)[1]
                self.assertEqual(warnings[0], f"fxsplit: {where}[output x] {plugin}: warning: "
                                 f"path '{path}' ends in {ext}, not {expected}")
                self.assertTrue(os.path.isfile(self.path(path)))

    def test_matching_or_missing_extensions_are_quiet(self):
        cases = [("dot", "x.dot", []), ("dot", "x.gv", []), ("json", "x.split.json", []),
                 ("python", "x.py", []), ("report", "x.txt", []),
                 ("report", "x.html", ["format = html"]), ("json", "noextension", [])]
        for plugin, path, extra in cases:
            with self.subTest(plugin=plugin, path=path):
                r, _ = self.run_output(plugin, path, *extra)
                self.assert_ok(r)
                self.assertEqual(r.stderr, "")


if __name__ == "__main__":
    main()
