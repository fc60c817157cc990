package dev.baton.cli.console;

import dev.baton.Baton;
import dev.baton.ConnectionState;
import dev.baton.cache.CacheListener;
import dev.baton.cache.CachedNode;
import dev.baton.cache.TreeCache;
import dev.baton.cli.command.JsonOutput;
import dev.baton.cli.command.NodeKind;
import dev.baton.cli.command.TreeCommand;
import dev.baton.lock.LockOwner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@code baton console} shows, kept current by one {@link TreeCache} on the console's root:
 * every lock (holders, waiters in line, since when), every election (leader, line), every service
 * (instances). Nothing is polled: the cache's watch tells of every change, and a recipe's holders
 * and waiters are read again only after a node below it changed.
 */
public final class ConsoleModel implements ConsoleView {
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

  private final Baton baton;
  private final String root;
  private final TreeCache cache;
  // Recipe path -> its view, read once after each change below it.
  private final Map<String, Map<String, Object>> views = new ConcurrentHashMap<>();

  ConsoleModel(Baton baton, String root) {
    this.baton = baton;
    this.root = root;
    this.cache = baton.cache(root);
  }

  /**
   * Starts following and waits at most {@code initialLoad} for the first copy; {@code onChange}
   * runs after every change of the tree or of the connection.
   */
  @Override
  public void start(Runnable onChange, Duration initialLoad) {
    cache.addListener(new CacheListener() {
      @Override
      public void added(CachedNode node) {
        invalidate(node.path(), onChange);
      }

      @Override
      public void changed(CachedNode before, CachedNode after) {
        invalidate(after.path(), onChange);
      }

      @Override
      public void removed(CachedNode node) {
        invalidate(node.path(), onChange);
      }

      @Override
      public void initialized() {
        onChange.run();
      }
    });
    baton.addConnectionStateListener(state -> {
      if (state == ConnectionState.RECONNECTED || state == ConnectionState.LOST) {
        views.clear(); // what was read before may be stale: read again
      }
      onChange.run();
    });
    cache.start().awaitInitialized(initialLoad);
  }

  private void invalidate(String path, Runnable onChange) {
    views.keySet().removeIf(recipe -> path.equals(recipe) || path.startsWith(recipe + "/")
        || recipe.startsWith(path + "/"));
    onChange.run();
  }

  /** The whole picture, JSON-ready; reads only the recipes whose view is stale. */
  @Override
  public Map<String, Object> snapshot() {
    Map<String, List<Object>> byGroup = new LinkedHashMap<>();
    for (String group : List.of("locks", "elections", "services", "queues", "others")) {
      byGroup.put(group, new ArrayList<>());
    }
    if (cache.get(root).isPresent()) {
      walk(root, byGroup);
    }
    Map<String, Object> state = new LinkedHashMap<>();
    state.put("root", root);
    state.put("connection", baton.connectionState().toString());
    state.put("synced", cache.isSynced());
    state.put("now", System.currentTimeMillis());
    state.putAll(byGroup);
    return state;
  }

  private void walk(String path, Map<String, List<Object>> byGroup) {
    NodeKind kind = TreeCommand.kindOf(cache, path);
    if (!kind.hidesChildren()) {
      cache.children(path).keySet().forEach(name -> walk(path.equals("/") ? "/" + name : path + "/" + name, byGroup));
      return;
    }
    Map<String, Object> view = views.computeIfAbsent(path, p -> read(p, kind));
    String group = switch (kind) {
      case MUTEX, READ_WRITE_LOCK, SEMAPHORE -> "locks";
      case LEADER_LATCH -> "elections";
      case SERVICE -> "services";
      case QUEUE -> "queues";
      default -> "others";
    };
    byGroup.get(group).add(view);
  }

  private Map<String, Object> read(String path, NodeKind kind) {
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("path", path);
    view.put("kind", kind.label());
    try {
      switch (kind) {
        case MUTEX -> {
          var mutex = baton.mutex(path);
          view.put("holders", mutex.holder().map(ConsoleModel::owner).map(List::of).orElse(List.of()));
          view.put("waiters", mutex.waiters().stream().map(ConsoleModel::owner).toList());
        }
        case READ_WRITE_LOCK -> {
          var lock = baton.readWriteLock(path);
          view.put("holders", lock.holders().stream().map(ConsoleModel::owner).toList());
          view.put("waiters", lock.waiters().stream().map(ConsoleModel::owner).toList());
        }
        case SEMAPHORE -> view.put("leases", cache.children(path + "/leases").size());
        case LEADER_LATCH -> {
          List<String> line = baton.leaderLatch(path, "baton-console").participants();
          view.put("leader", line.isEmpty() ? null : line.get(0));
          view.put("participants", line);
        }
        case SERVICE -> {
          List<Object> instances = new ArrayList<>();
          cache.children(path).forEach((id, node) -> instances.add(instance(id, node)));
          view.put("instances", instances);
        }
        case QUEUE -> view.put("items", cache.children(path).keySet().stream().filter(n -> !n.equals("claims")).count());
        default -> view.put("children", cache.children(path).size());
      }
    } catch (RuntimeException e) {
      view.put("error", e.getMessage());
    }
    return view;
  }

  /**
   * An instance as curator-x-discovery's JSON has it: address, port, and whether it is enabled
   * (the registry's health checks turn that off while an instance fails them).
   */
  private static Map<String, Object> instance(String id, CachedNode node) {
    Map<String, Object> instance = new LinkedHashMap<>();
    instance.put("id", id);
    try {
      com.fasterxml.jackson.databind.JsonNode json = JSON.readTree(node.data());
      instance.put("address", json.path("address").asText(""));
      instance.put("port", json.path("port").isNumber() ? json.get("port").asInt() : null);
      instance.put("enabled", !json.has("enabled") || json.get("enabled").asBoolean(true));
    } catch (java.io.IOException | RuntimeException e) {
      instance.put("error", "not curator-x-discovery's JSON: " + e.getMessage());
    }
    return instance;
  }

  private static Map<String, Object> owner(LockOwner o) {
    Map<String, Object> owner = JsonOutput.owner(o);
    owner.put("queuedAtMillis", o.queuedAt().toEpochMilli());
    return owner;
  }

  @Override
  public void close() {
    cache.close();
  }
}
