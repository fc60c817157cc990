package dev.baton.embedded;

import dev.baton.BatonException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A small Redis Cluster of {@link EmbeddedRedis} masters on loopback, for tests and the demo: each
 * node runs with {@code --cluster-enabled yes}, its {@code nodes.conf} in its own temporary
 * directory (so a {@link EmbeddedRedis#restart() restarted} node comes back with its identity and
 * slots), and the 16,384 slots split evenly in node order. No replicas unless {@link #addReplica}
 * adds them: a killed master without one leaves its slots down until it is restarted; one with a
 * replica can be {@link #failOver failed over} to it.
 *
 * <pre>{@code
 * try (EmbeddedRedisCluster cluster = EmbeddedRedis.cluster(3);
 *      RedisBaton baton = RedisBaton.connect(cluster.uri())) { ... }
 * }</pre>
 */
public final class EmbeddedRedisCluster implements AutoCloseable {
  /** Slots in every Redis Cluster. */
  public static final int SLOTS = 16384;
  private static final long FORM_TIMEOUT_SECONDS = 30;
  /** Redis 6.2 puts a node's cluster bus on its port plus 10,000; Redis 7's cluster-port is not there yet. */
  private static final int BUS_OFFSET = 10000;

  /** The masters in slot order; a failover puts the promoted replica in its master's place. */
  private final List<EmbeddedRedis> nodes;
  private final List<EmbeddedRedis> replicas = new CopyOnWriteArrayList<>();
  /** Each replica's master. */
  private final Map<EmbeddedRedis, EmbeddedRedis> masterOf = new ConcurrentHashMap<>();

  private EmbeddedRedisCluster(List<EmbeddedRedis> nodes) {
    this.nodes = new CopyOnWriteArrayList<>(nodes);
  }

  static EmbeddedRedisCluster start(int masters) {
    if (masters < 1 || masters > 16) {
      throw new IllegalArgumentException("a cluster needs 1 to 16 masters, was " + masters);
    }
    List<EmbeddedRedis> started = new ArrayList<>();
    try {
      for (int i = 0; i < masters; i++) {
        started.add(startNode());
      }
      EmbeddedRedisCluster cluster = new EmbeddedRedisCluster(started);
      cluster.form();
      return cluster;
    } catch (RuntimeException e) {
      started.forEach(EmbeddedRedis::close);
      throw e;
    }
  }

  private static EmbeddedRedis startNode() {
    return EmbeddedRedis.builder().port(portWithFreeBus())
        .arg("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000")
        .start();
  }

  /**
   * Starts one more node, makes it a replica of {@code master}, and returns once the master counts
   * it among its connected replicas and the replica has the data; closing the cluster stops it.
   *
   * @throws IllegalArgumentException if {@code master} is not one of {@link #nodes()} (a replica
   *     promoted by {@link #failOver} is)
   * @throws BatonException if the replica does not join within 30 s
   */
  public EmbeddedRedis addReplica(EmbeddedRedis master) {
    if (!nodes.contains(master)) {
      throw new IllegalArgumentException("redis-server " + master.host() + ":" + master.port()
          + " is not a master of this cluster");
    }
    EmbeddedRedis replica = startNode();
    replicas.add(replica);
    masterOf.put(replica, master);
    expectOk(Resp.send(replica, "CLUSTER", "MEET", master.host(), Integer.toString(master.port())), replica);
    String masterId = Resp.send(master, "CLUSTER", "MYID");
    long deadline = deadline();
    // The replica knows the master's id only once their handshake is through.
    awaitReply(replica, "OK"::equals, deadline, "CLUSTER", "REPLICATE", masterId);
    awaitReply(replica, info -> info.contains("master_link_status:up") && info.contains("master_sync_in_progress:0"),
        deadline, "INFO", "replication");
    awaitReply(master, info -> info.contains("slave") && info.contains("port=" + replica.port() + ",state=online"),
        deadline, "INFO", "replication");
    for (EmbeddedRedis node : all()) {
      awaitReply(node, info -> info.contains("cluster_state:ok")
          && info.contains("cluster_known_nodes:" + (nodes.size() + replicas.size())), deadline, "CLUSTER", "INFO");
    }
    return replica;
  }

  /** The replicas {@link #addReplica} started and {@link #failOver} has not promoted, in the order they started. */
  public List<EmbeddedRedis> replicas() {
    return List.copyOf(replicas);
  }

  /** The replicas of {@code master} that {@link #addReplica} started. */
  public List<EmbeddedRedis> replicasOf(EmbeddedRedis master) {
    return replicas.stream().filter(r -> masterOf.get(r) == master).toList();
  }

  /**
   * Kills {@code master} (as a crash would) and has its first replica take its slots over at once
   * ({@code CLUSTER FAILOVER TAKEOVER}: no vote of the other masters, no wait for the node timeout,
   * and no check that the replica has caught up, as an operator forces a failover). Returns the
   * promoted replica once every remaining node names it the slots' master and has forgotten the
   * killed one; the promoted node takes the killed one's place in {@link #nodes()} and {@link
   * #uri()}, and has no replica until {@link #addReplica} gives it one. Clients learn the new
   * topology by their own means (a redirect, a failed reconnect, a periodic refresh).
   *
   * @throws IllegalArgumentException if {@code master} is not one of {@link #nodes()} or has no replica
   * @throws BatonException if the cluster does not settle within 30 s
   */
  public EmbeddedRedis failOver(EmbeddedRedis master) {
    int index = nodes.indexOf(master);
    if (index < 0) {
      throw new IllegalArgumentException("redis-server " + master.host() + ":" + master.port()
          + " is not a master of this cluster");
    }
    List<EmbeddedRedis> own = replicasOf(master);
    if (own.isEmpty()) {
      throw new IllegalArgumentException("redis-server " + master.host() + ":" + master.port()
          + " has no replica to fail over to (see addReplica)");
    }
    EmbeddedRedis promoted = own.get(0);
    String deadId = Resp.send(master, "CLUSTER", "MYID");
    String promotedId = Resp.send(promoted, "CLUSTER", "MYID");
    master.kill();
    expectOk(Resp.send(promoted, "CLUSTER", "FAILOVER", "TAKEOVER"), promoted);
    nodes.set(index, promoted);
    replicas.remove(promoted);
    masterOf.remove(promoted);
    // Any other replica of the killed master follows the promoted one by itself.
    masterOf.replaceAll((replica, itsMaster) -> itsMaster == master ? promoted : itsMaster);
    String slots = firstSlot(index) + "-" + (firstSlot(index + 1) - 1);
    long deadline = deadline();
    List<EmbeddedRedis> live = all();
    for (EmbeddedRedis node : live) {
      awaitReply(node, table -> table.lines().anyMatch(line -> line.startsWith(promotedId)
          && line.contains("master") && line.endsWith(slots)), deadline, "CLUSTER", "NODES");
    }
    // Else the survivors keep gossiping about the dead node, and count it among the known nodes.
    for (EmbeddedRedis node : live) {
      String reply = Resp.send(node, "CLUSTER", "FORGET", deadId);
      if (!"OK".equals(reply) && !reply.contains("Unknown node")) {
        throw new BatonException("redis-server " + node.host() + ":" + node.port() + " refused to forget the"
            + " killed master " + deadId + ": " + reply);
      }
    }
    for (EmbeddedRedis node : live) {
      awaitReply(node, info -> info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + live.size()),
          deadline, "CLUSTER", "INFO");
    }
    master.close();
    return promoted;
  }

  private List<EmbeddedRedis> all() {
    List<EmbeddedRedis> all = new ArrayList<>(nodes);
    all.addAll(replicas);
    return all;
  }

  /** The masters, in slot order: node {@code i} serves the {@code i}-th even share of the slots. */
  public List<EmbeddedRedis> nodes() {
    return List.copyOf(nodes);
  }

  /** {@code redis-cluster://127.0.0.1:port1,127.0.0.1:port2,...}: every node as a seed. */
  public String uri() {
    return "redis-cluster://" + nodes.stream().map(n -> n.host() + ":" + n.port()).collect(Collectors.joining(","));
  }

  /** The node that serves {@code slot}, by the split this class made. */
  public EmbeddedRedis nodeForSlot(int slot) {
    if (slot < 0 || slot >= SLOTS) {
      throw new IllegalArgumentException("slot must be 0-" + (SLOTS - 1) + ", was " + slot);
    }
    for (int i = 0; i < nodes.size(); i++) {
      if (slot < firstSlot(i + 1)) {
        return nodes.get(i);
      }
    }
    throw new IllegalStateException("unreachable: slot " + slot);
  }

  private int firstSlot(int node) {
    return (int) ((long) SLOTS * node / nodes.size());
  }

  @Override
  public void close() {
    replicas.forEach(EmbeddedRedis::close);
    nodes.forEach(EmbeddedRedis::close);
  }

  /** Introduces every node to the first, gives each its slots, and waits until all say the cluster is ok. */
  private void form() {
    EmbeddedRedis first = nodes.get(0);
    for (EmbeddedRedis node : nodes.subList(1, nodes.size())) {
      expectOk(Resp.send(first, "CLUSTER", "MEET", node.host(), Integer.toString(node.port())), first);
    }
    for (int i = 0; i < nodes.size(); i++) {
      List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS")); // ADDSLOTSRANGE is Redis 7
      for (int slot = firstSlot(i); slot < firstSlot(i + 1); slot++) {
        command.add(Integer.toString(slot));
      }
      expectOk(Resp.send(nodes.get(i), command.toArray(String[]::new)), nodes.get(i));
    }
    long deadline = deadline();
    String expectedNodes = "cluster_known_nodes:" + nodes.size();
    for (EmbeddedRedis node : nodes) {
      awaitReply(node, info -> info.contains("cluster_state:ok") && info.contains(expectedNodes), deadline,
          "CLUSTER", "INFO");
    }
  }

  private static long deadline() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(FORM_TIMEOUT_SECONDS);
  }

  /** Sends {@code command} to {@code node} until its reply passes {@code test}, or fails at {@code deadline}. */
  private static void awaitReply(EmbeddedRedis node, Predicate<String> test, long deadline, String... command) {
    String reply = Resp.send(node, command);
    while (!test.test(reply)) {
      if (System.nanoTime() > deadline) {
        throw new BatonException("The embedded cluster did not settle within " + FORM_TIMEOUT_SECONDS + " s: "
            + command[0] + " " + command[1] + " on " + node.host() + ":" + node.port() + " answers:\n" + reply);
      }
      pause();
      reply = Resp.send(node, command);
    }
  }

  private static void pause() {
    try {
      Thread.sleep(50); // gossip runs on the servers' own timers: nothing to wait on but their answer
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BatonException("Interrupted while the embedded cluster was forming", e);
    }
  }

  private static void expectOk(String reply, EmbeddedRedis node) {
    if (!"OK".equals(reply)) {
      throw new BatonException("redis-server " + node.host() + ":" + node.port() + " refused to join the cluster: " + reply);
    }
  }

  /** A free loopback port whose cluster bus port (port + 10,000) is free too. */
  private static int portWithFreeBus() {
    for (int attempt = 0; attempt < 200; attempt++) {
      // Below Linux's ephemeral range (32768-60999), so the bus port stays under 65536.
      int port = ThreadLocalRandom.current().nextInt(20000, 32000);
      if (isFree(port) && isFree(port + BUS_OFFSET)) {
        return port;
      }
    }
    throw new BatonException("No free loopback port pair (port, port + " + BUS_OFFSET + ") for a cluster node");
  }

  private static boolean isFree(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
