package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the registry costs the server, read from its own packet counter ({@code
 * zk_packets_received}, every request of every client): registering and unregistering two
 * requests each (a create, then a watch on the node, so that the registration hears if it is
 * deleted or replaced; a read of whose the node is, then the delete at its version), a view's
 * load two requests and a read per instance, a change one read per watching client, and reads
 * from a view nothing. Counts, not time. Sessions of 30 s keep pings
 * (one per 10 s of silence) out of the short windows; a packet of margin allows for one anyway.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryRequestCountTest {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static TestCluster cluster;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  @BeforeAll
  static void startCluster() {
    cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "30000").start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private ServiceRegistry registry(String base) {
    Baton baton = Baton.builder().connectString(cluster.connectString()).sessionTimeout(Duration.ofSeconds(30)).build();
    toClose.add(baton);
    return ServiceRegistry.open(baton, base);
  }

  private static ServiceInstance instance(String id) {
    return ServiceInstance.builder("orders").id(id).address("10.0.0.1").port(8080).build();
  }

  @Test
  void registerAndClose_onAServiceThatExists_sendTwoRequestsEach() {
    ServiceRegistry registry = registry("/count-reg/register");
    registry.register(instance("keeps-the-service")); // the base and service nodes, once
    int cycles = 200;
    long before = cluster.packetsReceived(0);
    for (int i = 0; i < cycles; i++) {
      registry.register(instance("i" + i)).close(); // each waits for its reply
    }
    long perCycle100 = (cluster.packetsReceived(0) - before - cluster.packetReadingCost(0)) * 100 / cycles;
    assertThat(perCycle100).as("requests per register+close, x100").isBetween(400L, 402L);
  }

  /**
   * The first instance of a new base: its create finds no parent, the service node's create finds
   * no base, then base and service are created together, then the instance again: five requests.
   * The first instance of a new service under an existing base: three. Each is followed by the
   * watch on the node, sent once the create's reply is in: counted in its window or in the next.
   */
  @Test
  void firstRegistrations_createTheMissingContainersOnDemand() {
    ServiceRegistry registry = registry("/count-fresh");
    long before = cluster.packetsReceived(0);
    registry.register(instance("first"));
    long freshBase = cluster.packetsReceived(0) - before - cluster.packetReadingCost(0);
    before = cluster.packetsReceived(0);
    registry.register(ServiceInstance.builder("billing").id("first").address("10.0.0.2").build());
    long freshService = cluster.packetsReceived(0) - before - cluster.packetReadingCost(0);

    assertThat(freshBase).as("a new base and service").isBetween(5L, 7L);
    assertThat(freshService).as("a new service under an existing base").isBetween(3L, 5L);
  }

  @Test
  void watch_costsTwoRequestsAndOneReadPerInstance_andReadingTheViewCostsNothing() {
    ServiceRegistry provider = registry("/count-reg/watch");
    int instances = 20;
    for (int i = 0; i < instances; i++) {
      provider.register(instance("i" + i));
    }
    ServiceRegistry consumer = registry("/count-reg/watch");

    long before = cluster.packetsReceived(0);
    ServiceView view = consumer.watch("orders");
    long load = cluster.packetsReceived(0) - before - cluster.packetReadingCost(0);

    assertThat(load).as("addWatch, getChildren, a getData per instance").isBetween(2L + instances, 3L + instances);
    before = cluster.packetsReceived(0);
    for (int i = 0; i < 1_000; i++) {
      view.pick(PickStrategy.ROUND_ROBIN).orElseThrow();
      assertThat(view.instances()).hasSize(instances);
    }
    assertThat(cluster.packetsReceived(0) - before - cluster.packetReadingCost(0)).as("picks and reads of the view").isBetween(0L, 1L);
  }

  @Test
  void instanceJoiningAndLeaving_costsTheProviderOneRequest_andEachWatchingClientOneReadOnJoin() {
    ServiceRegistry provider = registry("/count-reg/change");
    provider.register(instance("keeps-the-service"));
    int watchers = 3;
    List<ServiceView> views = new ArrayList<>();
    for (int i = 0; i < watchers; i++) {
      views.add(registry("/count-reg/change").watch("orders"));
    }

    long before = cluster.packetsReceived(0);
    Registration joining = provider.register(instance("joining"));
    await().atMost(WAIT).until(() -> views.stream().allMatch(v -> v.instance("joining").isPresent()));
    long join = cluster.packetsReceived(0) - before - cluster.packetReadingCost(0);
    before = cluster.packetsReceived(0);
    joining.close();
    await().atMost(WAIT).until(() -> views.stream().allMatch(v -> v.instance("joining").isEmpty()));
    long leave = cluster.packetsReceived(0) - before - cluster.packetReadingCost(0);

    assertThat(join).as("a create and the watch on the node, then a getData per watching client")
        .isBetween(2L + watchers, 3L + watchers);
    assertThat(leave).as("a read of whose the node is and a delete; the watch event is enough").isBetween(2L, 3L);
  }
}
