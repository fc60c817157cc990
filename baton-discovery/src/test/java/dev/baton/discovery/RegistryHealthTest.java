package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.baton.ClusterTestSupport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.details.JsonInstanceSerializer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Health checks run by the registering process (a supplier, an HTTP GET, a TCP connect) mark the
 * instance down and up without dropping its node, as Baton's pickers and Curator's {@code
 * ServiceDiscovery} readers see it; and the naming-service layout ({@code
 * /<root>/<service>/<ip:port>}, empty or plain-text data) is read as instances and written by
 * {@code register}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryHealthTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration INTERVAL = Duration.ofMillis(50);

  private static ServiceInstance.Builder orders(String id) {
    return ServiceInstance.builder("orders").id(id).address("10.0.0.5").port(8080);
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private ServiceDiscovery<Map> curatorReader(String base) throws Exception {
    CuratorFramework curator = closing(CuratorFrameworkFactory.newClient(cluster.connectString(), 10_000, 10_000,
        new ExponentialBackoffRetry(50, 5)));
    curator.start();
    ServiceDiscovery<Map> discovery = ServiceDiscoveryBuilder.builder(Map.class).client(curator).basePath(base)
        .serializer(new JsonInstanceSerializer<>(Map.class)).build();
    closing(discovery);
    discovery.start();
    return discovery;
  }

  @Test
  @SuppressWarnings("rawtypes")
  void supplierCheck_failing_marksDownWithoutDropping_passing_bringsBack_curatorSeesBoth() throws Exception {
    AtomicReference<Health> health = new AtomicReference<>(Health.up());
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/health-supplier"));
    Registration me = registry.register(orders("me").payload(Map.of("zone", "a")).build(),
        RegisterOptions.defaults().withHealthCheck(HealthCheck.of(health::get), INTERVAL));
    registry.register(orders("other").build());
    ServiceView view = registry.watch("orders");
    ServiceDiscovery<Map> curator = curatorReader("/health-supplier");
    assertThat(curator.queryForInstance("orders", "me").isEnabled()).isTrue();
    long czxid = raw.czxid("/health-supplier/orders/me");

    health.set(Health.down("database unreachable"));

    await().atMost(WAIT).until(() -> !curator.queryForInstance("orders", "me").isEnabled());
    Map payload = curator.queryForInstance("orders", "me").getPayload();
    assertThat(payload).containsEntry("health", "DOWN").containsEntry("healthDetail", "database unreachable")
        .containsEntry("zone", "a");
    await().atMost(WAIT).until(() -> !view.instance("me").orElseThrow().isEnabled());
    for (int i = 0; i < 10; i++) {
      assertThat(view.pick(PickStrategy.ROUND_ROBIN).orElseThrow().id()).isEqualTo("other");
    }
    assertThat(raw.czxid("/health-supplier/orders/me")).as("the same node, never dropped").isEqualTo(czxid);
    assertThat(me.isRegistered()).isTrue();

    health.set(Health.up());

    await().atMost(WAIT).until(() -> curator.queryForInstance("orders", "me").isEnabled());
    assertThat(curator.queryForInstance("orders", "me").getPayload()).containsEntry("health", "UP")
        .doesNotContainKey("healthDetail");
    await().atMost(WAIT).until(() -> view.instance("me").orElseThrow().isEnabled());

    me.close();
    await().atMost(WAIT).until(() -> !raw.exists("/health-supplier/orders/me"));
  }

  @Test
  void throwingCheck_countsAsDown_fromTheFirstCheck_andUpdatesKeepTheHealth() throws Exception {
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/health-throws"));
    AtomicInteger calls = new AtomicInteger();
    Registration me = registry.register(orders("me").build(), RegisterOptions.defaults().withHealthCheck(() -> {
      calls.incrementAndGet();
      throw new IllegalStateException("boom");
    }, INTERVAL));

    assertThat(me.instance().isEnabled()).as("registered down: the first check ran before").isFalse();
    assertThat(me.instance().payload().get("healthDetail").toString()).contains("boom");
    me.update(orders("me").payload(Map.of("version", "2")).build());
    assertThat(me.instance().isEnabled()).isFalse();
    assertThat(me.instance().payload()).containsEntry("version", "2").containsEntry("health", "DOWN");
    await().atMost(WAIT).until(() -> calls.get() >= 3);
  }

  @Test
  void httpCheck_followsTheStatus() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    AtomicInteger status = new AtomicInteger(200);
    server.createContext("/health", exchange -> {
      exchange.sendResponseHeaders(status.get(), -1);
      exchange.close();
    });
    server.start();
    closing(() -> server.stop(0));
    URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/health");
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/health-http"));
    Registration me = registry.register(orders("me").build(),
        RegisterOptions.defaults().withHealthCheck(HealthCheck.http(uri, Duration.ofSeconds(2)), INTERVAL));
    assertThat(me.instance().isEnabled()).isTrue();

    status.set(503);
    await().atMost(WAIT).until(() -> !me.instance().isEnabled());
    assertThat(me.instance().payload().get("healthDetail").toString()).contains("503");
    status.set(204);
    await().atMost(WAIT).until(() -> me.instance().isEnabled());
  }

  @Test
  void tcpCheck_downOnceTheListenerCloses() throws Exception {
    ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    int port = listener.getLocalPort();
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/health-tcp"));
    Registration me = registry.register(orders("me").build(), RegisterOptions.defaults()
        .withHealthCheck(HealthCheck.tcp("127.0.0.1", port, Duration.ofSeconds(1)), INTERVAL));
    assertThat(me.instance().isEnabled()).isTrue();

    listener.close();

    await().atMost(WAIT).until(() -> !me.instance().isEnabled());
  }

  /** A check that answers from a script, then up; counts its calls. */
  private static final class ScriptedCheck implements HealthCheck {
    private final Deque<Health> script;
    final AtomicInteger calls = new AtomicInteger();
    final int length;

    ScriptedCheck(Health... script) {
      this.script = new ConcurrentLinkedDeque<>(List.of(script));
      this.length = script.length;
    }

    @Override
    public Health check() {
      calls.incrementAndGet();
      Health next = script.poll();
      return next == null ? Health.up() : next;
    }
  }

  private static int dataVersion(String path) throws Exception {
    return raw.zk().exists(path, false).getVersion();
  }

  /** Failures fewer than three in a row (the default) do not take the instance out of rotation. */
  @Test
  void defaultThresholds_failuresFewerThanThreeInARow_writeNothing() throws Exception {
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/health-flaky"));
    Health down = Health.down("slow");
    ScriptedCheck check = new ScriptedCheck(Health.up(), down, Health.up(), down, down, Health.up(), down,
        Health.up());
    Registration me = registry.register(orders("me").build(), RegisterOptions.defaults().withHealthCheck(check, INTERVAL));

    await().atMost(WAIT).until(() -> check.calls.get() > check.length + 1);

    assertThat(dataVersion(me.path())).as("writes of the node").isZero();
    assertThat(me.instance().isEnabled()).isTrue();
  }

  /** Down after the given failures in a row, up again only after the given passes in a row. */
  @Test
  void givenThresholds_turnDownAndUpOnlyAfterThatManyInARow() throws Exception {
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/health-thresholds"));
    ServiceView view = registry.watch("orders");
    List<String> told = new CopyOnWriteArrayList<>();
    view.addListener(instances -> instances.forEach(i -> told.add(String.valueOf(i.payload().get("health")))));
    Health down = Health.down("refused");
    ScriptedCheck check = new ScriptedCheck(Health.up(), down, Health.up(), down, down, Health.up(), Health.up(),
        down, Health.up(), Health.up(), Health.up());
    Registration me = registry.register(orders("me").build(),
        RegisterOptions.defaults().withHealthCheck(check, INTERVAL).withHealthThresholds(2, 3));

    await().atMost(WAIT).until(() -> check.calls.get() > check.length + 1);
    await().atMost(WAIT).until(() -> dataVersion(me.path()) >= 2 && me.isRegistered());

    assertThat(dataVersion(me.path())).as("one write down, one up").isEqualTo(2);
    assertThat(me.instance().isEnabled()).isTrue();
    await().atMost(WAIT).untilAsserted(() -> assertThat(told).containsExactly("UP", "DOWN", "UP"));
  }

  @Test
  void badHealthOptions_areRefused() {
    assertThatThrownBy(() -> HealthCheck.http(URI.create("ftp://x/"), Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ftp://x/");
    assertThatThrownBy(() -> HealthCheck.tcp("h", 0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port");
    assertThatThrownBy(() -> RegisterOptions.defaults().withHealthCheck(Health::up, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("healthInterval");
    assertThatThrownBy(() -> RegisterOptions.defaults().withLayout(InstanceLayout.NAMING)
        .withHealthCheck(Health::up, INTERVAL)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("naming layout");
    assertThatThrownBy(() -> RegisterOptions.defaults().withHealthThresholds(0, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("healthDownAfter");
    assertThatThrownBy(() -> RegisterOptions.defaults().withHealthThresholds(1, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("healthUpAfter");
  }

  // ---- the naming-service layout --------------------------------------------------------------

  @Test
  void namingLayout_providersWrittenByHand_areReadAsInstances() throws Exception {
    raw.zk().create("/DDNS", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create("/DDNS/www.test1.com", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create("/DDNS/www.test1.com/10.0.0.1:80", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.EPHEMERAL);
    raw.zk().create("/DDNS/www.test1.com/[::1]:8443", "primary".getBytes(StandardCharsets.UTF_8),
        ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/DDNS"));

    ServiceView view = registry.watch("www.test1.com");

    assertThat(view.instances()).hasSize(2);
    ServiceInstance plain = view.instance("10.0.0.1:80").orElseThrow();
    assertThat(plain.address()).isEqualTo("10.0.0.1");
    assertThat(plain.port()).hasValue(80);
    ServiceInstance six = view.instance("[::1]:8443").orElseThrow();
    assertThat(six.address()).isEqualTo("::1");
    assertThat(six.payload()).containsEntry("data", "primary");
    assertThat(view.pick(PickStrategy.ROUND_ROBIN)).isPresent();
    assertThat(registry.instances("www.test1.com")).hasSize(2);
    raw.zk().delete("/DDNS/www.test1.com/10.0.0.1:80", -1);
    await().atMost(WAIT).until(() -> view.instances().size() == 1);
  }

  @Test
  void namingLayout_register_writesIpPortWithEmptyData_andRefusesAnInstanceWithoutPort() throws Exception {
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/naming-write"));
    RegisterOptions naming = RegisterOptions.defaults().withLayout(InstanceLayout.NAMING);

    Registration registration = registry.register(orders("ignored").address("10.0.0.9").port(9000).build(), naming);

    assertThat(registration.path()).isEqualTo("/naming-write/orders/10.0.0.9:9000");
    assertThat(registration.instance().id()).isEqualTo("10.0.0.9:9000");
    assertThat(raw.data("/naming-write/orders/10.0.0.9:9000")).isEmpty();
    assertThat(raw.zk().exists("/naming-write/orders/10.0.0.9:9000", false).getEphemeralOwner()).isNotZero();
    assertThat(registry.watch("orders").instance("10.0.0.9:9000").orElseThrow().port()).hasValue(9000);
    assertThatThrownBy(() -> registry.register(ServiceInstance.builder("orders").address("10.0.0.8").build(), naming))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a port");
    assertThat(raw.children("/naming-write/orders")).containsExactly("10.0.0.9:9000");
  }
}
