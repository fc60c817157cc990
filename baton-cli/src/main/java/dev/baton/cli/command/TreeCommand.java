package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.cache.CachedNode;
import dev.baton.cache.TreeCache;
import dev.baton.cli.BatonCommand;
import dev.baton.lock.LockOwner;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton tree}: the nodes below a path, each named for what it is (mutex, read-write lock,
 * semaphore, election, double barrier, queue, service) with its holder, leader or size, as no
 * plain ZooKeeper browser does. The recipes' own nodes (lock nodes, queue items) are summed up,
 * not listed.
 */
@Command(name = "tree", mixinStandardHelpOptions = true,
    description = {"Prints the nodes below <path>, each named for what it is (mutex, read-write lock, semaphore,"
        + " leader latch, double barrier, queue, service) with its holder, leader or size; other nodes with"
        + " their data when it is short text.",
        "With --redis: the locks, read-write locks, semaphores and fences whose keys are in Redis (Baton's and"
            + " Redisson's layouts), grouped by kind, with their holders. With --jdbc: the rows of the lock table,"
            + " with their holders."})
public final class TreeCommand implements Callable<Integer> {
  private static final int MAX_VALUE_SHOWN = 60;

  @Spec CommandSpec spec;
  @Mixin StoreOptions store;
  @Mixin JsonOutput json;

  @Parameters(index = "0", paramLabel = "<path>",
      description = "Where to start, e.g. / or /locks; with --redis or --jdbc, a pattern of the names to list"
          + " ('*' any characters, '?' one; '/' every name), e.g. 'jobs:*'.")
  String path;

  /** One line of the listing. */
  record Entry(String path, int depth, NodeKind kind, String detail) {}

  @Override
  public Integer call() {
    switch (store.kind(spec)) {
      case REDIS -> {
        return redis();
      }
      case JDBC -> {
        return jdbc();
      }
      default -> {
        return zooKeeper(store.zooKeeper);
      }
    }
  }

  /** Redis: the recipes found by their keys, grouped by kind. */
  private int redis() {
    if (RedisConnectOptions.isCluster(store.redis.uri)) {
      throw new CliException("'baton tree --redis' does not walk a Redis Cluster's nodes; give one node's"
          + " redis://host:port, or look at one recipe with 'baton lock holder --redis'");
    }
    try (Store opened = store.open(spec, null, "name", false)) {
      opened.noLayout("the tree, which lists both layouts,");
      List<RedisTree.Recipe> recipes = RedisTree.list(opened.redis(), store.redis, store.zooKeeper.connectTimeout, path);
      PrintWriter out = spec.commandLine().getOut();
      if (json.enabled) {
        JsonOutput.print(out, JsonOutput.object("pattern", path, "backend", "redis", "recipes", recipes.stream()
            .map(r -> JsonOutput.object("name", r.name(), "kind", r.kind().label, "layout", r.layout(),
                "detail", r.detail())).toList()));
        return BatonCommand.OK;
      }
      if (recipes.isEmpty()) {
        out.println("no Baton or Redisson lock, read-write lock, semaphore or fence named " + path + " in "
            + opened.redis().address());
      }
      RedisTree.Kind shown = null;
      int width = recipes.stream().mapToInt(r -> r.name().length()).max().orElse(0);
      for (RedisTree.Recipe r : recipes) {
        if (r.kind() != shown) {
          shown = r.kind();
          out.println("[" + shown.label + "]");
        }
        out.println("  " + r.name() + " ".repeat(width - r.name().length()) + "  " + r.detail()
            + (r.layout().equals("redisson") ? "  (Redisson's layout)" : ""));
      }
      out.flush();
      return BatonCommand.OK;
    }
  }

  /** SQL: the rows of the lock table. */
  private int jdbc() {
    try (Store opened = store.open(spec, null, "name", false)) {
      dev.baton.jdbc.JdbcBaton baton = (dev.baton.jdbc.JdbcBaton) opened.coordinator();
      int seconds = (int) Math.max(1, Math.min(Integer.MAX_VALUE, store.zooKeeper.connectTimeout.toSeconds()));
      List<JdbcTree.Row> rows = JdbcTree.list(baton, store.jdbc, seconds, path);
      PrintWriter out = spec.commandLine().getOut();
      if (json.enabled) {
        JsonOutput.print(out, JsonOutput.object("pattern", path, "backend", opened.backend(), "table", baton.table(),
            "locks", rows.stream().map(r -> JsonOutput.object("name", r.name(), "kind", "mutex", "detail", r.detail()))
                .toList()));
        return BatonCommand.OK;
      }
      if (rows.isEmpty()) {
        out.println("no lock named " + path + " in " + baton.table());
        out.flush();
        return BatonCommand.OK;
      }
      out.println("[mutex] rows of " + baton.table());
      int width = rows.stream().mapToInt(r -> r.name().length()).max().orElse(0);
      rows.forEach(r -> out.println("  " + r.name() + " ".repeat(width - r.name().length()) + "  " + r.detail()));
      out.flush();
      return BatonCommand.OK;
    }
  }

  private int zooKeeper(ConnectOptions connection) {
    if (!path.equals("/")) {
      LockCommand.checkPath(path, "<path>", "path", spec);
    }
    try (Baton baton = connection.open(spec); TreeCache cache = baton.cache(path)) {
      if (!cache.start().awaitInitialized(connection.connectTimeout)) {
        throw new CliException("Could not read the tree below " + path + " within "
            + DurationConverter.seconds(connection.connectTimeout));
      }
      if (cache.get(path).isEmpty()) {
        throw new CliException("no node " + path);
      }
      List<Entry> entries = new ArrayList<>();
      walk(baton, cache, path, 0, entries);
      print(entries);
      return BatonCommand.OK;
    }
  }

  private void walk(Baton baton, TreeCache cache, String at, int depth, List<Entry> entries) {
    SortedMap<String, CachedNode> children = cache.children(at);
    NodeKind kind = kindOf(cache, at);
    entries.add(new Entry(at, depth, kind, detail(baton, cache, at, kind, children)));
    if (kind.hidesChildren()) {
      return;
    }
    for (String name : children.keySet()) {
      walk(baton, cache, child(at, name), depth + 1, entries);
    }
  }

  public static NodeKind kindOf(TreeCache cache, String at) {
    Map<String, byte[]> children = new LinkedHashMap<>();
    cache.children(at).forEach((name, node) -> children.put(name, node.data()));
    return NodeKind.of(children);
  }

  private static String child(String parent, String name) {
    return parent.equals("/") ? "/" + name : parent + "/" + name;
  }

  private static String detail(Baton baton, TreeCache cache, String at, NodeKind kind,
      SortedMap<String, CachedNode> children) {
    return switch (kind) {
      case MUTEX -> {
        var holder = baton.mutex(at).holder();
        yield holder.map(h -> "held by " + owner(h)).orElse("free") + ", " + waiting(children.size() - 1);
      }
      case READ_WRITE_LOCK -> {
        List<LockOwner> holders = baton.readWriteLock(at).holders();
        boolean writer = holders.stream().anyMatch(h -> h.node().contains("__WRIT__"));
        yield holders.isEmpty() ? "free" : (writer ? "written by " + owner(holders.get(0))
            : holders.size() + (holders.size() == 1 ? " reader" : " readers"));
      }
      case SEMAPHORE -> cache.children(at + "/leases").size() + " lease nodes (holders and waiters)";
      case LEADER_LATCH -> {
        List<String> line = baton.leaderLatch(at, "baton-cli").participants();
        yield line.isEmpty() ? "no participants" : "leader " + line.get(0) + ", " + line.size() + " participants";
      }
      case DOUBLE_BARRIER -> (children.size() - (children.containsKey("ready") ? 1 : 0)) + " members"
          + (children.containsKey("ready") ? ", ready" : "");
      case QUEUE -> {
        long items = children.keySet().stream().filter(n -> !n.equals("claims")).count();
        yield items + (items == 1 ? " item, " : " items, ") + cache.children(at + "/claims").size() + " claimed";
      }
      case SERVICE -> children.size() + (children.size() == 1 ? " instance: " : " instances: ")
          + String.join(", ", children.keySet());
      case PLAIN -> cache.get(at).map(TreeCommand::value).orElse("");
    };
  }

  private static String owner(LockOwner owner) {
    return owner.host() + (owner.pid() > 0 ? " pid " + owner.pid() : "") + " token " + owner.fencingToken();
  }

  private static String waiting(int count) {
    return count <= 0 ? "nobody waiting" : count + " waiting";
  }

  /** Short printable text as it is; anything else as its size. */
  private static String value(CachedNode node) {
    if (!node.hasData() || node.data().length == 0) {
      return "";
    }
    String text = node.dataAsString();
    boolean printable = text.chars().allMatch(c -> c >= ' ' && c != 0x7f && c != 0xfffd);
    if (!printable || text.length() > MAX_VALUE_SHOWN) {
      return node.data().length + " bytes, version " + node.version();
    }
    return "= " + text;
  }

  private void print(List<Entry> entries) {
    PrintWriter out = spec.commandLine().getOut();
    if (json.enabled) {
      JsonOutput.print(out, JsonOutput.object("path", path, "nodes", entries.stream()
          .map(e -> JsonOutput.object("path", e.path(), "kind", e.kind().label(), "detail", e.detail())).toList()));
      return;
    }
    for (Entry e : entries) {
      String name = e.depth() == 0 ? e.path() : e.path().substring(e.path().lastIndexOf('/') + 1);
      String label = e.kind() == NodeKind.PLAIN ? "" : "[" + e.kind().label() + "] ";
      out.println("  ".repeat(e.depth()) + name + (label.isEmpty() && e.detail().isEmpty() ? "" : "  " + label + e.detail()));
    }
    out.flush();
  }
}
