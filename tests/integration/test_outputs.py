"""The dot and report outputs on a real model (torchvision resnet18,
tests/data/models/), json round trips of its stages, and determinism of
every output.  Expected numbers are computed here from the json output and
the graph file, independently of the plugins' C code."""
import csv
import io
import json
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ET

from fxtest import SOURCE_ROOT, FxsplitTestCase, fxsplit, main

RESNET18 = os.path.join(SOURCE_ROOT, "tests", "data", "models", "resnet18.json")
SVG = "{http://www.w3.org/2000/svg}"
DTYPE_BYTES = {"torch.float32": 4, "torch.float16": 2, "torch.bfloat16": 2, "torch.float64": 8,
               "torch.int64": 8, "torch.int32": 4, "torch.int16": 2, "torch.int8": 1,
               "torch.uint8": 1, "torch.bool": 1}
CALL_OPS = ("call_function", "call_method", "call_module")
HAVE_DOT = shutil.which("dot") is not None


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def tensor_bytes(t):
    if t.get("dtype") not in DTYPE_BYTES or not all(isinstance(d, int) for d in t["shape"]):
        return None
    n = DTYPE_BYTES[t["dtype"]]
    for d in t["shape"]:
        n *= d
    return n


def value_bytes(node, attrs):
    """Bytes of a node's value from its meta (or a get_attr's attribute);
    1 when unknown, as docs/cli.md says."""
    meta = node.get("meta", {})
    tensors = meta.get("tensors", [meta["tensor"]] if "tensor" in meta else [])
    sizes = [tensor_bytes(t) for t in tensors]
    if tensors and None not in sizes:
        return sum(sizes)
    if node["op"] == "get_attr" and "shape" in attrs.get(node["target"], {}):
        size = tensor_bytes(attrs[node["target"]])
        if size is not None:
            return size
    return 1


def expected_stats(graph_path, split_path):
    """Per partition (in order): nodes, inputs, outputs, received, sent,
    graph inputs, to output; computed from the files."""
    graph, split = load(graph_path), load(split_path)
    nodes = {n["name"]: n for n in graph["nodes"]}
    attrs = graph.get("attributes", {})
    parts = split["partitions"]
    owner = {name: p["name"] for p in parts for name in p["nodes"]}
    rows = {p["name"]: {"nodes": len(p["nodes"]), "inputs": len(p["inputs"]),
                        "outputs": len(p["outputs"]), "received": 0, "sent": 0,
                        "graph_inputs": 0, "to_output": 0} for p in parts}
    for p in parts:
        for name in p["inputs"]:
            b = value_bytes(nodes[name], attrs)
            if name in owner:
                rows[p["name"]]["received"] += b
                rows[owner[name]]["sent"] += b
            else:
                rows[p["name"]]["graph_inputs"] += b
    returned = set()

    def walk(v):
        if isinstance(v, dict) and "node" in v:
            returned.add(v["node"])
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(graph["nodes"][-1].get("args", []))
    for name in returned:
        if name in owner:
            rows[owner[name]]["to_output"] += value_bytes(nodes[name], attrs)
    return [(p["name"], rows[p["name"]]) for p in parts]


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def numbers(path):
    """The bbox of every number pair in an SVG path's d or points."""
    xs, ys = [], []
    for x, y in re.findall(r"(-?[\d.]+),(-?[\d.]+)", path):
        xs.append(float(x))
        ys.append(float(y))
    return min(xs), min(ys), max(xs), max(ys)


class OutputTestCase(FxsplitTestCase):
    def split(self, *args, graph=RESNET18):
        r = fxsplit("split", graph, *args, cwd=self.tmp)
        self.assert_ok(r)
        return r

    def stages(self, *outputs, k=4):
        """resnet18 in K pipeline stages of equal flops."""
        return self.split("--partitioner", "balanced", "--option", f"stages={k}",
                          "--option", "cost=flops", *outputs)

    def read(self, name, mode="r"):
        with open(self.path(name), mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
            return f.read()


class TestDot(OutputTestCase):
    def setUp(self):
        super().setUp()
        if not HAVE_DOT:
            self.skipTest("Graphviz's dot is not installed")

    def test_resnet18_svg_has_a_cluster_per_partition_holding_its_nodes(self):
        self.stages("--output", "json:s.json", "--output", "dot:s.dot",
                    "--output-option", "dot.render=svg", "--output-option", "dot.cost=flops")
        split, graph = load(self.path("s.json")), load(RESNET18)
        names = [n["name"] for n in graph["nodes"]]
        parts = split["partitions"]
        self.assertEqual(len(parts), 4)
        root = ET.fromstring(self.read("s.svg"))
        clusters = {}
        for g in root.iter(SVG + "g"):
            if g.get("class") == "cluster":
                shape = g.find(SVG + "path")
                if shape is None:
                    shape = g.find(SVG + "polygon")
                clusters[g.find(SVG + "title").text] = numbers(shape.get("d") or shape.get("points"))
        self.assertEqual(sorted(clusters), [f"cluster_p{i}" for i in range(4)])
        # Every call node is drawn inside its partition's cluster and no other.
        where = {}
        for g in root.iter(SVG + "g"):
            title = g.find(SVG + "title")
            if g.get("class") == "node" and re.fullmatch(r"n\d+", title.text):
                text = g.find(SVG + "text")
                where[names[int(title.text[1:])]] = (float(text.get("x")), float(text.get("y")))
        self.assertEqual(len(where), len(names))
        for i, p in enumerate(parts):
            for name in p["nodes"]:
                x, y = where[name]
                inside = [c for c, (x0, y0, x1, y1) in clusters.items()
                          if x0 <= x <= x1 and y0 <= y <= y1]
                self.assertEqual(inside, [f"cluster_p{i}"], name)
        # Titles say what each partition is and costs.
        self.assertIn("submod_2 (partition 2)", self.read("s.svg"))
        self.assertRegex(self.read("s.svg"), r"\d+ nodes, flops [\d.]+ [MG]FLOP \([\d.]+%\)")

    def test_cross_partition_edges_are_bold_and_labelled_once_per_taker(self):
        self.stages("--output", "json:s.json", "--output", "dot:s.dot")
        split, graph = load(self.path("s.json")), load(RESNET18)
        names = [n["name"] for n in graph["nodes"]]
        owner = {name: p["name"] for p in split["partitions"] for name in p["nodes"]}
        text = self.read("s.dot")
        bold, labelled, plain = set(), [], set()
        for a, b, attrs in re.findall(r"^  n(\d+) -> n(\d+)( \[.*\])?;$", text, re.M):
            edge = (names[int(a)], names[int(b)])
            if "style=bold" in attrs:
                bold.add(edge)
                m = re.search(r'label="([^"]*)"', attrs)
                if m:
                    labelled.append((edge, m.group(1)))
            else:
                plain.add(edge)
        crossing = {(u, v) for (u, v) in bold | plain
                    if u in owner and v in owner and owner[u] != owner[v]}
        self.assertEqual(bold, crossing)
        self.assertTrue(bold)
        # One label per value and taking partition: the partitions' inputs
        # that other partitions produce.
        taken = sorted((v, p["name"]) for p in split["partitions"] for v in p["inputs"]
                       if v in owner)
        self.assertEqual(sorted((u, owner[v]) for (u, v), _ in labelled), taken)
        nodes = {n["name"]: n for n in graph["nodes"]}
        for (u, _), label in labelled:
            shape = nodes[u]["meta"]["tensor"]["shape"]
            self.assertTrue(label.startswith(f"f32[{', '.join(map(str, shape))}]\\n"), label)
            self.assertRegex(label, r"\\n[\d.]+ (B|KiB|MiB)$")

    def test_partitions_view_boxes_and_bytes(self):
        self.stages("--output", "json:s.json", "--output", "dot:p.dot",
                    "--output-option", "dot.view=partitions", "--output-option", "dot.render=png")
        self.assertEqual(self.read("p.png", "rb")[:8], b"\x89PNG\r\n\x1a\n")
        text = self.read("p.dot")
        self.assertTrue(text.startswith('digraph "partitions" {'))
        self.assertNotIn("subgraph", text)
        self.assertEqual(len(re.findall(r"^  p\d+ \[label=", text, re.M)), 4)
        expected = expected_stats(RESNET18, self.path("s.json"))
        index = {name: i for i, (name, _) in enumerate(expected)}
        split = load(self.path("s.json"))
        edges = {(int(a), int(b)): label for a, b, label in
                 re.findall(r'^  p(\d+) -> p(\d+) \[label=" ([^"]*)"', text, re.M)}
        want = {(index[d], index[p["name"]]) for p in split["partitions"]
                for d in p["dependencies"]}
        self.assertEqual(set(edges), want)
        # A chain of stages: the critical path is every edge, drawn bold.
        self.assertEqual(len(re.findall(r"penwidth=3, color=", text)), len(want))
        self.assertIn('inputs -> p0 [label=" 588.0 KiB", style=dashed]', text)

    def test_auto_view_switches_above_2000_nodes(self):
        for n, view in ((1998, "split"), (2001, "partitions")):
            nodes = [{"name": "x", "op": "placeholder", "target": "x"}]
            for i in range(n - 2):
                nodes.append({"name": f"r{i}", "op": "call_function", "target": "torch.relu",
                              "args": [{"node": nodes[-1]["name"]}]})
            nodes.append({"name": "output", "op": "output", "target": "output",
                          "args": [{"node": nodes[-1]["name"]}]})
            graph = self.write(f"chain{n}.json", json.dumps(
                {"format": "fxsplit-graph", "version": 1, "nodes": nodes}))
            self.split("--partitioner", "balanced", "--option", "stages=3",
                       "--output", f"dot:chain{n}.dot", graph=graph)
            self.assertTrue(self.read(f"chain{n}.dot").startswith(f'digraph "{view}" {{'))

    def test_rendered_file_names(self):
        for path, rendered in (("a.gv", "a.svg"), ("b.dot", "b.svg"), ("c", "c.svg"),
                               ("d.txt", "d.txt.svg")):
            r = self.stages("--output", f"dot:{path}", "--output-option", "dot.render=svg")
            self.assertEqual(r.stdout, f"[output dot] dot: wrote {path}, {rendered}\n")
            self.assertTrue(self.read(rendered).lstrip().startswith("<?xml"))

    def test_missing_graphviz_fails_first_and_writes_nothing(self):
        r = fxsplit("split", RESNET18, "--partitioner", "balanced", "--option", "stages=2",
                    "--output", "json:s.json", "--output", "dot:s.dot",
                    "--output-option", "dot.render=svg",
                    "--output-option", "dot.graphviz=/nonexistent/dot", cwd=self.tmp)
        self.assert_fails(r, 3, "[output dot] dot:", "render = svg needs Graphviz's "
                          "'/nonexistent/dot' program, which is not found")
        self.assertEqual(self.files(), [])

    def test_graphviz_failure_is_one_line_and_writes_nothing(self):
        r = fxsplit("split", RESNET18, "--partitioner", "balanced", "--option", "stages=2",
                    "--output", "json:s.json", "--output", "dot:s.dot",
                    "--output-option", "dot.render=svg", "--output-option", "dot.graphviz=false",
                    cwd=self.tmp)
        self.assert_fails(r, 3, "false -Tsvg failed (exit status 1)")
        self.assertEqual(self.files(), [])

    def test_bad_options(self):
        for option, message in (("view=boxes", "view: unknown value 'boxes' (valid: auto, "
                                 "nodes, partitions)"),
                                ("render=pdf", "render: unknown value 'pdf' (valid: none, svg, "
                                 "png)"),
                                ("cost=time", "cost: unknown cost kind 'time' (valid: nodes, "
                                 "param_bytes, output_bytes, flops)")):
            r = fxsplit("split", RESNET18, "--partitioner", "modulo", "--output", "dot:s.dot",
                        "--output-option", f"dot.{option}", cwd=self.tmp)
            self.assert_fails(r, 1, message)
        self.assertEqual(self.files(), [])


class TestReport(OutputTestCase):
    def mincut(self, *outputs):
        return self.split("--verbose", "--partitioner", "mincut", "--option", "parts=4",
                          "--option", "cost=flops", "--output", "json:s.json", *outputs)

    def test_csv_counts_what_the_split_passes_and_matches_mincut(self):
        r = self.mincut("--output", "report:s.csv", "--output-option", "report.format=csv",
                        "--output-option", "report.cost=flops")
        rows = read_csv(self.path("s.csv"))
        expected = expected_stats(RESNET18, self.path("s.json"))
        self.assertEqual([row["partition"] for row in rows], [n for n, _ in expected] + ["total"])
        for row, (name, want) in zip(rows, expected):
            self.assertEqual(row["submodule"], f"submod_{name}")
            got = {"nodes": row["nodes"], "inputs": row["inputs"], "outputs": row["outputs"],
                   "received": row["received_bytes"], "sent": row["sent_bytes"],
                   "graph_inputs": row["graph_input_bytes"], "to_output": row["output_bytes"]}
            self.assertEqual({k: int(v) for k, v in got.items()}, want, name)
        total = rows[-1]
        self.assertEqual(int(total["received_bytes"]), sum(w["received"] for _, w in expected))
        self.assertEqual(int(total["sent_bytes"]), int(total["received_bytes"]))
        self.assertEqual(int(total["cost_flops"]), sum(int(r["cost_flops"]) for r in rows[:-1]))
        self.assertAlmostEqual(sum(float(r["share"]) for r in rows[:-1]), 1.0, places=4)
        # mincut logs the cut it minimized and the graph inputs it left out.
        cut = re.search(r"mincut: \d+ partitions, cut (\d+) bytes", r.stderr)
        inputs = re.search(r"graph inputs .* sent to partitions: (\d+) bytes", r.stderr)
        self.assertEqual(int(total["received_bytes"]), int(cut.group(1)))
        self.assertEqual(int(total["graph_input_bytes"]), int(inputs.group(1)))
        # mincut's partitions are a chain here: all of them are critical.
        self.assertEqual([r["critical_path"] for r in rows[:-1]], ["1"] * 4)

    def test_text_table_and_summary(self):
        self.mincut("--output", "report:s.txt", "--output-option", "report.cost=flops",
                    "--output", "report:s.csv", "--output-option", "report-2.format=csv",
                    "--output-option", "report-2.cost=flops")
        lines = self.read("s.txt").splitlines()
        rows = read_csv(self.path("s.csv"))
        self.assertEqual(lines[0].split(), ["partition", "submodule", "nodes", "inputs", "outputs",
                                            "cost", "(flops)", "share", "received", "sent",
                                            "graph", "inputs"])
        table = lines[1:6]
        self.assertEqual([l.split()[0] for l in table], [r["partition"] for r in rows])
        # Numbers are right-aligned: every row has the same length.
        self.assertEqual(len({len(l) for l in [lines[0]] + table}), 1)
        for line, row in zip(table, rows):
            # The total row has no submodule.
            cells = line.split()[2:5] if row["submodule"] else line.split()[1:4]
            self.assertEqual(cells, [row["nodes"], row["inputs"], row["outputs"]])
        self.assertEqual(lines[6], "")
        cut = int(rows[-1]["received_bytes"])
        split = load(self.path("s.json"))
        owner = {name for p in split["partitions"] for name in p["nodes"]}
        values = sum(v in owner for p in split["partitions"] for v in p["inputs"])
        self.assertEqual(lines[7], f"cut: {cut / 2**20:.1f} MiB passed between partitions "
                         f"({cut:,} bytes; {values} values, each once per partition taking it)")
        costs = [int(r["cost_flops"]) for r in rows[:-1]]
        balance = max(costs) * len(costs) / sum(costs)
        self.assertIn(f"balance: max/mean flops {balance:.3f} (the costliest, ", self.read("s.txt"))
        self.assertIn("critical path: submod_0 -> submod_1 -> submod_2 -> submod_3 (flops ",
                      self.read("s.txt"))

    def test_stdout_when_no_path(self):
        r = self.stages("--output", "report")
        self.assertTrue(r.stdout.startswith("partition  submodule"))
        self.assertTrue(r.stdout.endswith("[output report] report: wrote no file\n"))
        self.assertIn("\ncritical path: submod_0 -> submod_1", r.stdout)

    def test_html_page(self):
        self.stages("--output", "report:s.html", "--output-option", "report.format=html",
                    "--output", "report:s.csv", "--output-option", "report-2.format=csv")
        page = self.read("s.html")
        self.assertTrue(page.startswith("<!DOCTYPE html>\n"))
        self.assertTrue(page.endswith("</html>\n"))
        self.assertEqual(page.count("<tr"), 1 + 4 + 1)
        self.assertEqual(page.count('class="swatch"'), 4)
        self.assertNotRegex(page, r"<script|<link|src=")
        for row in read_csv(self.path("s.csv"))[:-1]:
            self.assertIn(f"</span>{row['partition']}</td><td>{row['submodule']}</td>", page)
        if HAVE_DOT:
            self.assertNotIn("<?xml", page)
            svg = page[page.index("<svg"):page.index("</svg>") + 6]
            root = ET.fromstring(svg)
            boxes = [g for g in root.iter(SVG + "g") if g.get("class") == "node"
                     and re.fullmatch(r"p\d+", g.find(SVG + "title").text)]
            self.assertEqual(len(boxes), 4)

    def test_html_without_graphviz_says_so(self):
        r = self.stages("--output", "report:s.html", "--output-option", "report.format=html",
                        "--output-option", "report.graphviz=/nonexistent/dot")
        self.assertIn("No picture: Graphviz&apos;s &apos;/nonexistent/dot&apos; program was not "
                      "found", self.read("s.html"))
        self.assertNotIn("<svg", self.read("s.html"))
        self.assertIn("[output report] report: No picture", r.stderr)

    def test_bad_format(self):
        r = fxsplit("split", RESNET18, "--partitioner", "modulo", "--output", "report:s.txt",
                    "--output-option", "report.format=pdf", cwd=self.tmp)
        self.assert_fails(r, 1, "format: unknown value 'pdf' (valid: text, csv, html)")


class TestJsonRoundTrip(OutputTestCase):
    """resnet18 in four stages; every stage loads from the json output and
    splits again, and the result is a valid split of it."""

    def check_split(self, graph, result):
        """The split result @result is a split of the graph @graph: every call
        node in exactly one partition, partitions in dependency order, each
        submodule's inputs its partition's, the top level calling each once."""
        calls = [n["name"] for n in graph["nodes"] if n["op"] in CALL_OPS]
        owner = {}
        for p in result["partitions"]:
            for name in p["nodes"]:
                self.assertNotIn(name, owner)
                owner[name] = p["name"]
        self.assertEqual(sorted(owner), sorted(calls))
        order = [p["name"] for p in result["partitions"]]
        subs = {s["name"]: s for s in result["submodules"]}
        self.assertEqual(list(subs), [p["submodule"] for p in result["partitions"]])
        for i, p in enumerate(result["partitions"]):
            for v in p["inputs"]:
                if v in owner:
                    self.assertLess(order.index(owner[v]), i, f"{p['name']} takes {v}")
            placeholders = [n for n in subs[p["submodule"]]["nodes"] if n["op"] == "placeholder"]
            self.assertEqual(len(placeholders), len(p["inputs"]))
        called = [n["target"] for n in result["nodes"] if n["op"] == "call_module"]
        self.assertEqual(called, list(subs))

    def verify(self, original, split):
        """`fxsplit verify`: the split computes the original node for node."""
        r = fxsplit("verify", original, split)
        self.assert_ok(r)
        self.assertIn(": a split of ", r.stdout)

    def test_stages_load_and_split_again(self):
        self.stages("--output", "json:s.json")
        first = load(self.path("s.json"))
        self.check_split(load(RESNET18), first)
        self.verify(RESNET18, self.path("s.json"))
        for sub in first["submodules"]:
            name = sub["name"]
            r = fxsplit("inspect", self.path("s.json"), "--submodule", name)
            self.assert_ok(r)
            calls = sum(n["op"] in CALL_OPS for n in sub["nodes"])
            self.assertGreaterEqual(calls, 3)
            self.assertIn(f"{len(sub['nodes'])} nodes", r.stdout.splitlines()[0])
            # The stage as a graph file of its own, for verify.
            alone = self.write(f"{name}.json", json.dumps(
                {"format": "fxsplit-graph", "version": 1,
                 "attributes": sub.get("attributes", {}), "nodes": sub["nodes"]}))
            for partitioner in (["modulo", "--option", "partitions=1"],
                                ["balanced", "--option", "stages=2"],
                                ["mincut", "--option", "parts=3", "--option", "cost=flops"]):
                out = f"{name}-{partitioner[0]}.json"
                self.split("--submodule", name, "--partitioner", *partitioner,
                           "--output", f"json:{out}", graph=self.path("s.json"))
                again = load(self.path(out))
                self.check_split(sub, again)
                self.verify(alone, self.path(out))
                self.assertEqual(len(again["partitions"]),
                                 {"modulo": 1, "balanced": 2, "mincut": 3}[partitioner[0]])

    def test_unknown_submodule(self):
        self.stages("--output", "json:s.json", k=2)
        r = fxsplit("split", self.path("s.json"), "--submodule", "submod_7",
                    "--partitioner", "modulo")
        self.assert_fails(r, 2, 'no submodule "submod_7" (the file has "submod_0", "submod_1")')
        r = fxsplit("inspect", self.path("s.json"), "--submodule", "submod_7")
        self.assert_fails(r, 2, 'no submodule "submod_7"')

    def test_stages_compute_what_the_model_does(self):
        """With torch: every stage split again computes what the stage
        computes, and the stages compose to resnet18."""
        try:
            sys.path.insert(0, os.path.join(SOURCE_ROOT, "python"))
            import torch
            import torchvision
            import fxsplit_torch
        except ImportError as e:
            self.skipTest(f"needs torch and torchvision: {e}")
        self.stages("--output", "json:s.json")
        torch.manual_seed(0)
        model = torchvision.models.resnet18().eval()
        gm = torch.fx.symbolic_trace(model)
        split = fxsplit_torch.load_split(self.path("s.json"), gm)
        x = torch.rand(1, 3, 224, 224)
        seen = {}
        hooks = [getattr(split, s["name"]).register_forward_pre_hook(
                     lambda mod, args, name=s["name"]: seen.__setitem__(name, args))
                 for s in load(self.path("s.json"))["submodules"]]
        with torch.no_grad():
            torch.testing.assert_close(split(x), model(x))
            for h in hooks:
                h.remove()
            for name, args in seen.items():
                self.split("--submodule", name, "--partitioner", "mincut", "--option", "parts=2",
                           "--output", f"json:{name}.json", graph=self.path("s.json"))
                stage = getattr(split, name)
                again = fxsplit_torch.load_split(self.path(f"{name}.json"), stage)
                torch.testing.assert_close(again(*args), stage(*args))
        self.assertEqual(len(seen), 4)


class TestDeterminism(OutputTestCase):
    def test_every_output_twice_gives_the_same_bytes(self):
        outputs = ["--output", "json:s.json", "--output", "python:s.py",
                   "--output", "dot:n.dot", "--output", "dot:p.dot",
                   "--output-option", "dot-2.view=partitions",
                   "--output", "report:r.txt", "--output", "report:r.csv",
                   "--output-option", "report-2.format=csv",
                   "--output", "report:r.html", "--output-option", "report-3.format=html"]
        if HAVE_DOT:
            outputs += ["--output-option", "dot.render=svg", "--output-option", "dot-2.render=png"]
        first = {}
        for run in range(2):
            self.split("--partitioner", "mincut", "--option", "parts=3", "--option", "cost=flops",
                       *outputs)
            files = {name: self.read(name, "rb") for name in self.files()}
            if run == 0:
                first = files
                self.assertEqual(len(files), 9 if HAVE_DOT else 7)
        self.assertEqual(files, first)


if __name__ == "__main__":
    main()
