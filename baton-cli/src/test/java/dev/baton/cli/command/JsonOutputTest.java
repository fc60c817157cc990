package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.discovery.Registration;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import dev.baton.leader.LeaderLatch;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** {@code --json}: each inspection command prints one JSON object of the documented shape. */
class JsonOutputTest extends StandaloneZooKeeper {
  static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode run(String... args) throws Exception {
    Cli.Run run = Cli.run(args);
    assertThat(run.exitCode()).as(run.err()).isZero();
    return JSON.readTree(run.out());
  }

  @Test
  void lockHolderAndWaiters_asJson_nameHolderAndQueue() throws Exception {
    JsonNode free = run("lock", "holder", "/json/lock", "--json", "--connect", cluster.connectString());
    assertThat(free.get("path").asText()).isEqualTo("/json/lock");
    assertThat(free.get("backend").asText()).isEqualTo("zookeeper");
    assertThat(free.get("holder").isNull()).isTrue();

    Mutex mutex = baton.mutex("/json/lock");
    try (Lease lease = mutex.acquire(Duration.ofSeconds(5))) {
      CompletableFuture<Lease> waiting = mutex.acquireAsync();
      org.awaitility.Awaitility.await().until(() -> mutex.waiters().size() == 1);

      JsonNode held = run("lock", "holder", "/json/lock", "--json", "--connect", cluster.connectString());
      JsonNode holder = held.get("holder");
      assertThat(holder.get("token").asLong()).isEqualTo(lease.fencingToken());
      assertThat(holder.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
      assertThat(holder.get("session").asText()).isEqualTo("0x" + Long.toHexString(baton.sessionId()));
      assertThat(holder.get("node").asText()).endsWith(mutex.holder().orElseThrow().node());
      assertThat(holder.has("queuedAt")).isTrue();
      assertThat(holder.get("cached").asBoolean()).isFalse();

      JsonNode queue = run("lock", "waiters", "/json/lock", "--json", "--connect", cluster.connectString());
      assertThat(queue.get("waiters")).hasSize(1);
      assertThat(queue.get("waiters").get(0).get("node").asText()).isEqualTo(mutex.waiters().get(0).node());
      lease.close();
      waiting.join().close();
    }
  }

  @Test
  void leader_asJson_namesLeaderAndLine() throws Exception {
    try (LeaderLatch first = baton.leaderLatch("/json/election", "first");
         LeaderLatch second = baton.leaderLatch("/json/election", "second")) {
      first.start();
      first.await(Duration.ofSeconds(10));
      second.start();
      org.awaitility.Awaitility.await().until(() -> first.participants().size() == 2);

      JsonNode election = run("leader", "/json/election", "--json", "--connect", cluster.connectString());
      assertThat(election.get("kind").asText()).isEqualTo("leader latch");
      assertThat(election.get("leader").asText()).isEqualTo("first");
      assertThat(election.get("participants")).extracting(JsonNode::asText).containsExactly("first", "second");
    }
    JsonNode empty = run("leader", "/json/nobody", "--json", "--connect", cluster.connectString());
    assertThat(empty.get("leader").isNull()).isTrue();
    assertThat(empty.get("participants")).isEmpty();
  }

  @Test
  void config_asJson_givesKeysAndVersions() throws Exception {
    try (ConfigCenter config = ConfigCenter.open(baton, "/json-config")) {
      config.create("db/url", "jdbc:h2:mem");
      config.create("db/pool", "10");
      config.update("db/pool", "12");

      JsonNode list = run("config", "list", "/json-config", "--json", "--connect", cluster.connectString());
      assertThat(list.get("keys").get("db/pool").asText()).isEqualTo("12");
      assertThat(list.get("keys").get("db/url").asText()).isEqualTo("jdbc:h2:mem");

      JsonNode get = run("config", "get", "/json-config", "db/pool", "--json", "--connect", cluster.connectString());
      assertThat(get.get("value").asText()).isEqualTo("12");
      assertThat(get.get("version").asInt()).isEqualTo(1);
    }
  }

  @Test
  void service_asJson_listsServicesAndInstances() throws Exception {
    try (ServiceRegistry registry = ServiceRegistry.open(baton, "/json-services");
         Registration registration = registry.register(ServiceInstance.builder("orders")
             .id("orders-1").address("10.0.0.7").port(8080).build())) {
      JsonNode services = run("service", "/json-services", "--json", "--connect", cluster.connectString());
      assertThat(services.get("services")).extracting(JsonNode::asText).containsExactly("orders");

      JsonNode instances = run("service", "/json-services", "orders", "--json", "--connect", cluster.connectString());
      JsonNode instance = instances.get("instances").get(0);
      assertThat(instance.get("id").asText()).isEqualTo("orders-1");
      assertThat(instance.get("address").asText()).isEqualTo("10.0.0.7");
      assertThat(instance.get("port").asInt()).isEqualTo(8080);
      assertThat(instance.get("enabled").asBoolean()).isTrue();
    }
  }
}
