"""Successful runs: the shipped pipelines in conf/, `fxsplit split`, --set
overrides, several outputs, and what is printed."""
import configparser
import glob
import json
import os
import re

from fxtest import DOCSTRING, SMALL_CNN, SOURCE_ROOT, FxsplitTestCase, fxsplit, main


def partitions(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    assert data["format"] == "fxsplit-graph"
    return {p["name"]: p["nodes"] for p in data["partitions"]}


class TestConfPipelines(FxsplitTestCase):
    def run_conf(self, name, *extra):
        """Runs conf/NAME with every output's path moved into the scratch
        dir; returns the result and {group: (plugin, path)}."""
        ini = os.path.join(SOURCE_ROOT, "conf", name)
        parser = configparser.ConfigParser()
        parser.read(ini)
        outputs, sets = {}, []
        for group in parser.sections():
            if group.startswith("output "):
                path = self.path(group[7:] + "-" + os.path.basename(parser[group]["path"]))
                outputs[group] = (parser[group]["plugin"], path)
                sets += ["--set", f"{group}.path={path}"]
        return fxsplit("run", ini, *sets, *extra), outputs

    def test_every_conf_pipeline_runs(self):
        inis = sorted(glob.glob(os.path.join(SOURCE_ROOT, "conf", "*.ini")))
        self.assertGreaterEqual(len(inis), 5)
        for ini in inis:
            with self.subTest(ini=os.path.basename(ini)):
                r, outputs = self.run_conf(os.path.basename(ini))
                self.assert_ok(r)
                self.assertEqual(len(r.stdout.splitlines()), len(outputs))
                for group, (plugin, path) in outputs.items():
                    # An output may write more files after its path (dot's render).
                    self.assertRegex(r.stdout, "(?m)^" + re.escape(f"[{group}] {plugin}: wrote {path}")
                                     + "(, .+)?$")
                    self.assertTrue(os.path.exists(path))
                    if plugin == "json":
                        self.assertTrue(partitions(path))

    def test_example_splits_the_cnn_by_stage(self):
        r, _ = self.run_conf("example.ini")
        self.assert_ok(r)
        parts = partitions(self.path("json-small-cnn.split.json"))
        self.assertEqual(list(parts), ["0", "1", "2"])
        self.assertEqual(parts["0"], ["stem_0", "stem_1", "stem_2"])
        self.assertEqual(parts["2"], ["pool", "flatten", "fc1", "relu_2", "fc2"])

    def test_modulo_is_the_docstring_example(self):
        # split_module's docstring: the k-th call node goes to k % 3.
        r, _ = self.run_conf("modulo.ini")
        self.assert_ok(r)
        self.assertEqual(partitions(self.path("json-docstring.split.json")),
                         {"0": ["add", "linear_1"], "1": ["linear", "clamp_1"],
                          "2": ["clamp", "add_1"]})

    def test_set_overrides(self):
        r, _ = self.run_conf("modulo.ini", "--set", "partitioner.partitions=1",
                             "--set", "split.partition_affix=p")
        self.assert_ok(r)
        self.assertEqual(list(partitions(self.path("json-docstring.split.json"))), ["p_0"])

    def test_quiet_and_verbose(self):
        r, _ = self.run_conf("json.ini", "--quiet")
        self.assert_ok(r)
        self.assertEqual((r.stdout, r.stderr), ("", ""))
        r, _ = self.run_conf("json.ini", "--verbose")
        self.assert_ok(r)
        self.assertIn("fxsplit: [output readable] json: 3 partitions written to ", r.stderr)
        # and where the time went, one line
        self.assertRegex(r.stderr, r"fxsplit: times: prepare [0-9.]+ s, load [0-9.]+ s \(\d+ nodes\), "
                                   r"split [0-9.]+ s \(3 partitions\), write [0-9.]+ s, total [0-9.]+ s\n")
        # and the peak memory after each step, which only grows
        m = re.search(r"fxsplit: peak memory: ([0-9.]+) MiB after load, ([0-9.]+) MiB after split, "
                      r"([0-9.]+) MiB after write\n", r.stderr)
        self.assertIsNotNone(m, r.stderr)
        peaks = [float(x) for x in m.groups()]
        self.assertTrue(0 < peaks[0] <= peaks[1] <= peaks[2], peaks)
        r, _ = self.run_conf("json.ini")
        self.assertNotIn("times:", r.stderr)
        self.assertNotIn("peak memory:", r.stderr)


class TestSplitCommand(FxsplitTestCase):
    def test_split_once(self):
        out = self.path("out.json")
        r = fxsplit("split", DOCSTRING, "--partitioner", "modulo", "--option", "partitions=3",
                    "--output", f"json:{out}")
        self.assert_ok(r)
        self.assertEqual(r.stdout, f"[output json] json: wrote {out}\n")
        self.assertEqual(len(partitions(out)), 3)

    def test_split_options_and_two_outputs(self):
        r = fxsplit("split", DOCSTRING, "-p", "modulo", "--partition-affix", "a",
                    "--keep-original-order", "--tuple-return", "--no-keep-original-input-name",
                    "-O", "json:one.json", "-O", "json:two.json",
                    "--output-option", "json-2.indent=2", cwd=self.tmp)
        self.assert_ok(r)
        self.assertEqual(r.stdout, "[output json] json: wrote one.json\n"
                                   "[output json-2] json: wrote two.json\n")
        self.assertEqual(list(partitions(self.path("one.json"))), ["a_0", "a_1", "a_2"])
        with open(self.path("two.json"), encoding="utf-8") as f:
            self.assertTrue(f.read().startswith('{\n  "format": "fxsplit-graph",\n'))
        with open(self.path("one.json"), encoding="utf-8") as a, \
                open(self.path("two.json"), encoding="utf-8") as b:
            self.assertEqual(json.load(a), json.load(b))

    def test_map_file_and_plugin_by_path(self):
        mapping = self.write("ids.json", json.dumps({"stem_0": 0, "stem_1": 0, "stem_2": 0}))
        modules = os.path.join(os.environ["FXSPLIT_BUILD_ROOT"], "plugins", "map.so")
        r = fxsplit("split", SMALL_CNN, "-p", modules, "-o", f"file={mapping}", "-o", "default=1",
                    "-O", f"json:{self.path('out.json')}")
        self.assert_ok(r)
        parts = partitions(self.path("out.json"))
        self.assertEqual(parts["0"], ["stem_0", "stem_1", "stem_2"])
        self.assertEqual(len(parts["1"]), 12)
        # Names that are not in the graph are only a warning.
        columns = self.write("ids.txt", "# name id\nstem_0 0\nnot_a_node 5\n")
        r = fxsplit("split", SMALL_CNN, "-p", "map", "-o", f"file={columns}", "-o", "default=1",
                    "-O", f"json:{self.path('out2.json')}")
        self.assert_ok(r)
        self.assertEqual(r.stderr, f"fxsplit: [partitioner] map: 1 entries of {columns} name no "
                                   "call node of the graph\n")

    def write_big_graph(self, n_blocks=8000):
        """A residual chain of 3 * n_blocks + 2 nodes, its blocks in 4
        stages: a module call, a parameter, an addition reading the block
        before.  Big enough for every step to use threads: the engine's
        build, the json output's and the loader's (a file from 4 MiB on)."""
        attributes, nodes = {}, [{"name": "x", "op": "placeholder", "target": "x"}]
        prev = "x"
        for i in range(n_blocks):
            stage = 4 * i // n_blocks
            attributes[f"layers.{i}.fc"] = {"kind": "module", "class": "torch.nn.Linear"}
            attributes[f"layers.{i}.scale"] = {"kind": "parameter", "shape": [8],
                                               "dtype": "torch.float32"}
            nodes += [
                {"name": f"fc_{i}", "op": "call_module", "target": f"layers.{i}.fc",
                 "args": [{"node": prev}], "meta": {"stage": stage}},
                {"name": f"layers_{i}_scale", "op": "get_attr", "target": f"layers.{i}.scale"},
                {"name": f"add_{i}", "op": "call_function", "target": "_operator.add",
                 "args": [{"node": f"fc_{i}"}, {"node": f"layers_{i}_scale"}],
                 "kwargs": {"alpha": {"node": prev}} if i % 7 == 0 else {},
                 "meta": {"stage": stage}},
            ]
            prev = f"add_{i}"
        nodes.append({"name": "output", "op": "output", "target": "output",
                      "args": [{"node": prev}]})
        return self.write("big.json", json.dumps({"format": "fxsplit-graph", "version": 1,
                                                  "attributes": attributes, "nodes": nodes}))

    def test_threads_give_the_same_split(self):
        graph = self.write_big_graph()
        self.assertGreaterEqual(os.path.getsize(graph), 4 << 20)
        texts = {}
        for threads in (None, "1", "2", "5"):
            out = self.path(f"out-{threads}.json")
            args = ["split", graph, "-p", "map", "-o", "meta_key=stage", "-O", f"json:{out}"]
            if threads:
                args += ["--threads", threads]
            self.assert_ok(fxsplit(*args))
            with open(out, encoding="utf-8") as f:
                texts[threads] = f.read()
        self.assertEqual(len(partitions(self.path("out-1.json"))), 4)
        for threads in (None, "2", "5"):
            self.assertEqual(texts[threads], texts["1"], f"--threads {threads}")
        # run: the flag over the pipeline file's [split] threads
        ini = self.write("big.ini", f"[graph]\ninput = {graph}\n[split]\nthreads = 1\n"
                                    "[partitioner]\nplugin = map\nmeta_key = stage\n"
                                    "[output json]\nplugin = json\npath = run.json\n")
        self.assert_ok(fxsplit("run", ini, "--threads", "2"))
        with open(self.path("run.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), texts["1"])

    def test_threads_must_be_a_count(self):
        for bad in ("-1", "two", "1025"):
            r = fxsplit("split", DOCSTRING, "-p", "modulo", "--threads", bad)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual(r.stderr, "fxsplit: --threads: [split] threads: expected a number "
                                       "from 0 (as many as the machine has processors) to 1024, "
                                       f"got '{bad}'\n")

    def test_no_outputs_only_checks(self):
        r = fxsplit("split", DOCSTRING, "-p", "modulo")
        self.assert_ok(r)
        self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    main()
