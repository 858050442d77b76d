"""The map partitioner with string tags (PyTorch's split_by_tags): one
partition per tag, in the order of `tags` or of first appearance; the
errors name the node and the tag."""
import json

from fxtest import DOCSTRING, FxsplitTestCase, fxsplit, main

# docstring.json's call nodes in graph order
CALLS = ["add", "linear", "clamp", "linear_1", "clamp_1", "add_1"]


class TestMapTags(FxsplitTestCase):
    def graph(self, tags, key="tag"):
        """docstring.json with meta @key of each call node from @tags
        (a value of None leaves the entry out)."""
        with open(DOCSTRING, encoding="utf-8") as f:
            data = json.load(f)
        for node in data["nodes"]:
            if node["name"] in tags and tags[node["name"]] is not None:
                node.setdefault("meta", {})[key] = tags[node["name"]]
        return self.write("tagged.json", json.dumps(data))

    def split(self, tags, *options):
        args = ["split", self.graph(tags), "-p", "map", "-o", "meta_key=tag"]
        for o in options:
            args += ["-o", o]
        return fxsplit(*args, "-O", f"json:{self.path('out.json')}")

    def partitions(self):
        with open(self.path("out.json"), encoding="utf-8") as f:
            return [(p["id"], p["nodes"]) for p in json.load(f)["partitions"]]

    def labels(self):
        with open(self.path("out.json"), encoding="utf-8") as f:
            return [p.get("label") for p in json.load(f)["partitions"]]

    ABC = dict(zip(CALLS, ["a", "a", "b", "b", "c", "c"]))

    def test_first_appearance_order(self):
        self.assert_ok(self.split(self.ABC))
        self.assertEqual(self.partitions(), [(0, ["add", "linear"]), (1, ["clamp", "linear_1"]),
                                             (2, ["clamp_1", "add_1"])])
        self.assertEqual(self.labels(), ["a", "b", "c"])

    def test_tags_option_gives_the_ids(self):
        r = self.split(self.ABC, "tags=c, a b")
        self.assert_ok(r)
        self.assertEqual(r.stderr, "")
        # ids follow `tags`; the calls stay in dependency order
        self.assertEqual(self.partitions(), [(1, ["add", "linear"]), (2, ["clamp", "linear_1"]),
                                             (0, ["clamp_1", "add_1"])])
        self.assertEqual(self.labels(), ["a", "b", "c"])

    def test_integer_ids_have_no_labels(self):
        self.assert_ok(self.split(dict(zip(CALLS, [0, 0, 1, 1, 2, 2]))))
        self.assertEqual(self.labels(), [None, None, None])

    def test_tag_no_node_has_is_a_warning(self):
        r = self.split(self.ABC, "tags=a b c unused")
        self.assert_ok(r)
        self.assertIn("tags: no node has the tag 'unused': it gets no partition", r.stderr)
        self.assertEqual([i for i, _ in self.partitions()], [0, 1, 2])

    def test_node_tag_not_in_tags(self):
        self.assert_fails(self.split(self.ABC, "tags=a b"), 3,
                          "node 'clamp_1': meta 'tag': tag 'c' is not one of tags")
        self.assertNotIn("out.json", self.files())

    def test_ints_and_strings_mixed(self):
        mixed = dict(self.ABC, clamp_1=2, add_1=2)
        self.assert_fails(self.split(mixed), 3,
                          "node 'clamp_1': meta 'tag' is the integer 2, but node 'add' has "
                          "the string tag 'a': use integer ids or string tags, not both")
        mixed = dict(zip(CALLS, [0, 0, "b", "b", 1, 1]))
        self.assert_fails(self.split(mixed), 3,
                          "node 'clamp': meta 'tag' is the string tag 'b', but node 'add' has "
                          "the integer 0")

    def test_integer_with_tags_set(self):
        self.assert_fails(self.split(dict(self.ABC, add=0), "tags=a b c"), 3,
                          "node 'add': meta 'tag' is the integer 0, but tags lists string tags")

    def test_untagged_node(self):
        self.assert_fails(self.split(dict(self.ABC, linear_1=None)), 3,
                          "1 node has no tag in tag (split_by_tags needs every call node "
                          "tagged): linear_1")
        self.assert_fails(self.split(self.ABC, "default=0"), 3,
                          "default: an integer partition id, but the nodes have string tags")

    def test_bad_tags(self):
        self.assert_fails(self.split(dict(self.ABC, add="")), 3, "node 'add': meta 'tag': tag '' "
                                                                 "is empty")
        self.assert_fails(self.split(dict(self.ABC, add="x" * 129)), 3,
                          "is longer than the 128 bytes of a label")
        self.assert_fails(self.split(dict(self.ABC, add="a\x1bb")), 3,
                          "tag 'a\\x1bb' holds a control character")
        self.assert_fails(self.split(dict(self.ABC, add=1.5)), 3,
                          "node 'add': meta 'tag' is neither an integer partition id nor a "
                          "string tag")

    def test_bad_tags_option(self):
        self.assert_fails(self.split(self.ABC, "tags=a b a"), 1, "tags: tag 'a' is listed twice")
        self.assert_fails(self.split(self.ABC, "tags= , "), 1, "tags: lists no tag")
        r = fxsplit("split", DOCSTRING, "-p", "map", "-o", f"file={DOCSTRING}", "-o", "tags=a")
        self.assert_fails(r, 1, "tags: string tags come from meta_key, not from a file")


if __name__ == "__main__":
    main()
