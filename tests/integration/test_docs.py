"""docs/writing-plugins.md as a new user reads it: its cut.c, built with
the page's own compile line (with -Werror, against this build tree through
fxsplit-uninstalled.pc), and its pipeline.ini, run by the built fxsplit,
give the result the page promises; and the page's code is the code of
examples/custom-partitioner/, so the two cannot drift apart."""
import json
import os
import re
import shutil
import subprocess
import unittest

from fxtest import BUILD_ROOT, SOURCE_ROOT, FxsplitTestCase, fxsplit, main

PAGE = os.path.join(SOURCE_ROOT, "docs", "writing-plugins.md")
EXAMPLE = os.path.join(SOURCE_ROOT, "examples", "custom-partitioner")


def page_block(text, section, language):
    """The first ```LANGUAGE block after the heading starting with SECTION."""
    start = text.index("\n## " + section)
    m = re.compile(r"^```" + language + r"\n(.*?)^```$", re.S | re.M).search(text, start)
    return m.group(1)


class TestWritingPlugins(FxsplitTestCase):
    def setUp(self):
        super().setUp()
        with open(PAGE, encoding="utf-8") as f:
            self.page = f.read()
        self.code = page_block(self.page, "2.", "c")
        self.make = page_block(self.page, "4.", "make")
        self.ini = page_block(self.page, "6.", "ini")

    def test_page_code_builds_and_runs_as_documented(self):
        work = self.path("custom-partitioner")
        os.makedirs(work)
        shutil.copytree(os.path.join(SOURCE_ROOT, "examples", "graphs"), self.path("graphs"))
        self.write("custom-partitioner/cut.c", self.code)
        self.write("custom-partitioner/Makefile", self.make)
        self.write("custom-partitioner/pipeline.ini", self.ini)
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(BUILD_ROOT, "meson-uninstalled"))
        r = subprocess.run(["make", "-C", work, "CC=cc -Werror"], env=env, text=True,
                           capture_output=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("warning", r.stderr)

        r = fxsplit("run", "pipeline.ini", cwd=work)
        self.assert_ok(r)
        self.assertEqual(r.stderr, "")
        self.assertIn("[output json] json: wrote small-cnn.cut.split.json", r.stdout)
        with open(os.path.join(work, "small-cnn.cut.split.json"), encoding="utf-8") as f:
            parts = [p["nodes"] for p in json.load(f)["partitions"]]
        # what the page says the pipeline gives
        promised = re.search(r"writes `small-cnn\.cut\.split\.json` with (\d+) partitions",
                             self.page)
        self.assertIsNotNone(promised, "the page no longer states the pipeline's result")
        self.assertEqual(len(parts), int(promised.group(1)))
        self.assertEqual(parts[0], ["stem_0", "stem_1", "stem_2"])

    def test_page_code_is_the_example(self):
        for name, block in (("cut.c", self.code), ("pipeline.ini", self.ini)):
            with self.subTest(file=name):
                with open(os.path.join(EXAMPLE, name), encoding="utf-8") as f:
                    self.assertEqual(block, f.read())


if __name__ == "__main__":
    if not shutil.which("pkg-config") or not shutil.which("make") or not shutil.which("cc"):
        raise unittest.SkipTest("pkg-config, make and cc are needed")
    main()
