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

    def test_not_a_split(self):
        # an unsplit graph is no split of itself; nor is a result without
        # its partitions table
        self.assert_fails(fxsplit("verify", DOCSTRING, DOCSTRING), 4,
                          "docstring.json: not a split of", "it has no submodules and no "
                          "\"partitions\" table: a graph file, not a split result")
        out = self.split(SMALL_CNN, "--partitioner", "balanced", "--option", "stages=3")
        self.assert_fails(fxsplit("verify", SMALL_CNN, self.edited(
            out, lambda doc: doc.pop("partitions"))), 4, "it has no \"partitions\" table")

        def no_submodules(doc):
            doc["submodules"] = []
            doc["partitions"] = []
        self.assert_fails(fxsplit("verify", SMALL_CNN, self.edited(out, no_submodules)), 4,
                          "it has no submodules, but the original graph has 15 call nodes")

    def test_partitions_table(self):
        """The table says what the graphs do: each mutation of a real split's
        table is refused, naming the entry."""
        out = self.split(SMALL_CNN, "--partitioner", "balanced", "--option", "stages=3")
        # the split: 0 -> 1 -> 2, submodules submod_0..2
        self.assert_ok(fxsplit("verify", SMALL_CNN, out))

        def table(edit):
            def apply(doc):
                edit(doc["partitions"])
            return self.edited(out, apply)

        def rename_submodule(parts):
            parts[1]["submodule"] = "submod_9"

        def duplicate_entry(parts):
            parts.append(dict(parts[0]))

        def two_for_one_submodule(parts):
            parts[2]["submodule"] = "submod_1"

        def drop_entry(parts):
            parts.pop()
            parts[1]["dependents"] = []

        def swap_entries(parts):
            parts[0], parts[1] = parts[1], parts[0]

        def cycle(parts):
            parts[0]["dependencies"] = ["2"]
            parts[2]["dependents"] = ["0"]

        def unknown_dependency(parts):
            parts[1]["dependencies"] = ["0", "7"]

        def repeated_dependency(parts):
            parts[1]["dependencies"] = ["0", "0"]

        def missing_dependency(parts):
            parts[1]["dependencies"] = []
            parts[0]["dependents"] = []

        def extra_dependency(parts):
            parts[2]["dependencies"] = ["1", "0"]
            parts[0]["dependents"] = ["1", "2"]

        def dependents_disagree(parts):
            parts[0]["dependents"] = ["2"]

        cases = [
            (rename_submodule, 'partition "1" names submodule "submod_9", which the file does '
                               'not have'),
            (duplicate_entry, 'two partitions are named "0"'),
            (two_for_one_submodule, 'partitions "1" and "2" both name submodule "submod_1"'),
            (drop_entry, 'submodule "submod_2" has no entry'),
            (swap_entries, 'partition "0" is entry 2, but its submodule "submod_0" is submodule 1'),
            # a cycle has a dependency that no value flows along
            (cycle, 'partition "0" lists partition "2" among its dependencies, but its call '
                    'takes no value of submodule "submod_2"'),
            (unknown_dependency, 'partition "1" lists "7" among its dependencies, but no '
                                 'partition has that name'),
            (repeated_dependency, 'partition "1" lists "0" twice among its dependencies'),
            (missing_dependency, 'partition "1" takes values of partition "0" (its call reads '
                                 'submodule "submod_0"\'s), but does not list it among its '
                                 'dependencies'),
            (extra_dependency, 'partition "2" lists partition "0" among its dependencies, but '
                               'its call takes no value of submodule "submod_0"'),
            (dependents_disagree, 'partition "0" lists "2" among its dependents, but "2" does '
                                  'not list it among its dependencies'),
        ]
        for edit, message in cases:
            with self.subTest(edit.__name__):
                self.assert_fails(fxsplit("verify", SMALL_CNN, table(edit)), 4,
                                  "edited.json: not a split of", "partitions table: " + message)

    def test_input_errors(self):
        out = self.split(DOCSTRING, "--partitioner", "balanced", "--option", "stages=2")
        self.assert_fails(fxsplit("verify", DOCSTRING, self.path("missing.json")), 2,
                          "missing.json: cannot open")
        self.assert_fails(fxsplit("verify", self.write("bad.json", "{"), out), 2, "bad.json:")
        self.assert_fails(fxsplit("verify", DOCSTRING), 1, "verify: expected")


if __name__ == "__main__":
    main()
