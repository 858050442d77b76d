"""Partitioner chains ([partitioner] then [partitioner NAME], --partitioner
repeated) and partition labels (the label hook, ABI 1.1) through the
command: final ids, labels in every output, bad labels, old-ABI plugins."""
import csv
import io
import json

from fxtest import DOCSTRING as DOCSTRING, FxsplitTestCase, fxsplit, main


def chain_graph(blocks=4):
    """x -> (relu, softmax, mul) x @blocks: 3 * @blocks call nodes in a row."""
    nodes = [{"name": "x", "op": "placeholder", "target": "x"}]
    prev = "x"
    for i in range(blocks):
        for op, target, extra in (("r", "torch.relu", []), ("s", "torch.softmax", [-1]),
                                  ("m", "_operator.mul", [2])):
            name = f"{op}{i}"
            nodes.append({"name": name, "op": "call_function", "target": target,
                          "args": [{"node": prev}] + extra})
            prev = name
    nodes.append({"name": "output", "op": "output", "target": "output",
                  "args": [{"node": prev}]})
    return json.dumps({"format": "fxsplit-graph", "version": 1, "nodes": nodes})


SOFTMAX_PIECES = ["begin_at=function:torch.softmax", "end_after=function:torch.softmax",
                  "allow_unmatched=true"]


class TestChains(FxsplitTestCase):
    def setUp(self):
        super().setUp()
        self.graph = self.write("chain.json", chain_graph())

    def partitions(self, path):
        with open(path, encoding="utf-8") as f:
            return [(p["id"], p.get("label"), p["nodes"]) for p in json.load(f)["partitions"]]

    def split(self, *args):
        out = self.path("out.json")
        r = fxsplit("split", self.graph, *args, "--output", f"json:{out}")
        self.assert_ok(r)
        return self.partitions(out)

    def test_stages_then_softmax_pieces(self):
        # balanced: 2 stages of 6 nodes; splitpoints then puts each softmax
        # alone: ids numbered stage by stage, pieces in their order
        options = [a for o in SOFTMAX_PIECES for a in ("--option", o)]
        got = self.split("-p", "balanced", "-o", "stages=2", "-p", "splitpoints", *options)
        self.assertEqual(got, [
            (0, "0/0", ["r0"]), (1, "0/1", ["s0"]), (2, "0/2", ["m0", "r1"]),
            (3, "0/3", ["s1"]), (4, "0/4", ["m1"]),
            (5, "1/0", ["r2"]), (6, "1/1", ["s2"]), (7, "1/2", ["m2", "r3"]),
            (8, "1/3", ["s3"]), (9, "1/4", ["m3"])])

    def test_pipeline_file_chain_equals_command_line(self):
        ini = self.write("p.ini", f"""[graph]
input = chain.json
[partitioner]
plugin = balanced
stages = 2
[partitioner pieces]
plugin = splitpoints
{chr(10).join(o.replace('=', ' = ', 1) for o in SOFTMAX_PIECES)}
[output json]
plugin = json
path = run.json
""")
        self.assert_ok(fxsplit("run", ini))
        options = [a for o in SOFTMAX_PIECES for a in ("--option", o)]
        self.assertEqual(self.partitions(self.path("run.json")),
                         self.split("-p", "balanced", "-o", "stages=2", "-p", "splitpoints",
                                    *options))

    def test_options_belong_to_the_partitioner_before_them(self):
        # an --option before the first --partitioner is the first one's
        got = self.split("-o", "stages=2", "-p", "balanced", "-p", "balanced", "-o", "stages=3")
        self.assertEqual([(i, label, len(nodes)) for i, label, nodes in got],
                         [(0, "0/0", 2), (1, "0/1", 2), (2, "0/2", 2),
                          (3, "1/0", 2), (4, "1/1", 2), (5, "1/2", 2)])

    def test_capability_then_balanced(self):
        allow = "allow=function:torch.relu function:_operator.mul"
        got = self.split("-p", "capability", "-o", allow, "-p", "balanced", "-o", "stages=2")
        single = self.split("-p", "capability", "-o", allow)
        # [r0] [s0] [m0 r1] [s1] [m1 r2] [s2] [m2 r3] [s3] [m3]: softmax unsupported
        self.assertEqual([len(nodes) for _, _, nodes in single], [1, 1, 2, 1, 2, 1, 2, 1, 1])
        # every partition of capability cut in at most two contiguous halves
        expected = []
        for pid, label, nodes in single:  # the parent's label, or its id
            halves = [nodes] if len(nodes) < 2 else [nodes[:(len(nodes) + 1) // 2],
                                                     nodes[(len(nodes) + 1) // 2:]]
            expected += [(f"{label or pid}/{k}", half) for k, half in enumerate(halves)]
        self.assertEqual([(label, nodes) for _, label, nodes in got], expected)
        self.assertEqual([i for i, _, _ in got], list(range(len(expected))))

    def test_second_partitioner_fails_named_nothing_written(self):
        out = self.path("never.json")
        r = fxsplit("split", self.graph, "-p", "balanced", "-o", "stages=2",
                    "-p", "callback-fails", "-o", "fail_at=softmax", "--output", f"json:{out}")
        self.assert_fails(r, 3, "node 's0': [partitioner callback-fails] partitioner "
                          "'callback-fails': ")
        self.assertEqual(self.files(), ["chain.json"])

    def test_second_partitioner_bad_option_named(self):
        r = fxsplit("split", self.graph, "-p", "balanced", "-o", "stages=2", "-p", "modulo",
                    "-o", "parts=2")
        self.assert_fails(r, 1, "[partitioner modulo] modulo: unknown option 'parts'")

    def test_refined_cycle_is_named(self):
        r = fxsplit("split", self.graph, "-p", "balanced", "-o", "stages=2", "-p", "modulo",
                    "-o", "partitions=2")
        self.assert_fails(r, 4, "after [partitioner modulo] modulo: cycle between partitions")


class TestLabels(FxsplitTestCase):
    def test_labels_in_every_output(self):
        json_out, py_out, dot_out = self.path("l.json"), self.path("l.py"), self.path("l.dot")
        r = fxsplit("split", DOCSTRING, "-p", "labels", "-o", "partitions=1",
                    "--output", f"json:{json_out}", "--output", f"python:{py_out}",
                    "--output", f"dot:{dot_out}", "--output", "report",
                    "--output-option", "report.format=csv")
        self.assert_ok(r)
        with open(json_out, encoding="utf-8") as f:
            self.assertEqual([p["label"] for p in json.load(f)["partitions"]], ["part 0"])
        with open(py_out, encoding="utf-8") as f:
            self.assertIn("LABELS = {\n    'submod_0': 'part 0'}", f.read())
        with open(dot_out, encoding="utf-8") as f:
            self.assertIn('label="submod_0 (partition 0): part 0\\n', f.read())
        rows = list(csv.reader(io.StringIO(r.stdout.split("[output", 1)[0])))
        self.assertEqual(rows[0][-1], "label")
        self.assertEqual(rows[1][-1], "part 0")

    def test_unlabelled_outputs_unchanged(self):
        r = fxsplit("split", DOCSTRING, "-p", "modulo", "--output", "report",
                    "--output-option", "report.format=csv")
        self.assert_ok(r)
        self.assertTrue(r.stdout.startswith("partition,submodule,") and
                        r.stdout.splitlines()[0].endswith(",critical_path"))

    def test_bad_labels(self):
        for mode, what in (("long", "it is longer than 128 bytes"),
                           ("not-utf8", "it is not UTF-8 text: \"caf\\xe9\""),
                           ("control", "it holds a control character: \"two\\nlines\""),
                           ("empty", "it is empty")):
            with self.subTest(mode):
                out = self.path("never.json")
                r = fxsplit("split", DOCSTRING, "-p", "labels", "-o", "partitions=1",
                            "-o", f"label={mode}", "--output", f"json:{out}")
                self.assert_fails(r, 3, "[partitioner] labels: label of partition 0: ", what)
                self.assertEqual(self.files(), [])

    def test_old_abi_plugin_loads_and_splits(self):
        r = fxsplit("plugins", "abi-1-0")
        self.assert_ok(r)
        self.assertIn("built for plugin ABI 1.0", r.stdout)
        out = self.path("old.json")
        self.assert_ok(fxsplit("split", DOCSTRING, "-p", "abi-1-0", "--output",
                               f"json:{out}"))
        with open(out, encoding="utf-8") as f:
            self.assertEqual([p.get("label") for p in json.load(f)["partitions"]], [None])

if __name__ == "__main__":
    main()
