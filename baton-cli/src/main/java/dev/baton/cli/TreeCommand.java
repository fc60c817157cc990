package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.cache.CachedNode;
import dev.baton.cache.TreeCache;
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
    description = "Prints the nodes below <path>, each named for what it is (mutex, read-write lock, semaphore,"
        + " leader latch, double barrier, queue, service) with its holder, leader or size; other nodes with"
        + " their data when it is short text.")
public final class TreeCommand implements Callable<Integer> {
  private static final int MAX_VALUE_SHOWN = 60;

  @Spec CommandSpec spec;
  @Mixin ConnectOptions connection;
  @Mixin JsonOutput json;

  @Parameters(index = "0", paramLabel = "<path>", description = "Where to start, e.g. / or /locks.")
  String path;

  /** One line of the listing. */
  record Entry(String path, int depth, NodeKind kind, String detail) {}

  @Override
  public Integer call() {
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
