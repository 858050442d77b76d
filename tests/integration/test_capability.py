"""The capability partitioner from the command line: several backends in
priority order, dtype conditions, non_compute_ops, and the one-line errors
of a bad `backends` value."""
import json

from fxtest import SMALL_CNN, FxsplitTestCase, fxsplit, main


class TestCapability(FxsplitTestCase):
    def split(self, *options, verbose=False):
        args = ["split", SMALL_CNN, "-p", "capability"]
        for o in options:
            args += ["-o", o]
        if verbose:
            args.append("--verbose")
        return fxsplit(*args, "-O", f"json:{self.path('out.json')}")

    def partitions(self):
        with open(self.path("out.json"), encoding="utf-8") as f:
            return [p["nodes"] for p in json.load(f)["partitions"]]

    def labels(self):
        with open(self.path("out.json"), encoding="utf-8") as f:
            return [p.get("label") for p in json.load(f)["partitions"]]

    def test_backends_in_priority_order(self):
        # relu and add run on both; gpu comes first and takes them
        r = self.split("backends=gpu: class:Conv2d class:BatchNorm2d function:relu function:add, "
                       "cpu: class:ReLU function:relu function:add class:Linear", verbose=True)
        self.assert_ok(r)
        self.assertIn("capability: partitions by backend: gpu 3, cpu 3", r.stderr)
        # levels in rounds of (unsupported, gpu, cpu): the kind changes at
        # every partition
        self.assertEqual(self.partitions(), [
            ["stem_0", "stem_1"], ["stem_2"],
            ["block_conv1", "block_bn1", "relu", "block_conv2", "block_bn2", "add", "relu_1"],
            ["pool", "flatten"], ["fc1"], ["relu_2"], ["fc2"]])
        self.assertEqual(self.labels(), ["gpu", "cpu", "gpu", "unsupported", "cpu", "gpu", "cpu"])

    def test_one_backend_labels(self):
        self.assert_ok(self.split("allow=class:Linear"))
        self.assertEqual(self.labels(), ["unsupported", "supported", "unsupported", "supported"])

    def test_dtype_conditions(self):
        self.assert_ok(self.split("allow=class:Conv2d@float16|bfloat16", verbose=True))
        self.assertEqual(len(self.partitions()), 1)
        r = self.split("allow=class:Conv2d@float32 class:BatchNorm2d@torch.float32", verbose=True)
        self.assert_ok(r)
        self.assertIn("capability: 3 supported partitions (6 of 15 call nodes)", r.stderr)

    def test_non_compute_ops_leave_the_edges(self):
        self.assert_ok(self.split("allow=function:flatten class:Linear"))
        self.assertIn(["flatten", "fc1"], self.partitions())
        r = self.split("allow=function:flatten class:Linear", "non_compute_ops=function:flatten",
                       verbose=True)
        self.assert_ok(r)
        self.assertIn("1 non-compute node was at the edge of a supported group", r.stderr)
        self.assertIn(["fc1"], self.partitions())
        self.assertNotIn(["flatten", "fc1"], self.partitions())
        # not counted by min_size: {flatten, fc1} has one compute node
        r = self.split("allow=function:flatten class:Linear", "non_compute_ops=function:flatten",
                       "min_size=2", verbose=True)
        self.assert_ok(r)
        self.assertIn("capability: 0 supported partitions", r.stderr)

    def test_bad_backends(self):
        cases = [
            ("backends=class:Conv2d gpu: function:relu",
             "backends: 'class:Conv2d' comes before the first backend name (expected NAME: "
             "SELECTORS, NAME: SELECTORS ...)"),
            ("backends=gpu: , cpu: function:relu", "backends: backend 'gpu' lists no selector"),
            ("backends=gpu: function:relu cpu:", "backends: backend 'cpu' lists no selector"),
            ("backends=gpu: function:relu gpu: function:add", "backends: backend 'gpu' is named twice"),
            ("backends=unsupported: function:relu", "backends: 'unsupported' is the label of the "
                                                     "other partitions, not a backend name"),
            ("backends= ", "backends: names no backend"),
            ("backends=gpu: function:relu class: Conv2d", "backends: 'class:' is a selector kind, not a "
                                            "backend name (write class:GLOB without a blank)"),
            ("backends=" + "g" * 129 + ": function:relu", "backends: a backend name is longer "
                                                           "than the 128 bytes of a label"),
            ("backends=gpu: op:relu", "backends: gpu: unknown selector kind 'op' in 'op:relu'"),
            ("backends=gpu:function:relu", "backends: 'gpu:function:relu' comes before the first "
                                           "backend name"),
            ("backends=gpu: function:relu@float17", "backends: gpu: unknown dtype 'float17' in "
                                                    "'function:relu@float17'"),
        ]
        for option, message in cases:
            with self.subTest(option=option):
                self.assert_fails(self.split(option), 1, f"[partitioner] capability: {message}")
        self.assert_fails(self.split("allow=function:relu", "backends=gpu: function:relu"), 1,
                          "set exactly one of 'allow' (one backend) and 'backends' (several)")
        self.assert_fails(self.split("min_size=2"), 1, "set exactly one of 'allow'")
        self.assert_fails(self.split("allow=function:relu", "non_compute_ops=function:"), 1,
                          "non_compute_ops: 'function:' has an empty pattern")
        self.assertNotIn("out.json", self.files())


if __name__ == "__main__":
    main()
