package dev.baton.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EmbeddedRedisTest {

  /** Sends {@code PING} in the protocol's inline form and reads the reply line. */
  private static String ping(Socket socket) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return Resp.readLine(socket.getInputStream());
  }

  @Test
  void startsOnAFreeLoopbackPort_restartsOnTheSamePort_andStopsOnClose() throws Exception {
    EmbeddedRedis redis = EmbeddedRedis.start();
    int port = redis.port();
    assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + port);
    try (Socket socket = new Socket(redis.host(), port)) {
      assertThat(ping(socket)).isEqualTo("+PONG");
    }
    redis.restart();
    assertThat(redis.port()).isEqualTo(port);
    try (Socket socket = new Socket(redis.host(), port)) {
      assertThat(ping(socket)).isEqualTo("+PONG");
    }
    redis.close();
    assertThat(redis.isRunning()).isFalse();
  }

  @Test
  void aPausedServer_answersOnlyOnceResumed() throws Exception {
    try (EmbeddedRedis redis = EmbeddedRedis.start(); Socket socket = new Socket(redis.host(), redis.port())) {
      redis.pause();
      socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      assertThat(redis.isRunning()).isTrue();
      redis.resume();
      assertThat(Resp.readLine(socket.getInputStream())).isEqualTo("+PONG");
    }
  }

  @Test
  void aSentinel_watchesTheMasterItWasGiven() throws Exception {
    try (EmbeddedRedis master = EmbeddedRedis.start();
         EmbeddedRedis sentinel = EmbeddedRedis.sentinel(master, "demo-master");
         Socket socket = new Socket(sentinel.host(), sentinel.port())) {
      socket.getOutputStream().write("SENTINEL get-master-addr-by-name demo-master\r\n".getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      InputStream in = socket.getInputStream();
      assertThat(Resp.readLine(in)).isEqualTo("*2");
      Resp.readLine(in);
      assertThat(Resp.readLine(in)).isEqualTo(master.host());
      Resp.readLine(in);
      assertThat(Resp.readLine(in)).isEqualTo(Integer.toString(master.port()));
    }
  }

  @Test
  void aCluster_ofThreeMasters_coversEverySlot_redirectsAKeyToItsMaster_andTakesAReplica_thatTakesOver() throws Exception {
    try (EmbeddedRedisCluster cluster = EmbeddedRedis.cluster(3)) {
      assertThat(cluster.nodes()).hasSize(3);
      for (EmbeddedRedis node : cluster.nodes()) {
        String info = Resp.send(node, "CLUSTER", "INFO");
        assertThat(info).contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:3");
      }
      // "foo" hashes to slot 12182, in the last third: the first node redirects there.
      EmbeddedRedis owner = cluster.nodeForSlot(12182);
      assertThat(owner).isSameAs(cluster.nodes().get(2));
      assertThat(Resp.send(cluster.nodes().get(0), "SET", "foo", "bar"))
          .isEqualTo("MOVED 12182 " + owner.host() + ":" + owner.port());
      assertThat(Resp.send(owner, "SET", "foo", "bar")).isEqualTo("OK");
      EmbeddedRedis replica = cluster.addReplica(owner);
      assertThat(cluster.replicas()).containsExactly(replica);
      assertThat(Resp.send(replica, "INFO", "replication"))
          .contains("role:slave", "master_port:" + owner.port(), "master_link_status:up");
      assertThat(Resp.send(cluster.nodes().get(0), "CLUSTER", "INFO")).contains("cluster_known_nodes:4");
      assertThat(cluster.uri()).isEqualTo("redis-cluster://" + cluster.nodes().stream()
          .map(n -> n.host() + ":" + n.port()).collect(java.util.stream.Collectors.joining(",")));

      assertThat(cluster.failOver(owner)).isSameAs(replica);
      assertThat(owner.isRunning()).isFalse();
      assertThat(cluster.nodes().get(2)).isSameAs(replica);
      assertThat(cluster.nodeForSlot(12182)).isSameAs(replica);
      assertThat(cluster.replicas()).isEmpty();
      assertThat(Resp.send(replica, "GET", "foo")).isEqualTo("bar");
      assertThat(Resp.send(cluster.nodes().get(0), "SET", "foo", "baz"))
          .isEqualTo("MOVED 12182 " + replica.host() + ":" + replica.port());
      assertThat(Resp.send(cluster.nodes().get(0), "CLUSTER", "INFO")).contains("cluster_state:ok", "cluster_known_nodes:3");
      // The promoted master takes a replica of its own, so it can fail over again.
      EmbeddedRedis second = cluster.addReplica(replica);
      assertThat(cluster.replicasOf(replica)).containsExactly(second);
    }
  }
}
