"""fxsplit compare: one table of several partitioners' splits whose
numbers are the report output's, chains, the HTML page, and bad -p specs
(one line, nothing on stdout)."""
import os
import re
import stat

from fxtest import SMALL_CNN, FxsplitTestCase, fxsplit, main

COLUMNS = ["partitioner", "partitions", "cut", "max", "mean", "max/mean", "critical path",
           "bottleneck", "time"]


def table(stdout):
    """{spec: {column: cell}} from compare's text table (two blanks or more
    between cells)."""
    lines = stdout.splitlines()
    rows = {}
    for line in lines[1:]:
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = dict(zip(COLUMNS, cells))
    return lines[0], rows


def report(partitioner, options, cost="nodes"):
    """The report output's numbers for the same split."""
    args = ["split", SMALL_CNN, "-p", partitioner]
    for o in options:
        args += ["-o", o]
    r = fxsplit(*args, "-O", "report", "--output-option", f"report.cost={cost}")
    assert r.returncode == 0, r.stderr
    text = r.stdout
    parts = len(re.findall(r"(?m)^\S+\s+submod_\d+\s", text))
    cut = re.search(r"(?m)^cut: (.+?) passed", text).group(1)
    m = re.search(r"(?m)^balance: max/mean \w+ ([0-9.]+) \(the costliest, \w+, (.+); the mean "
                  r"(.+)\)$", text)
    critical = re.search(r"(?m)^critical path: .* \(\w+ (.+), [0-9.]+% of the total\)$",
                         text).group(1)
    return {"partitions": str(parts), "cut": cut, "max/mean": m.group(1), "max": m.group(2),
            "mean": m.group(3), "critical path": critical}


class TestCompare(FxsplitTestCase):
    SPECS = [("balanced", ["stages=3"]), ("mincut", ["parts=3", "seed=1"]),
             ("map", ["meta_key=stage"]),
             ("capability", ["backends=gpu: class:Conv2d function:relu, cpu: class:Linear"])]

    def spec(self, name, options):
        return name + (":" + ",".join(options) if options else "")

    def test_numbers_are_the_reports(self):
        for cost in ("nodes", "flops", "param_bytes"):
            with self.subTest(cost=cost):
                args = ["compare", SMALL_CNN, "--cost", cost]
                for name, options in self.SPECS:
                    args += ["-p", self.spec(name, options)]
                r = fxsplit(*args)
                self.assert_ok(r)
                self.assertEqual(r.stderr, "")
                head, rows = table(r.stdout)
                self.assertEqual(re.split(r"\s{2,}", head.strip()),
                                 ["partitioner", "partitions", "cut", f"max ({cost})", "mean",
                                  "max/mean", "critical path", "bottleneck", "time"])
                self.assertEqual(len(rows), len(self.SPECS))
                for name, options in self.SPECS:
                    row = rows[self.spec(name, options)]
                    for column, value in report(name, options, cost).items():
                        self.assertEqual(row[column], value, f"{name} {column}")
                    self.assertEqual(row["bottleneck"], "-")
                    self.assertRegex(row["time"], r"^[0-9.]+ ms$")

    def test_a_chain_is_one_row(self):
        r = fxsplit("compare", SMALL_CNN, "-p", "balanced:stages=3",
                    "-p", "modulo:partitions=1+balanced:stages=3")
        self.assert_ok(r)
        _, rows = table(r.stdout)
        one, chain = rows["balanced:stages=3"], rows["modulo:partitions=1+balanced:stages=3"]
        for column in COLUMNS[1:-1]:
            self.assertEqual(one[column], chain[column], column)

    def test_commas_inside_values(self):
        # a piece without '=' continues the value before it
        r = fxsplit("compare", SMALL_CNN,
                    "-p", "capability:allow=class:Conv2d,class:BatchNorm2d,min_size=2")
        self.assert_ok(r)
        _, rows = table(r.stdout)
        row = rows["capability:allow=class:Conv2d,class:BatchNorm2d,min_size=2"]
        expected = report("capability", ["allow=class:Conv2d,class:BatchNorm2d", "min_size=2"])
        self.assertEqual(row["partitions"], expected["partitions"])
        self.assertEqual(row["cut"], expected["cut"])

    def test_bottleneck_with_speeds(self):
        """The bottleneck is the slowest stage, cost / speed, of the report's
        per-partition costs for the same split."""
        r = fxsplit("compare", SMALL_CNN, "-p", "balanced:stages=3,speed=1,2,1")
        self.assert_ok(r)
        _, rows = table(r.stdout)
        split = fxsplit("split", SMALL_CNN, "-p", "balanced", "-o", "stages=3",
                        "-o", "speed=1,2,1", "-O", "report")
        self.assert_ok(split)
        costs = [float(m.group(2)) for m in
                 re.finditer(r"(?m)^(\d+)\s+submod_\d+\s+\d+\s+\d+\s+\d+\s+([0-9.]+)\s", split.stdout)]
        self.assertEqual(len(costs), 3)
        times = [c / s for c, s in zip(costs, [1, 2, 1])]
        slowest = times.index(max(times))
        self.assertEqual(rows["balanced:stages=3,speed=1,2,1"]["bottleneck"],
                         f"{max(times):.1f} (submod_{slowest})")

    def test_html_pictures_side_by_side(self):
        r = fxsplit("compare", SMALL_CNN, "-p", "balanced:stages=3", "-p", "mincut:parts=2",
                    "--format", "html")
        self.assert_ok(r)
        page = r.stdout
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        self.assertEqual(page.count("<figure>"), 2)
        self.assertEqual(page.count("<svg"), 2)
        self.assertIn("<figcaption>balanced:stages=3</figcaption>", page)
        self.assertIn('<td class="n">96.0 KiB</td>', page)
        self.assertNotIn("<?xml", page)

    def test_html_without_graphviz(self):
        r = fxsplit("compare", SMALL_CNN, "-p", "balanced:stages=2", "--format", "html",
                    "--graphviz", self.path("no-dot"))
        self.assert_ok(r)
        self.assertIn("program was not found: the page has no pictures", r.stderr)
        self.assertEqual(r.stdout.count("No picture: Graphviz was not found"), 1)

    def test_html_graphviz_fails(self):
        fake = self.write("dot", "#!/bin/sh\necho 'Error: syntax' >&2\nexit 1\n")
        os.chmod(fake, stat.S_IRWXU)
        self.assert_fails(fxsplit("compare", SMALL_CNN, "-p", "balanced:stages=2", "--format",
                                  "html", "--graphviz", fake), 5, "-Tsvg failed (exit status 1): "
                                                                  "Error: syntax")

    def test_bad_specs(self):
        cases = [
            (["-p", "nosuch"], 3, "-p nosuch: [partitioner] plugin: unknown plugin 'nosuch'"),
            (["-p", "modulo:partitions"], 1, "-p 'modulo:partitions': not KEY=VALUE: "
                                              "'partitions' (expected NAME[:KEY=VALUE,...]"),
            (["-p", "modulo:=3"], 1, "not KEY=VALUE: '=3'"),
            (["-p", "modulo:partitions=1,"], 1, "-p 'modulo:partitions=1,': an empty option"),
            (["-p", "modulo+"], 1, "-p 'modulo+': a partitioner name is missing"),
            (["-p", ":partitions=1"], 1, "a partitioner name is missing"),
            (["-p", "modulo:partitons=2"], 1, "-p modulo:partitons=2: [partitioner] modulo: "
                                               "unknown option 'partitons' (valid: partitions)"),
            (["-p", "modulo:partitions=0"], 1, "-p modulo:partitions=0: [partitioner] modulo:"),
            (["-p", "balanced:stages=2", "-p", "modulo:partitions=2"], 4,
             "-p modulo:partitions=2: cycle between partitions"),
            (["-p", "modulo:partitions=1+nosuch"], 3, "[partitioner level-2] plugin: unknown "
                                                      "plugin 'nosuch'"),
            ([], 1, "compare: give at least one -p NAME[:KEY=VALUE,...]"),
            (["-p", "modulo", "--format", "pdf"], 1, "--format: unknown format 'pdf' (valid: "
                                                      "text, html)"),
            (["-p", "modulo", "--cost", "lots"], 1, "--cost: unknown cost kind 'lots'"),
        ]
        for args, code, message in cases:
            with self.subTest(args=args):
                self.assert_fails(fxsplit("compare", SMALL_CNN, *args), code, message)
        self.assert_fails(fxsplit("compare", self.path("none.json"), "-p", "modulo"), 2,
                          "none.json: cannot open")
        self.assert_fails(fxsplit("compare", "-p", "modulo"), 1,
                          "compare: expected one graph file, got 0 arguments")


if __name__ == "__main__":
    main()
