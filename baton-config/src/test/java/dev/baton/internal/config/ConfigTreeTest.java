package dev.baton.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.config.ConfigTree.Change;
import dev.baton.internal.config.ConfigTree.Node;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The config center's local copy, without ZooKeeper: each fact ("holds", "absent", "these are all
 * the children") changes the copy and reports exactly the keys whose value changed; folders hold
 * no value; a subtree's range never takes in a sibling whose name only starts the same.
 */
class ConfigTreeTest {
  private static Node key(String value) {
    return new Node(value, 0, 1);
  }

  private static final Node FOLDER = new Node(null, 0, 1);

  @Test
  void put_newKey_reportsItAppeared_andSameValueAgainReportsNothing() {
    ConfigTree tree = new ConfigTree();
    assertThat(tree.put("db/url", key("jdbc:a"))).containsExactly(new Change("db/url", null, "jdbc:a"));
    assertThat(tree.put("db/url", new Node("jdbc:a", 1, 1))).as("a new version, same value").isEmpty();
    assertThat(tree.put("db/url", key("jdbc:b"))).containsExactly(new Change("db/url", "jdbc:a", "jdbc:b"));
    assertThat(tree.values()).containsExactly(Map.entry("db/url", "jdbc:b"));
  }

  @Test
  void folders_holdNoValue_andAreLeftOutOfValuesAndKeys() {
    ConfigTree tree = new ConfigTree();
    assertThat(tree.put("db", FOLDER)).isEmpty();
    tree.put("db/url", key("u"));
    assertThat(tree.values()).containsOnlyKeys("db/url");
    assertThat(tree.keys()).containsOnlyKeys("db/url");
    assertThat(tree.hasDescendants("db")).isTrue();
    assertThat(tree.hasDescendants("db/url")).isFalse();
  }

  @Test
  void removeSubtree_removesTheKeyAndEverythingBelow_butNotASiblingWithALongerName() {
    ConfigTree tree = new ConfigTree();
    tree.put("db", FOLDER);
    tree.put("db/url", key("u"));
    tree.put("db/pool/size", key("10"));
    tree.put("db2/url", key("other"));
    tree.put("db.url", key("dotted"));
    List<Change> changes = tree.removeSubtree("db");
    assertThat(changes).containsExactlyInAnyOrder(
        new Change("db/url", "u", null), new Change("db/pool/size", "10", null));
    assertThat(tree.values()).containsOnlyKeys("db2/url", "db.url");
    assertThat(tree.node("db")).isNull();
  }

  @Test
  void removeSubtree_ofThePrefix_removesEverything() {
    ConfigTree tree = new ConfigTree();
    tree.put("a", key("1"));
    tree.put("b/c", key("2"));
    assertThat(tree.removeSubtree("")).hasSize(2);
    assertThat(tree.values()).isEmpty();
  }

  @Test
  void removeDescendants_keepsTheKeyItself() {
    ConfigTree tree = new ConfigTree();
    tree.put("feature", key("on"));
    tree.put("feature/x", key("1"));
    assertThat(tree.removeDescendants("feature")).containsExactly(new Change("feature/x", "1", null));
    assertThat(tree.values()).containsExactly(Map.entry("feature", "on"));
  }

  @Test
  void retainChildren_dropsChildrenNotListed_withTheirSubtrees() {
    ConfigTree tree = new ConfigTree();
    tree.put("app/a", key("1"));
    tree.put("app/b", key("2"));
    tree.put("app/b/deep", key("3"));
    tree.put("app/c", key("4"));
    tree.put("apple", key("5"));
    List<Change> changes = tree.retainChildren("app", List.of("a", "c"));
    assertThat(changes).containsExactlyInAnyOrder(new Change("app/b", "2", null), new Change("app/b/deep", "3", null));
    assertThat(tree.values()).containsOnlyKeys("app/a", "app/c", "apple");
  }

  @Test
  void retainChildren_ofThePrefix_judgesTopLevelNames() {
    ConfigTree tree = new ConfigTree();
    tree.put("a", key("1"));
    tree.put("b/x", key("2"));
    assertThat(tree.retainChildren("", List.of("a"))).containsExactly(new Change("b/x", "2", null));
    assertThat(tree.values()).containsOnlyKeys("a");
  }

  @Test
  void load_replacesTheCopy_reportingOnlyWhatDiffers() {
    ConfigTree tree = new ConfigTree();
    tree.put("kept", key("same"));
    tree.put("gone", key("x"));
    List<Change> changes = tree.load(Map.of("kept", key("same"), "new", key("n")));
    // "kept" is removed and put back: both steps are reported, and they cancel out for a listener
    // that applies them in order; "gone" goes, "new" comes.
    assertThat(changes).contains(new Change("gone", "x", null), new Change("new", null, "n"));
    assertThat(tree.values()).containsOnly(Map.entry("kept", "same"), Map.entry("new", "n"));
  }
}
