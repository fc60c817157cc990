package dev.baton.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.cache.NodeTree.Change;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The copy every cache keeps, without ZooKeeper: facts report exactly the changes the owner's
 * "same" predicate counts, a subtree's range never takes in a sibling whose name only starts the
 * same, and the root key ({@code ""}) goes with the whole tree.
 */
class NodeTreeTest {
  private record N(String value, int version) {}

  private final NodeTree<N> tree = new NodeTree<>((a, b) -> a.version() == b.version());

  @Test
  void put_sameVersionAgain_isNoChange_newVersionIs() {
    assertThat(tree.put("a", new N("x", 0))).containsExactly(new Change<>("a", null, new N("x", 0)));
    assertThat(tree.put("a", new N("x", 0))).as("read again, unchanged").isEmpty();
    assertThat(tree.put("a", new N("x", 1))).containsExactly(new Change<>("a", new N("x", 0), new N("x", 1)));
  }

  @Test
  void removeSubtree_leavesSiblingsWithTheSamePrefix() {
    tree.put("db", new N("", 0));
    tree.put("db/url", new N("u", 0));
    tree.put("db-old", new N("o", 0));
    tree.put("db0", new N("z", 0));

    List<Change<N>> changes = tree.removeSubtree("db");

    assertThat(changes).extracting(Change::key).containsExactlyInAnyOrder("db", "db/url");
    assertThat(tree.nodes()).containsOnlyKeys("db-old", "db0");
  }

  @Test
  void retainChildren_dropsTheMissingChildrenWithTheirSubtrees() {
    tree.put("", new N("root", 0));
    tree.put("a", new N("", 0));
    tree.put("a/b", new N("", 0));
    tree.put("c", new N("", 0));

    assertThat(tree.retainChildren("", List.of("c"))).extracting(Change::key).containsExactlyInAnyOrder("a", "a/b");
    assertThat(tree.nodes()).containsOnlyKeys("", "c");
    assertThat(tree.descendants("")).containsOnlyKeys("c");
  }

  @Test
  void removeSubtreeOfTheRoot_removesTheRootKeyToo() {
    tree.put("", new N("root", 0));
    tree.put("a", new N("", 0));

    assertThat(tree.removeSubtree("")).extracting(Change::key).containsExactlyInAnyOrder("", "a");
    assertThat(tree.nodes()).isEqualTo(Map.of());
  }
}
