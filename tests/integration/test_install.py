"""`meson install` into a scratch DESTDIR, then what an outsider does with
it: compile every public header alone, build examples/custom-partitioner
with pkg-config alone, install it with `make install`, and run a pipeline
with the installed fxsplit."""
import glob
import json
import os
import re
import shutil
import subprocess
import unittest

from fxtest import BUILD_ROOT, SOURCE_ROOT, FxsplitTestCase, main


def run(args, **kwargs):
    return subprocess.run(args, text=True, capture_output=True, timeout=300, **kwargs)


class TestInstall(FxsplitTestCase):
    def setUp(self):
        super().setUp()
        self.destdir = self.path("destdir")
        r = run(["meson", "install", "-C", BUILD_ROOT, "--no-rebuild", "--quiet",
                 "--destdir", self.destdir])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        options = json.loads(run(["meson", "introspect", BUILD_ROOT, "--buildoptions"]).stdout)
        values = {o["name"]: o["value"] for o in options}
        self.prefix = values["prefix"]
        self.libdir = os.path.join(self.prefix, values["libdir"])
        self.root = self.destdir + self.prefix
        self.root_libdir = self.destdir + self.libdir
        # fxsplit.pc is relocatable (its prefix is relative to the file), so
        # PKG_CONFIG_PATH alone makes the DESTDIR tree a usable prefix.
        self.pkg_env = dict(os.environ,
                            PKG_CONFIG_PATH=os.path.join(self.root_libdir, "pkgconfig"))
        self.installed_plugins = self.root_libdir + "/fxsplit/plugins"

    def pkg_config(self, *args):
        r = run(["pkg-config", *args, "fxsplit"], env=self.pkg_env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.split()

    def test_installed_files(self):
        for name in ("modulo.so", "map.so", "json.so"):
            self.assertTrue(os.path.isfile(os.path.join(self.installed_plugins, name)))
        self.assertFalse(glob.glob(os.path.join(self.installed_plugins, "*fail*")),
                         "test-only plugins must not be installed")
        self.assertTrue(os.access(os.path.join(self.root, "bin", "fxsplit"), os.X_OK))
        [pluginsdir] = self.pkg_config("--variable=pluginsdir")
        self.assertEqual(os.path.realpath(pluginsdir), os.path.realpath(self.installed_plugins))
        for name in ("atomic-file.h", "threads.h"):
            self.assertFalse(os.path.exists(os.path.join(self.root, "include", "fxsplit", name)),
                             f"{name} is internal")
        self.assertTrue(os.path.isfile(os.path.join(self.root, "include", "fxsplit", "version.h")))

    def test_no_build_path_in_the_library(self):
        """No path of the source or build tree is compiled into
        libfxsplit.so (`strings build/core/libfxsplit.so | grep "$PWD"`
        prints nothing): an uninstalled fxsplit finds its plugins through
        the marker file beside it, which is never installed."""
        source = os.path.realpath(SOURCE_ROOT).encode()
        for lib in (os.path.join(BUILD_ROOT, "core", "libfxsplit.so"),
                    os.path.join(self.root_libdir, "libfxsplit.so.0")):
            with open(lib, "rb") as f:
                self.assertNotIn(source, f.read(), lib)
        self.assertFalse(glob.glob(os.path.join(self.installed_plugins, "fxsplit-uninstalled*")),
                         "the build tree's marker must not be installed")

    def test_uninstalled_plugins_are_found_by_the_marker(self):
        """A build tree anywhere (here a copy of fxsplit in DIR/cli/ with
        DIR/plugins/ holding modulo.so and the marker) uses DIR/plugins/
        without environment variables; without the marker it does not."""
        tree = self.path("tree")
        os.makedirs(os.path.join(tree, "cli"))
        os.makedirs(os.path.join(tree, "plugins"))
        fxsplit = os.path.join(tree, "cli", "fxsplit")
        shutil.copy(os.path.join(BUILD_ROOT, "cli", "fxsplit"), fxsplit)
        shutil.copy(os.path.join(BUILD_ROOT, "plugins", "modulo.so"),
                    os.path.join(tree, "plugins"))
        env = {k: v for k, v in os.environ.items()
               if k not in ("FXSPLIT_PLUGIN_PATH", "FXSPLIT_NO_DEFAULT_PLUGIN_DIR")}
        env["LD_LIBRARY_PATH"] = os.path.join(BUILD_ROOT, "core")
        marker = os.path.join(tree, "plugins", "fxsplit-uninstalled-plugins")
        open(marker, "w").close()
        r = run([fxsplit, "plugins", "modulo"], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"file: {os.path.realpath(tree)}/plugins/modulo.so", r.stdout)
        os.remove(marker)
        r = run([fxsplit, "plugins", "modulo"], env=env)
        self.assertNotIn(os.path.realpath(tree), r.stdout + r.stderr)

    def test_installed_fxsplit_finds_its_library(self):
        """The installed fxsplit's RUNPATH is the installed libdir, where
        libfxsplit.so.0 is (tests/integration/test_prefix_install.py runs an
        installed fxsplit without LD_LIBRARY_PATH)."""
        r = run(["readelf", "-d", os.path.join(self.root, "bin", "fxsplit")])
        self.assertEqual(r.returncode, 0, r.stderr)
        runpath = re.search(r"\(RUNPATH\)\s+Library runpath: \[(.*)\]", r.stdout)
        self.assertIsNotNone(runpath, r.stdout)
        self.assertEqual(runpath.group(1).split(":"), [self.libdir])
        self.assertTrue(os.path.isfile(os.path.join(self.root_libdir, "libfxsplit.so.0")))

    def test_headers_compile_alone(self):
        cflags = self.pkg_config("--cflags")
        headers = sorted(glob.glob(os.path.join(self.root, "include", "fxsplit", "*.h")))
        self.assertIn("partitioner.h", [os.path.basename(h) for h in headers])
        for header in headers:
            name = os.path.basename(header)
            with self.subTest(header=name):
                # (a declaration of its own: api.h alone declares nothing,
                # and an empty file is not ISO C)
                source = self.write(name + ".c", f"#include <fxsplit/{name}>\n"
                                    "typedef int fxs_header_test;\n")
                r = run(["cc", "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", *cflags,
                         "-c", source, "-o", os.devnull])
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_custom_partitioner(self):
        examples = self.path("examples")
        shutil.copytree(os.path.join(SOURCE_ROOT, "examples", "custom-partitioner"),
                        os.path.join(examples, "custom-partitioner"))
        shutil.copytree(os.path.join(SOURCE_ROOT, "examples", "graphs"),
                        os.path.join(examples, "graphs"))
        work = os.path.join(examples, "custom-partitioner")
        r = run(["make", "-C", work, "CFLAGS=-O2 -Werror"], env=self.pkg_env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # pluginsdir is inside the scratch prefix: no DESTDIR needed.
        r = run(["make", "-C", work, "install"], env=self.pkg_env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.installed_plugins, "cut.so")))

        fxsplit = os.path.join(self.root, "bin", "fxsplit")
        # The installed binary's built-in plugin directory and RUNPATH are the
        # real prefix's: point them at the DESTDIR's instead.  The pipeline
        # itself finds cut.so through its plugin_dir.
        env = dict(os.environ, LD_LIBRARY_PATH=self.root_libdir,
                   FXSPLIT_PLUGIN_PATH=self.installed_plugins, FXSPLIT_NO_DEFAULT_PLUGIN_DIR="1")
        r = run([fxsplit, "run", "pipeline.ini"], cwd=work, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "[output json] json: wrote small-cnn.cut.split.json\n")
        with open(os.path.join(work, "small-cnn.cut.split.json"), encoding="utf-8") as f:
            parts = [p["nodes"] for p in json.load(f)["partitions"]]
        self.assertEqual(parts[0], ["stem_0", "stem_1", "stem_2"])
        self.assertEqual(len(parts), 3)
        # The installed copy is found by name too, and lists its options.
        r = run([fxsplit, "plugins", "cut"], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("after (string, required)", r.stdout)


if __name__ == "__main__":
    if not shutil.which("pkg-config") or not shutil.which("make"):
        raise unittest.SkipTest("pkg-config and make are needed")
    main()
