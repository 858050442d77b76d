"""Inputs read in bounded time and memory, and what they may not do: a
pipeline or partition map that is a device or an endless pipe, locale-style
keys in a pipeline, a map file's contents in error messages."""
import os
import signal
import subprocess
import tempfile

from fxtest import BIN, DOCSTRING, FxsplitTestCase, fxsplit, main

# Seconds and resident kilobytes a refused input may take, at most (the
# reads stop at 16 MiB for a pipeline, at a NUL byte for any file).
TIME_LIMIT = 10
RSS_LIMIT_KB = 200 * 1024


class Bounded:
    """The result of one command run under /usr/bin/time: stderr, exit
    status and peak resident memory; killed (with its process group) when
    it runs past TIME_LIMIT."""

    def __init__(self, args, stdin=None):
        with tempfile.NamedTemporaryFile("r", suffix=".time") as rusage:
            proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rusage.name, BIN, *args],
                                    stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True, start_new_session=True)
            try:
                self.stdout, self.stderr = proc.communicate(timeout=TIME_LIMIT)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
                raise AssertionError(f"fxsplit {' '.join(args)}: still running after "
                                     f"{TIME_LIMIT} s")
            self.returncode = proc.returncode
            self.rss_kb = int(rusage.read().split()[-1])


class BoundedTestCase(FxsplitTestCase):
    def run_bounded(self, *args, stdin=None):
        r = Bounded(args, stdin=stdin)
        self.assertLess(r.rss_kb, RSS_LIMIT_KB, f"peak memory {r.rss_kb} KiB: {r.stderr}")
        return r

    def endless(self, *command):
        """A pipe that never ends: the output of @command."""
        writer = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.addCleanup(writer.wait)
        self.addCleanup(writer.kill)
        return writer.stdout


class TestPipelineFile(BoundedTestCase):
    def test_device(self):
        r = self.run_bounded("run", "/dev/zero")
        self.assert_fails(r, 1, "/dev/zero: cannot read: it is a character device, not a "
                                "regular file or a pipe")

    def test_endless_pipe(self):
        r = self.run_bounded("run", "/dev/stdin", stdin=self.endless("yes", "# a comment"))
        self.assert_fails(r, 1, "/dev/stdin: larger than the limit of 16 MiB for a pipeline "
                                "file")

    def test_nul_bytes_in_a_pipe(self):
        r = self.run_bounded("run", "/dev/stdin", stdin=self.endless("cat", "/dev/zero"))
        self.assert_fails(r, 1, "/dev/stdin: not a text file (it holds NUL bytes)")

    def test_directory(self):
        self.assert_fails(fxsplit("run", self.tmp), 1, f"{self.tmp}: cannot read: it is a "
                          "directory")

    def test_a_pipe_is_read(self):
        ini = (f"[graph]\ninput = {DOCSTRING}\n[partitioner]\nplugin = modulo\n"
               f"[output json]\nplugin = json\npath = {self.path('out.json')}\n")
        r = subprocess.run([BIN, "run", "/dev/stdin"], input=ini, text=True,
                           capture_output=True, timeout=60)
        self.assert_ok(r)
        self.assertIn("out.json", self.files())


class TestLocaleKeys(FxsplitTestCase):
    """GKeyFile reads KEY[LOCALE] as a translation of KEY and keeps it only
    when LOCALE is one of the user's languages: a pipeline must mean the
    same thing whatever LANG is."""

    def check(self, key):
        ini = self.write("p.ini", f"[graph]\ninput = {DOCSTRING}\n[partitioner]\n"
                                  f"plugin = modulo\n{key} = 4\n")
        for lang in ("C", "de_DE.UTF-8", "de"):
            with self.subTest(lang=lang):
                r = fxsplit("run", ini, env={"LANG": lang, "LC_ALL": "", "LC_MESSAGES": "",
                                             "LANGUAGE": ""})
                self.assert_fails(r, 1, f"{ini}:5: [partitioner] key '{key}': keys cannot hold "
                                        "'[' or ']'")

    def test_translation_of_a_known_key(self):
        self.check("partitions[de]")

    def test_translation_of_an_unknown_key(self):
        self.check("bogus[x]")


class TestMapFile(BoundedTestCase):
    def split(self, path):
        return ("split", DOCSTRING, "--partitioner", "map", "--option", f"file={path}")

    def test_device(self):
        r = self.run_bounded(*self.split("/dev/zero"))
        self.assert_fails(r, 1, "[partitioner] map: /dev/zero: cannot read: it is a character "
                                "device")

    def test_nul_bytes_in_a_pipe(self):
        r = self.run_bounded(*self.split("/dev/stdin"), stdin=self.endless("cat", "/dev/zero"))
        self.assert_fails(r, 1, "/dev/stdin: not a text file (it holds NUL bytes)")

    def test_secret_first_line(self):
        # A map pointed at a file of secrets (/etc/shadow) quotes at most 40
        # bytes of it, escaped.
        secret = "root:$6$" + "s3cr3t" * 20 + ":19000:0:99999:7:::"
        path = self.write("shadow", secret + "\nbin:*:19000:0:99999:7:::\n")
        line = self.assert_fails(fxsplit(*self.split(path)), 1,
                                 f"{path}:1: expected 'NODE ID', got '{secret[:40]}'...")
        self.assertNotIn(secret[:41], line)
        self.assertNotIn("bin:", line)

    def test_control_characters_escaped(self):
        path = self.write("ctl", "\x1b[31mred\x1b[0m\n")
        line = self.assert_fails(fxsplit(*self.split(path)), 1,
                                 "got '\\x1b[31mred\\x1b[0m'")
        self.assertNotIn("\x1b", line)

    def test_long_json_key(self):
        name = "n" * 1000
        path = self.write("map.json", f'{{"{name}": 1, "{name}": 2}}')
        line = self.assert_fails(fxsplit(*self.split(path)), 1,
                                 f"node '{name[:40]}'... appears twice")
        self.assertLess(len(line), 300)


def chain_graph(n):
    """A graph file of @n additions in a chain, each also reading the input:
    split one per partition, its partitions pass values in a chain."""
    nodes = ['{"name": "x", "op": "placeholder", "target": "x"}']
    prev = "x"
    for i in range(n):
        nodes.append(f'{{"name": "add_{i}", "op": "call_function", "target": "_operator.add", '
                     f'"args": [{{"node": "{prev}"}}, {{"node": "x"}}]}}')
        prev = f"add_{i}"
    nodes.append(f'{{"name": "output", "op": "output", "target": "output", '
                 f'"args": [{{"node": "{prev}"}}]}}')
    return '{"format": "fxsplit-graph", "version": 1, "nodes": [\n' + ",\n".join(nodes) + "]}\n"


class TestReportPicture(FxsplitTestCase):
    """The report's HTML picture is bounded: Graphviz is given at most 200
    boxes however many partitions there are, and the page says when the
    picture is reduced."""

    def report(self, n):
        graph = self.write("chain.json", chain_graph(n))
        seen = self.path("seen.dot")
        # a stand-in for Graphviz: keeps the DOT text it is given
        fake = self.write("fake-dot", f"#!/bin/sh\ncat > '{seen}'\necho '<svg></svg>'\n")
        os.chmod(fake, 0o755)
        page = self.path("report.html")
        r = fxsplit("split", graph, "--partitioner", "modulo", "--option", f"partitions={n}",
                    "--output", f"report:{page}", "--output-option", "report.format=html",
                    "--output-option", f"report.graphviz={fake}")
        self.assert_ok(r)
        with open(seen, encoding="utf-8") as f:
            dot = f.read()
        with open(page, encoding="utf-8") as f:
            html = f.read()
        return dot, html

    def boxes(self, dot):
        return sum(1 for line in dot.splitlines() if line.startswith("  p") and "[label=" in line
                   and "->" not in line)

    def test_many_partitions(self):
        dot, html = self.report(20000)
        self.assertEqual(self.boxes(dot), 200)
        self.assertLess(len(dot), 100_000)
        self.assertIn("each box: 100 consecutive partitions (in call order)", dot)
        self.assertIn('"partitions 0 to 99\\n(submod_0 to submod_99)\\n100 partitions, 100 nodes '
                      '(0.5%)"', dot)
        # the chain between the boxes, summed, the critical path in bold
        self.assertIn("p0 -> p1 [label=", dot)
        self.assertNotIn("p0 -> p2", dot)
        self.assertIn('<p class="reduced">The picture is reduced: each box stands for 100 '
                      'consecutive partitions (in call order) of the 20,000', html)

    def test_few_partitions_are_drawn_whole(self):
        dot, html = self.report(150)
        self.assertEqual(self.boxes(dot), 150)
        self.assertNotIn("each box", dot)
        self.assertNotIn("reduced", html)


if __name__ == "__main__":
    main()
