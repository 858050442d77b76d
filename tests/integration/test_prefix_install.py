"""What a packager does: configure the source tree with -Dtests=disabled
-Dbench=disabled (CUnit is then never looked for) and a prefix of its own,
build, install, and run the installed fxsplit with no LD_LIBRARY_PATH and
no plugin path: it finds libfxsplit.so through its RUNPATH and the built-in
plugins in the installed plugin directory.  Suite slow: it builds the
project once more."""
import json
import os
import subprocess

from fxtest import SMALL_CNN, SOURCE_ROOT, FxsplitTestCase, main


class TestPrefixInstall(FxsplitTestCase):
    def step(self, args, **kwargs):
        r = subprocess.run(args, text=True, capture_output=True, timeout=1500, **kwargs)
        self.assertEqual(r.returncode, 0, f"{' '.join(args)}:\n{r.stdout}\n{r.stderr}")
        return r

    def test_installed_fxsplit_runs_alone(self):
        build, prefix = self.path("build"), self.path("prefix")
        self.step(["meson", "setup", build, SOURCE_ROOT, "--prefix", prefix,
                   "-Dtests=disabled", "-Dbench=disabled"])
        with open(os.path.join(build, "meson-logs", "meson-log.txt"), encoding="utf-8") as f:
            log = f.read()
        self.assertIn("Dependency cunit skipped: feature tests disabled", log)
        self.step(["ninja", "-C", build, "-j", os.environ.get("FXSPLIT_JOBS", "2")])
        self.step(["meson", "install", "-C", build, "--no-rebuild", "--quiet"])

        env = {k: v for k, v in os.environ.items()
               if k not in ("LD_LIBRARY_PATH", "FXSPLIT_PLUGIN_PATH",
                            "FXSPLIT_NO_DEFAULT_PLUGIN_DIR")}
        fxsplit = os.path.join(prefix, "bin", "fxsplit")
        out = self.path("out.split.json")
        r = self.step([fxsplit, "split", SMALL_CNN, "-p", "modulo", "-o", "partitions=1",
                       "-O", "json:" + out], env=env, cwd=self.tmp)
        self.assertEqual(r.stderr, "")
        with open(out, encoding="utf-8") as f:
            self.assertEqual(len(json.load(f)["partitions"]), 1)
        r = self.step([fxsplit, "plugins", "modulo"], env=env)
        self.assertIn(os.path.realpath(prefix), os.path.realpath(r.stdout.split("file: ")[1].split()[0]))


if __name__ == "__main__":
    main()
