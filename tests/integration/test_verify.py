"""fxsplit verify: the command's exit statuses and messages, on splits made
by fxsplit and on split results edited to differ from their original."""
import json

from fxtest import DOCSTRING, SMALL_CNN, FxsplitTestCase, fxsplit, main


class VerifyTest(FxsplitTestCase):
    def split(self, graph, *args):
        out = self.path("split.json")
        r = fxsplit("split", graph, "--output", f"json:{out}", "--quiet", *args)
        self.assert_ok(r)
        return out

    def edited(self, path, edit):
        """A copy of split result @path changed by @edit(document)."""
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        edit(doc)
        out = self.path("edited.json")
        with open(out, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        return out

    def test_splits_verify(self):
        for graph in (DOCSTRING, SMALL_CNN):
            for args in ((), ("--keep-original-order",), ("--tuple-return",),
                         ("--keep-original-node-name", "--no-keep-original-input-name")):
                out = self.split(graph, "--partitioner", "balanced", "--option", "stages=3", *args)
                r = fxsplit("verify", graph, out)
                self.assert_ok(r)
                self.assertRegex(r.stdout, r"^.*split\.json: a split of .* into 3 submodules, "
                                           r"computing each of its \d+ call nodes once\n$")
                self.assertEqual(fxsplit("verify", "--quiet", graph, out).stdout, "")

    def test_differences(self):
        out = self.split(DOCSTRING, "--partitioner", "balanced", "--option", "stages=2")

        def retarget(doc):
            for node in doc["submodules"][0]["nodes"]:
                if node["target"] == "_operator.add":
                    node["target"] = "_operator.sub"
                    return

        self.assert_fails(fxsplit("verify", DOCSTRING, self.edited(out, retarget)), 4,
                          "edited.json: not a split of", "submod_0: node", '"_operator.sub"')

        def drop_call(doc):
            nodes = doc["nodes"]
            call = next(n for n in nodes if n["op"] == "call_module")
            call["target"] = "submod_missing"

        self.assert_fails(fxsplit("verify", DOCSTRING, self.edited(out, drop_call)), 4,
                          "not a split of")
        # a split of another graph
        other = self.split(SMALL_CNN, "--partitioner", "balanced", "--option", "stages=2")
        self.assert_fails(fxsplit("verify", DOCSTRING, other), 4, "not a split of")

    def test_input_errors(self):
        out = self.split(DOCSTRING, "--partitioner", "balanced", "--option", "stages=2")
        self.assert_fails(fxsplit("verify", DOCSTRING, self.path("missing.json")), 2,
                          "missing.json: cannot open")
        self.assert_fails(fxsplit("verify", self.write("bad.json", "{"), out), 2, "bad.json:")
        self.assert_fails(fxsplit("verify", DOCSTRING), 1, "verify: expected")


if __name__ == "__main__":
    main()
