"""The planning partitioners from the command line: buckets (DDPOptimizer's
buckets) and balanced with device constraints (capacity, speed,
bandwidth) on resnet18; their errors are one line with the documented
exit status and leave no output."""
import json
import os
import re

from fxtest import SOURCE_ROOT, FxsplitTestCase, fxsplit, main

RESNET18 = os.path.join(SOURCE_ROOT, "tests", "data", "models", "resnet18.json")


class PlannersTest(FxsplitTestCase):
    def split(self, plugin, *options, verbose=False):
        out = self.path("split.json")
        args = ["split", RESNET18, "--partitioner", plugin, "--output", f"json:{out}"]
        for o in options:
            args += ["--option", o]
        r = fxsplit(*args, *(["--verbose"] if verbose else []))
        return r, out

    def partitions(self, path):
        with open(path, encoding="utf-8") as f:
            return [p["nodes"] for p in json.load(f)["partitions"]]

    def test_buckets(self):
        r, out = self.split("buckets", "bucket_bytes_cap=8MiB", verbose=True)
        self.assert_ok(r)
        m = re.search(r"\[partitioner\] buckets: (\d+) buckets of parameters, in graph order: (.*)",
                      r.stderr)
        self.assertIsNotNone(m, r.stderr)
        parts = self.partitions(out)
        self.assertEqual(len(parts), int(m.group(1)))
        self.assertGreater(len(parts), 3)
        # The first bucket closed (the graph's end: fc) is DDP's 1 MiB one.
        self.assertEqual(parts[-1], ["fc"])
        sizes = m.group(2).split(", ")
        self.assertEqual(sizes[-1], "2.0 MiB")
        # Every bucket but the front one reached the cap.
        self.assertTrue(all(float(s.split()[0]) >= 8 for s in sizes[1:-1] if s.endswith("MiB")), sizes)

    def test_buckets_one_bucket_and_errors(self):
        r, out = self.split("buckets", "bucket_bytes_cap=1GiB", "first_bucket_cap=1GiB")
        self.assert_ok(r)
        self.assertEqual(len(self.partitions(out)), 1)
        os.remove(out)
        r, _ = self.split("buckets", "bucket_bytes_cap=25 megabytes")
        self.assert_fails(r, 1, "[partitioner] buckets: bucket_bytes_cap: '25 megabytes' is not a size")
        self.assertEqual(self.files(), [])

    def test_speed_gives_the_faster_stage_more(self):
        r, out = self.split("balanced", "stages=2", "cost=flops", "speed=1, 3", verbose=True)
        self.assert_ok(r)
        self.assertIn("balanced: 2 stages (2 with nodes), bottleneck ", r.stderr)
        first, second = self.partitions(out)
        self.assertGreater(len(second), 2 * len(first))

    def test_sending_that_costs_everything_keeps_one_stage(self):
        # A stage that sends anything takes longer than the whole graph.
        r, out = self.split("balanced", "stages=4", "bandwidth=1e-12")
        self.assert_ok(r)
        self.assertEqual(len(self.partitions(out)), 1)

    def test_capacity(self):
        # Unconstrained: 23 call nodes per stage; the first stage's 24.6 MiB
        # then do not fit 20 MiB, and the last one takes the most.
        r, out = self.split("balanced", "stages=3", "capacity=20MiB, 50MiB, 50MiB", verbose=True)
        self.assert_ok(r)
        self.assertIn("balanced: 3 stages (3 with nodes), bottleneck 27 (time = cost nodes / speed)",
                      r.stderr)
        parts = self.partitions(out)
        self.assertEqual((parts[0][-1], parts[2][0]), ("layer1_1_conv2", "layer3_0_relu_1"))
        self.assertEqual(len(parts[2]), 27)
        os.remove(out)
        r, _ = self.split("balanced", "stages=3", "capacity=16MiB, 16MiB, 8MiB")
        self.assert_fails(r, 3, "[partitioner] balanced: capacity: no split into 3 stages fits: "
                                "with each stage filled as far as its capacity allows, the last stage "
                                "(capacity 8.0 MiB) would need 8.1 MiB to take call node "
                                "'layer3_1_conv1' too, and 26 call nodes from it on are left over")
        r, _ = self.split("balanced", "stages=2", "capacity=1MiB, 2MiB")
        self.assert_fails(r, 3, "capacity: call node 'conv1' alone needs 3.7 MiB (its parameters, its "
                                "value and the values it reads), more than the largest capacity 2.0 MiB")
        self.assertEqual(self.files(), [])

    def test_limits(self):
        # A chain of 20,001 relus: too many call nodes to plan with sending.
        nodes = [{"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}}]
        for i in range(20001):
            nodes.append({"name": f"r{i}", "op": "call_function", "target": "torch.relu",
                          "args": [{"node": nodes[-1]["name"]}], "kwargs": {}})
        nodes.append({"name": "output", "op": "output", "target": "output",
                      "args": [{"node": nodes[-1]["name"]}], "kwargs": {}})
        graph = self.write("chain.json", json.dumps({"format": "fxsplit-graph", "version": 1,
                                                     "nodes": nodes}))
        r = fxsplit("split", graph, "-p", "balanced", "-o", "stages=2", "-o", "bandwidth=1",
                    "-O", f"json:{self.path('out.json')}")
        self.assert_fails(r, 3, "balanced: bandwidth: the plan with sending times takes time quadratic "
                                "in the call nodes: this graph has 20001 call nodes for 2 stages")
        r, _ = self.split("balanced", "stages=65537", "bandwidth=1")
        self.assert_fails(r, 1, "balanced: stages: at most 65536 with capacity, speed or bandwidth, "
                                "got 65537")
        self.assertEqual(self.files(), ["chain.json"])

    def test_list_lengths_in_a_pipeline(self):
        self.write("p.ini", f"[graph]\ninput = {RESNET18}\n\n[partitioner]\nplugin = balanced\n"
                            "stages = 3\nspeed = 1, 1, 0.5\ncapacity = 16GiB, 8GiB\n\n"
                            "[output json]\nplugin = json\npath = out.json\n")
        r = fxsplit("run", "p.ini", cwd=self.tmp)
        self.assert_fails(r, 1, "[partitioner] balanced: capacity: 2 values for 3 stages "
                                "(give one per stage)")
        self.assertEqual(self.files(), ["p.ini"])

    def test_plugins_lists_the_options(self):
        r = fxsplit("plugins", "balanced")
        self.assert_ok(r)
        for key in ("capacity", "speed", "bandwidth"):
            self.assertRegex(r.stdout, rf"(?m)^    {key} \(")
        r = fxsplit("plugins", "buckets")
        self.assert_ok(r)
        self.assertIn("bucket_bytes_cap (string, default 25MiB)", r.stdout)
        self.assertIn("first_bucket_cap (string, default 1MiB)", r.stdout)


if __name__ == "__main__":
    main()
