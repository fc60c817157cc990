package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClientClosedException;
import dev.baton.ClusterTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input to the service registry: each gets a specific exception whose message names the
 * argument (or the path and the limit), and nothing is written to the ensemble. And bad data
 * found on the ensemble: an instance node that is not an instance is skipped, never breaking the
 * view or the read, and is seen once its data is fixed.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryBadInputTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private Set<String> treeBefore;

  @BeforeEach
  void snapshotTree() throws Exception {
    treeBefore = raw.tree();
  }

  private void assertNothingWritten() throws Exception {
    assertThat(raw.tree()).as("nodes on the server").isSubsetOf(treeBefore);
  }

  private static ServiceInstance.Builder valid() {
    return ServiceInstance.builder("orders").address("10.0.0.1").port(8080);
  }

  // ---- paths ZooKeeper cannot serve -------------------------------------------------------------

  /**
   * A service name or instance id that makes a path over the packet limit: sent, the request
   * would make the server drop the connection, again after every reconnect. Refused first.
   */
  @Test
  void serviceNameOrIdOverThePacketLimit_isRefusedBeforeAnythingIsSent() throws Exception {
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/services-bad"));
    String huge = "s" + "x".repeat(1_100_000);
    assertThatThrownBy(() -> registry.watch(huge)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too long").satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(1_000));
    assertThatThrownBy(() -> registry.instances(huge)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too long");
    assertThatThrownBy(() -> registry.register(ServiceInstance.builder(huge).address("10.0.0.1").port(1).build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too long");
    assertThatThrownBy(() -> registry.register(valid().id(huge).build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too long")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(1_000));
    assertNothingWritten();
  }

  @Test
  void basePathInTheReservedTree_isRefused() throws Exception {
    assertThatThrownBy(() -> ServiceRegistry.open(baton(), "/zookeeper/services"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("service registry base path '/zookeeper/services'")
        .hasMessageContaining("reserved /zookeeper tree");
    assertNothingWritten();
  }

  // ---- the instance builder -------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"", "a/b", "/orders", "orders/", ".", ".."})
  void serviceNameOrIdNotASingleNodeName_isRefusedNamingTheArgument(String name) {
    // "." and ".." are shown as the path they would make, "/." and "/..".
    assertThatThrownBy(() -> ServiceInstance.builder(name))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("service name")
        .hasMessageContaining(name + "'");
    assertThatThrownBy(() -> valid().id(name))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("instance id")
        .hasMessageContaining(name + "'");
  }

  @Test
  void nulls_areRefusedNamingTheArgument() {
    assertThatThrownBy(() -> ServiceInstance.builder(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("service name");
    List<Consumer<ServiceInstance.Builder>> settings = List.of(
        b -> b.id(null), b -> b.address(null), b -> b.payload(null), b -> b.payloadType(null),
        b -> b.uriSpec(null), b -> b.registrationTime(null));
    List<String> names = List.of("instance id", "address", "payload", "payloadType", "uriSpec", "registrationTime");
    for (int i = 0; i < settings.size(); i++) {
      Consumer<ServiceInstance.Builder> setting = settings.get(i);
      assertThatThrownBy(() -> setting.accept(valid()))
          .isInstanceOf(NullPointerException.class).hasMessageContaining(names.get(i));
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -1, 65_536, Integer.MAX_VALUE, Integer.MIN_VALUE})
  void portOutOfRange_isRefusedNamingPortAndValue(int port) {
    assertThatThrownBy(() -> valid().port(port))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("port must be between 1 and 65535, was " + port);
    assertThatThrownBy(() -> valid().sslPort(port))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sslPort must be between 1 and 65535, was " + port);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", " 10.0.0.1", "10.0.0.1 "})
  void blankAddress_isRefused(String address) {
    assertThatThrownBy(() -> valid().address(address))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("address")
        .hasMessageContaining("'" + address + "'");
  }

  @Test
  void noAddress_isRefusedAtBuildNamingIt() {
    assertThatThrownBy(() -> ServiceInstance.builder("orders").port(1).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("address is required");
  }

  @Test
  void payloadWithNullReservedOrUnsupportedValues_isRefusedNamingTheKey() {
    Map<String, Object> withNull = new HashMap<>();
    withNull.put("zone", null);
    assertThatThrownBy(() -> valid().payload(withNull))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload.zone is null");
    assertThatThrownBy(() -> valid().payload(Map.of("nested", Map.of("when", new Object()))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload.nested.when")
        .hasMessageContaining("java.lang.Object");
    assertThatThrownBy(() -> valid().payload(Map.of("list", List.of("a", Thread.currentThread()))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload.list[1]");
    assertThatThrownBy(() -> valid().payload(Map.of("ratio", Double.NaN)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload.ratio");
    assertThatThrownBy(() -> valid().payload(Map.of("@class", "x")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'@class' is reserved");
    assertThatThrownBy(() -> valid().payloadType(" "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payloadType");
  }

  @Test
  void payload_isCopied_andNumbersKeptAsReadingThemBackGivesThem() {
    Map<String, Object> mine = new HashMap<>(Map.of("zone", "a"));
    ServiceInstance instance = valid().payload(Map.of("small", 3L, "big", Long.MAX_VALUE, "ratio", 0.5f)).build();
    ServiceInstance copied = valid().payload(mine).build();
    mine.put("zone", "b");

    assertThat(copied.payload()).containsEntry("zone", "a");
    assertThat(instance.payload()).containsEntry("small", 3).containsEntry("big", Long.MAX_VALUE)
        .containsEntry("ratio", 0.5d);
    assertThatThrownBy(() -> copied.payload().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"{scheme", "scheme}", "{{scheme}}", "{a}}", "x{a{b}}"})
  void uriSpecWithUnbalancedBraces_isRefused(String spec) {
    assertThatThrownBy(() -> valid().uriSpec(spec))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uriSpec '" + spec + "'");
  }

  // ---- the registry ---------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"", "services", "/services/", "/a//b", "/"})
  void invalidBasePath_isRefusedNamingTheArgument(String base) throws Exception {
    Baton baton = baton();
    assertThatThrownBy(() -> ServiceRegistry.open(baton, base))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("service registry base path").hasMessageContaining("'" + base + "'");
    assertThatThrownBy(() -> ServiceRegistry.open(baton, null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("service registry base path");
    assertNothingWritten();
  }

  @Test
  void registryMethods_refuseBadArgumentsNamingThem_andWriteNothing() throws Exception {
    Baton baton = baton();
    ServiceRegistry registry = closing(ServiceRegistry.open(baton, "/bad-registry"));
    assertThatThrownBy(() -> registry.register(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("instance");
    for (String service : new String[] {"", "a/b", ".."}) {
      assertThatThrownBy(() -> registry.watch(service))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("service name");
      assertThatThrownBy(() -> registry.instances(service))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("service name");
    }
    assertThatThrownBy(() -> registry.watch(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("service name");
    assertThatThrownBy(() -> registry.addServicesListener(null, Runnable::run))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("listener");
    assertThatThrownBy(() -> registry.addServicesListener(names -> { }, null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("executor");
    ServiceView view = registry.watch("orders");
    assertThatThrownBy(() -> view.pick(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("strategy");
    assertThatThrownBy(() -> view.addListener(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("listener");
    assertThatThrownBy(() -> view.addListener(list -> { }, null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("executor");
    assertThatThrownBy(() -> view.instance(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("id");
    assertNothingWritten();
  }

  @Test
  void update_withAnotherNameOrIdOrNull_isRefused_andTheNodeKeepsItsData() throws Exception {
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/bad-update"));
    Registration registration = registry.register(valid().id("a").build());
    byte[] before = raw.data(registration.path());

    assertThatThrownBy(() -> registration.update(valid().id("b").build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("orders/a").hasMessageContaining("orders/b");
    assertThatThrownBy(() -> registration.update(ServiceInstance.builder("billing").id("a").address("h").build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("billing/a");
    assertThatThrownBy(() -> registration.update(null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("instance");

    assertThat(raw.data(registration.path())).isEqualTo(before);
  }

  @Test
  void payloadOverTheNodeLimit_isRefusedNamingPathAndLimit_andNothingIsWritten() throws Exception {
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/bad-huge"));
    ServiceInstance huge = valid().id("huge").payload(Map.of("blob", "x".repeat(1_100_000))).build();

    assertThatThrownBy(() -> registry.register(huge))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/bad-huge/orders/huge").hasMessageContaining("jute.maxbuffer")
        .hasMessageContaining("nothing was written");
    assertNothingWritten();

    Registration small = registry.register(valid().id("small").build());
    byte[] before = raw.data(small.path());
    assertThatThrownBy(() -> small.update(huge.toBuilder().id("small").build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/bad-huge/orders/small");
    assertThat(raw.data(small.path())).isEqualTo(before);
    assertThat(small.instance()).isEqualTo(valid().id("small").registrationTime(small.instance().registrationTime()).build());
  }

  @Test
  void closedClient_registryRefusesWithClientClosed() {
    Baton baton = baton();
    ServiceRegistry registry = ServiceRegistry.open(baton, "/bad-closed");
    baton.close();

    assertThatThrownBy(() -> registry.register(valid().build())).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> registry.watch("orders")).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(registry::services).isInstanceOf(ClientClosedException.class);
    assertThatThrownBy(() -> ServiceRegistry.open(baton, "/bad-closed")).isInstanceOf(ClientClosedException.class);
  }

  // ---- bad data on the ensemble ---------------------------------------------------------------

  @Test
  void malformedInstanceNodes_areSkipped_theRestIsServed_andAFixedNodeIsSeen() throws Exception {
    String service = "/bad-data/orders";
    raw.zk().create("/bad-data", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    raw.zk().create(service, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    Map<String, String> bad = Map.of(
        "not-json", "this is not json",
        "not-an-object", "[1,2,3]",
        "empty", "",
        "no-address", "{\"name\":\"orders\",\"id\":\"no-address\",\"port\":1}",
        "address-a-number", "{\"address\":5}",
        "port-a-string", "{\"address\":\"h\",\"port\":\"eighty\"}",
        "port-too-big", "{\"address\":\"h\",\"port\":70000}",
        "enabled-a-string", "{\"address\":\"h\",\"enabled\":\"yes\"}");
    for (Map.Entry<String, String> node : bad.entrySet()) {
      raw.zk().create(service + "/" + node.getKey(), node.getValue().getBytes(StandardCharsets.UTF_8),
          ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
    }
    // Unknown fields and a missing id are tolerated, as Curator tolerates them.
    raw.zk().create(service + "/tolerated", ("{\"address\":\"10.0.0.9\",\"port\":9,\"futureField\":{\"x\":[1]},"
        + "\"serviceType\":\"STATIC\"}").getBytes(StandardCharsets.UTF_8), ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT);
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), "/bad-data"));
    registry.register(valid().id("good").build());

    ServiceView view = registry.watch("orders");
    assertThat(view.instances()).extracting(ServiceInstance::id).containsExactly("good", "tolerated");
    assertThat(view.instance("tolerated").orElseThrow().port()).hasValue(9);
    assertThat(registry.instances("orders")).extracting(ServiceInstance::id).containsExactly("good", "tolerated");
    assertThat(view.isStale()).isFalse();

    // A node fixed later is seen; one broken later is dropped; the view goes on.
    raw.zk().setData(service + "/no-address", "{\"address\":\"10.0.0.7\",\"port\":7}".getBytes(StandardCharsets.UTF_8), -1);
    await().atMost(WAIT).until(() -> view.instance("no-address").isPresent());
    raw.zk().setData(service + "/tolerated", "{broken".getBytes(StandardCharsets.UTF_8), -1);
    await().atMost(WAIT).until(() -> view.instance("tolerated").isEmpty());
    assertThat(view.instances()).extracting(ServiceInstance::id).containsExactly("good", "no-address");
    assertThat(view.pick(PickStrategy.ROUND_ROBIN)).isPresent();
    List<String> deleted = new ArrayList<>(bad.keySet());
    for (String node : deleted) {
      raw.zk().delete(service + "/" + node, -1);
    }
    raw.zk().delete(service + "/tolerated", -1);
  }
}
