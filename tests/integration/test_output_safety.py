"""Outputs never destroy what is already there (docs/cli.md, "Security and
data safety"): non-regular, linked and hard-linked destinations are
refused, modes and owners are kept, a failing commit restores every old
file, write errors keep their cause (exit 5), the listed signals remove
the temporaries, and files are synced before they appear."""
import os
import resource
import shutil
import signal
import stat
import subprocess
import time
import unittest

from fxtest import BIN, DOCSTRING, WRAPPER, FxsplitTestCase, fxsplit, main

ROOT = os.geteuid() == 0
NOBODY = 65534
OLD = "old contents\n"


class SafetyCase(FxsplitTestCase):
    def old_file(self, name, text=OLD):
        path = self.write(name, text)
        return path, os.stat(path)

    def assert_unchanged(self, path, before, text=OLD):
        after = os.lstat(path)
        self.assertEqual((after.st_ino, after.st_mode, after.st_uid), (before.st_ino,
                         before.st_mode, before.st_uid), path)
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), text)

    def assert_no_temporaries(self, top=None):
        hidden = [f for f in self.files() if os.path.basename(f).startswith(".")]
        self.assertEqual(hidden, [], "temporaries left behind")

    def split(self, *outputs, extra=(), user=None):
        args = ["split", DOCSTRING, "-p", "modulo"]
        for o in outputs:
            args += ["-O", o]
        if user is None:
            return fxsplit(*args, *extra)
        return subprocess.run(WRAPPER + [BIN, *args, *extra], text=True, capture_output=True,
                              timeout=120, user=user, group=user, extra_groups=[])


class TestDestinations(SafetyCase):
    def refused(self, path, *parts):
        r = self.split(f"json:{path}")
        self.assert_fails(r, 1, f"'{path}'", *parts)
        self.assert_no_temporaries()

    @unittest.skipUnless(ROOT, "creating a device node needs root")
    def test_character_device(self):
        dev = self.path("null")
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        self.refused(dev, "is a character device, not a regular file")
        self.assertTrue(stat.S_ISCHR(os.lstat(dev).st_mode))

    def test_dev_null(self):
        self.refused("/dev/null", "is a character device, not a regular file")
        self.assertTrue(stat.S_ISCHR(os.lstat("/dev/null").st_mode))

    def test_fifo(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        self.refused(fifo, "is a FIFO, not a regular file")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_directory(self):
        os.mkdir(self.path("dir"))
        self.refused(self.path("dir"), "is a directory")

    def test_symlink_is_refused_and_kept(self):
        target, before = self.old_file("target.json")
        link = self.path("link.json")
        os.symlink("target.json", link)
        self.refused(link, "is a symbolic link")
        self.assertEqual(os.readlink(link), "target.json")
        self.assert_unchanged(target, before)

    def test_hard_link_is_refused(self):
        first, before = self.old_file("first.json")
        second = self.path("second.json")
        os.link(first, second)
        self.refused(second, "has 2 hard links")
        self.assert_unchanged(first, before)

    @unittest.skipUnless(shutil.which("dot"), "Graphviz is not installed")
    def test_derived_file_refused_when_opened(self):
        # the dot output's picture is not an option's path: it is refused
        # when the output opens it (exit 5), and no output appears
        fifo = self.path("out.svg")
        os.mkfifo(fifo)
        r = self.split(f"dot:{self.path('out.dot')}", f"json:{self.path('out.json')}",
                       extra=["--output-option", "dot.render=svg"])
        self.assert_fails(r, 5, f"{fifo}: cannot write: it is a FIFO, not a regular file")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        self.assertEqual(self.files(), ["out.svg"])

    @unittest.skipUnless(ROOT, "giving a file to another user needs root")
    def test_mode_and_owner_are_kept(self):
        path, _ = self.old_file("out.json")
        os.chmod(path, 0o600)
        os.chown(path, NOBODY, NOBODY)
        self.assert_ok(self.split(f"json:{path}"))
        st = os.stat(path)
        self.assertEqual((stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid), (0o600, NOBODY, NOBODY))
        with open(path, encoding="utf-8") as f:
            self.assertIn("fxsplit-graph", f.read())


class TestAllOrNothing(SafetyCase):
    def second_rename_fails(self, user=None):
        os.mkdir(self.path("a"))
        os.mkdir(self.path("b"))
        a, a_before = self.old_file("a/out.json")
        b, b_before = self.old_file("b/out.py")
        if user is not None:
            for d in ("", "a", "b"):
                os.chown(self.path(d), user, user)
        # after both are staged, the second one's temporary disappears (as a
        # temp cleaner could do it): the json is renamed first, then the
        # python file cannot be
        r = self.split(f"json:{a}", f"python:{b}", f"failing-output:{self.path('s')}",
                       extra=["--output-option", f"failing-output.remove_temporaries={b}",
                              "--output-option", "failing-output.how=none"], user=user)
        self.assert_unchanged(a, a_before)
        self.assert_unchanged(b, b_before)
        self.assert_fails(r, 5, f"{b}: cannot write: cannot move the new file into place: "
                                "No such file or directory")
        self.assertEqual(self.files(), ["a/out.json", "b/out.py"])

    def test_second_rename_fails_first_is_restored(self):
        self.second_rename_fails()

    @unittest.skipUnless(ROOT, "running as another user needs root")
    def test_restored_without_a_hard_link(self):
        # uid 65534 may not hard-link root's old files (protected_hardlinks):
        # they are moved aside instead, and back
        self.second_rename_fails(user=NOBODY)

    def test_new_files_are_removed_when_a_later_one_fails(self):
        os.mkdir(self.path("b"))
        a = self.path("new.json")
        b, b_before = self.old_file("b/out.py")
        r = self.split(f"json:{a}", f"python:{b}", f"failing-output:{self.path('s')}",
                       extra=["--output-option", f"failing-output.remove_temporaries={b}",
                              "--output-option", "failing-output.how=none"])
        self.assertEqual(self.files(), ["b/out.py"])
        self.assert_unchanged(b, b_before)
        self.assert_fails(r, 5, f"{b}: cannot write")

    @unittest.skipUnless(ROOT, "running as another user needs root")
    def test_directory_made_unwritable_keeps_permission_denied(self):
        # as uid 65534 (root may write anywhere): the python file's
        # directory becomes read-only after every file is staged
        for d in ("", "a", "b"):
            if d:
                os.mkdir(self.path(d))
            os.chown(self.path(d), NOBODY, NOBODY)
        a, a_before = self.old_file("a/out.json")
        b, b_before = self.old_file("b/out.py")
        self.addCleanup(os.chmod, self.path("b"), 0o755)
        r = self.split(f"json:{a}", f"python:{b}", f"failing-output:{self.path('s')}",
                       extra=["--output-option", f"failing-output.lock_dir={self.path('b')}",
                              "--output-option", "failing-output.how=none"],
                       user=NOBODY)
        self.assert_unchanged(a, a_before)
        self.assert_unchanged(b, b_before)
        line = self.assert_fails(r, 5, f"{b}: cannot write", "Permission denied")
        # the temporary in the locked directory cannot go; the line says so
        left = [f for f in os.listdir(self.path("b")) if f.startswith(".out.py.")]
        self.assertEqual(len(left), 1, left)
        self.assertIn(f"its temporary file {self.path('b', left[0])} could not be removed", line)
        self.assertEqual([f for f in os.listdir(self.path("a")) if f.startswith(".")], [])


class TestWriteErrors(SafetyCase):
    @unittest.skipUnless(ROOT, "mounting a small file system needs root")
    def test_full_disk_says_no_space_exit_5(self):
        small = self.path("small")
        os.mkdir(small)
        mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small],
                               capture_output=True, text=True)
        if mount.returncode != 0:
            self.skipTest(f"cannot mount a tmpfs: {mount.stderr.strip()}")
        self.addCleanup(subprocess.run, ["umount", small])
        out, before = self.old_file("small/out.bin")
        r = self.split(f"failing-output:{out}", extra=["--output-option", "failing-output.how=none"])
        self.assert_fails(r, 5, f"{out}: cannot write: No space left on device")
        self.assert_unchanged(out, before)
        self.assertEqual(os.listdir(small), ["out.bin"])


def popen(args, **kwargs):
    env = dict(os.environ)
    return subprocess.Popen(WRAPPER + [BIN, *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


class TestSignals(SafetyCase):
    def temporaries(self):
        return [f for f in os.listdir(self.tmp) if f.startswith(".out.bin.")]

    def interrupted(self, sig):
        out, before = self.old_file("out.bin")
        # A signal ignored where the tests run (SIGHUP under nohup) stays ignored
        # in the command, as it should: give it the default one.
        proc = popen(["split", DOCSTRING, "-p", "modulo", "-O", f"failing-output:{out}",
                      "--output-option", "failing-output.how=block"],
                     preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
        self.addCleanup(proc.kill)
        deadline = time.monotonic() + 60
        while not any(os.path.getsize(self.path(t)) >= 2 << 20 for t in self.temporaries()):
            self.assertLess(time.monotonic(), deadline, "the write never started")
            self.assertIsNone(proc.poll(), proc.stderr.read() if proc.poll() is not None else "")
            time.sleep(0.02)
        proc.send_signal(sig)
        proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, -sig)
        self.assertEqual(self.temporaries(), [])
        self.assert_unchanged(out, before)

    def test_sigint(self):
        self.interrupted(signal.SIGINT)

    def test_sigterm(self):
        self.interrupted(signal.SIGTERM)

    def test_sighup(self):
        self.interrupted(signal.SIGHUP)

    def test_sigpipe(self):
        self.interrupted(signal.SIGPIPE)

    def test_sigxfsz(self):
        self.interrupted(signal.SIGXFSZ)

    def test_file_size_limit(self):
        # a real SIGXFSZ: the write goes past RLIMIT_FSIZE
        out, before = self.old_file("out.bin")
        limit = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))
        proc = popen(["split", DOCSTRING, "-p", "modulo", "-O", f"failing-output:{out}",
                      "--output-option", "failing-output.how=none"], preexec_fn=limit)
        proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, -signal.SIGXFSZ)
        self.assertEqual(self.temporaries(), [])
        self.assert_unchanged(out, before)


@unittest.skipUnless(shutil.which("strace"), "strace is not installed")
class TestDurable(SafetyCase):
    def test_fsync_before_rename_and_directory_after(self):
        out = self.path("out.json")
        log = self.path("strace.log")
        r = subprocess.run(["strace", "-f", "-o", log, "-e", "trace=fsync,rename,renameat,"
                            "renameat2,openat", BIN, "split", DOCSTRING, "-p", "modulo",
                            "-O", f"json:{out}"], capture_output=True, text=True, timeout=120)
        if r.returncode != 0 and "ptrace" in r.stderr:
            self.skipTest(f"strace cannot trace: {r.stderr.strip()}")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(log, encoding="utf-8") as f:
            calls = [line.split(None, 1)[1] for line in f if "(" in line]
        os.unlink(log)
        renamed = [i for i, c in enumerate(calls) if c.startswith("rename") and out in c]
        self.assertEqual(len(renamed), 1, calls)
        # the temporary is opened by mkstemp: its descriptor is synced
        # before the rename, the directory opened and synced after
        tmp_fd = [c.rsplit("=", 1)[1].strip() for c in calls[:renamed[0]]
                  if c.startswith("openat") and "/.out.json." in c][-1]
        synced = lambda part: [c.split("=")[0].strip() for c in part if c.startswith("fsync")]
        self.assertIn(f"fsync({tmp_fd})", synced(calls[:renamed[0]]))
        dir_fd = [c.rsplit("=", 1)[1].strip() for c in calls[renamed[0]:]
                  if c.startswith("openat") and f'"{self.tmp}"' in c]
        self.assertTrue(dir_fd, calls[renamed[0]:])
        self.assertIn(f"fsync({dir_fd[0]})", synced(calls[renamed[0]:]))


if __name__ == "__main__":
    main()
