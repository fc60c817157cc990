package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.ClusterTestSupport;
import dev.baton.ConnectionState;
import dev.baton.HelperZk;
import dev.baton.testkit.FaultProxy;
import dev.baton.testkit.TestCluster;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The service registry across clients on one server: registration and discovery, instances
 * leaving with their client or their session and coming back on the new session, views catching
 * up after a cut, the pick strategies, the root watch on service names, empty services removed by
 * the ensemble, a create whose reply was lost, and no watch left behind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(15);

  /** Hides ClusterTestSupport's: the same server, removing empty containers within 100 ms. */
  @BeforeAll
  public static void startCluster() throws Exception {
    cluster = TestCluster.builder().standalone().emptyContainersCheckedEvery(Duration.ofMillis(100))
        .property("maxSessionTimeout", "30000").start();
    raw = HelperZk.connect(cluster.connectString());
  }

  private static ServiceInstance instance(String service, String id, int port) {
    return ServiceInstance.builder(service).id(id).address("10.0.0." + (port % 250)).port(port)
        .payload(Map.of("zone", "a", "weight", 3)).build();
  }

  private ServiceRegistry registry(Baton baton, String base) {
    return closing(ServiceRegistry.open(baton, base));
  }

  private static List<String> ids(List<ServiceInstance> instances) {
    return instances.stream().map(ServiceInstance::id).collect(Collectors.toList());
  }

  // ---- register and discover ------------------------------------------------------------------

  @Test
  void register_isSeenWithEveryFieldByAnotherClientsView_andByADirectRead() throws Exception {
    String base = "/reg-basic";
    Baton providerClient = baton();
    ServiceRegistry provider = registry(providerClient, base);
    ServiceInstance orders = ServiceInstance.builder("orders").id("orders-1").address("10.0.0.5").port(8080)
        .sslPort(8443).payload(Map.of("zone", "a", "tags", List.of("x", "y"), "limits", Map.of("rps", 100)))
        .uriSpec("{scheme}://{address}:{port}/api").registrationTime(Instant.ofEpochMilli(1_700_000_000_123L))
        .build();

    Registration registration = provider.register(orders);

    assertThat(registration.path()).isEqualTo(base + "/orders/orders-1");
    assertThat(registration.isRegistered()).isTrue();
    Baton consumer = baton();
    ServiceView view = registry(consumer, base).watch("orders");
    assertThat(view.instances()).containsExactly(orders);
    assertThat(view.instance("orders-1")).contains(orders);
    assertThat(registry(consumer, base).instances("orders")).containsExactly(orders);
    Stat node = raw.zk().exists(base + "/orders/orders-1", false);
    assertThat(node.getEphemeralOwner()).as("ephemeral, of the provider's session")
        .isEqualTo(providerClient.sessionId());
    assertThat(new String(raw.data(base + "/orders/orders-1"), StandardCharsets.UTF_8))
        .contains("\"name\":\"orders\"", "\"id\":\"orders-1\"", "\"address\":\"10.0.0.5\"", "\"port\":8080",
            "\"sslPort\":8443", "\"@class\":\"java.util.LinkedHashMap\"", "\"registrationTimeUTC\":1700000000123",
            "\"serviceType\":\"DYNAMIC\"", "{\"value\":\"scheme\",\"variable\":true}");
  }

  private static long registrationOwner(String path) throws Exception {
    return raw.zk().exists(path, false).getEphemeralOwner();
  }

  @Test
  void register_nodeIsEphemeralOfTheProvidersSession_underContainerNodes() throws Exception {
    String base = "/reg-layout/services";
    Baton baton = baton();
    Registration registration = registry(baton, base).register(instance("billing", "b-1", 9000));

    assertThat(raw.zk().exists(registration.path(), false).getEphemeralOwner()).isEqualTo(baton.sessionId());
    registration.close();

    // ZooKeeper shows clients no container flag, so check what a container does: the server
    // removes it once empty (a persistent service node would stay forever), its empty container
    // parents with it.
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(raw.exists(base + "/billing")).as("service node removed once empty").isFalse();
      assertThat(raw.exists("/reg-layout")).as("base's container parents removed once empty").isFalse();
    });
  }

  @Test
  void view_seesInstancesJoinChangeAndLeave_listenersToldInOrder() throws Exception {
    String base = "/reg-changes";
    ServiceRegistry provider = registry(baton(), base);
    ServiceView view = registry(baton(), base).watch("orders");
    List<List<String>> told = new CopyOnWriteArrayList<>();
    view.addListener(instances -> told.add(ids(instances)));
    assertThat(view.instances()).isEmpty();
    assertThat(raw.exists(base + "/orders")).as("watching creates nothing").isFalse();

    Registration first = provider.register(instance("orders", "a", 8001));
    await().atMost(WAIT).until(() -> ids(view.instances()).equals(List.of("a")));
    Registration second = provider.register(instance("orders", "b", 8002));
    await().atMost(WAIT).until(() -> ids(view.instances()).equals(List.of("a", "b")));
    ServiceInstance moved = second.instance().toBuilder().address("10.9.9.9").build();
    second.update(moved);
    await().atMost(WAIT).until(() -> view.instance("b").equals(java.util.Optional.of(moved)));
    first.close();
    await().atMost(WAIT).until(() -> ids(view.instances()).equals(List.of("b")));

    await().atMost(WAIT).untilAsserted(() -> assertThat(told)
        .containsExactly(List.of("a"), List.of("a", "b"), List.of("a", "b"), List.of("b")));
    assertThat(view.isStale()).isFalse();
  }

  @Test
  void providerClientClosed_itsInstanceDisappearsFromOtherViews() throws Exception {
    String base = "/reg-client-closed";
    Baton providerClient = baton();
    registry(providerClient, base).register(instance("orders", "leaving", 8001));
    registry(baton(), base).register(instance("orders", "staying", 8002));
    ServiceView view = registry(baton(), base).watch("orders");
    assertThat(ids(view.instances())).containsExactly("leaving", "staying");

    providerClient.close();

    await().atMost(WAIT).until(() -> ids(view.instances()).equals(List.of("staying")));
    assertThat(view.pick(PickStrategy.RANDOM)).get().extracting(ServiceInstance::id).isEqualTo("staying");
  }

  /**
   * The provider's link goes silent past its session timeout: the ensemble ends the session and
   * its node with it, and views drop the instance. Once the link is back, the client opens a new
   * session and registers the instance again by itself, owned by the new session.
   */
  @Test
  void providerSessionExpired_instanceDisappears_thenComesBackOnItsOwnOnTheNewSession() throws Exception {
    String base = "/reg-expiry";
    ServiceView view = registry(baton(), base).watch("orders");
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton providerClient = baton(proxy.connectString(), Duration.ofSeconds(1))) {
      Registration registration = registry(providerClient, base).register(instance("orders", "fragile", 8001));
      await().atMost(WAIT).until(() -> view.instance("fragile").isPresent());
      long oldSession = providerClient.sessionId();

      proxy.blackhole();
      await().atMost(WAIT).until(() -> view.instances().isEmpty());
      await().atMost(WAIT).until(() -> !registration.isRegistered());

      proxy.restore();
      await().atMost(WAIT).until(() -> view.instance("fragile").isPresent());
      await().atMost(WAIT).until(registration::isRegistered);
      assertThat(providerClient.sessionId()).isNotEqualTo(oldSession);
      assertThat(registrationOwner(base + "/orders/fragile")).isEqualTo(providerClient.sessionId());
      assertThat(raw.children(base + "/orders")).containsExactly("fragile");
    }
  }

  /** A caller's view behind a cut link is stale, and once back shows exactly what changed meanwhile. */
  @Test
  void viewCutOff_isStale_andAfterReconnectingHasTheChangesMadeMeanwhile() throws Exception {
    String base = "/reg-cut";
    ServiceRegistry provider = registry(baton(), base);
    Registration leaving = provider.register(instance("orders", "leaving", 8001));
    provider.register(instance("orders", "staying", 8002));
    Registration changing = provider.register(instance("orders", "changing", 8003));
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton consumer = baton(proxy.connectString(), Duration.ofSeconds(10))) {
      ServiceView view = registry(consumer, base).watch("orders");
      List<List<String>> told = new CopyOnWriteArrayList<>();
      view.addListener(instances -> told.add(ids(instances)));
      assertThat(ids(view.instances())).containsExactly("changing", "leaving", "staying");

      proxy.cut();
      await().atMost(WAIT).until(() -> consumer.connectionState() == ConnectionState.SUSPENDED);
      assertThat(view.isStale()).isTrue();
      leaving.close();
      provider.register(instance("orders", "new", 8004));
      ServiceInstance changed = changing.instance().toBuilder().payload(Map.of("zone", "b")).build();
      changing.update(changed);
      assertThat(ids(view.instances())).as("kept while cut off").containsExactly("changing", "leaving", "staying");

      proxy.restore();
      await().atMost(WAIT).until(() -> !view.isStale());
      assertThat(ids(view.instances())).containsExactly("changing", "new", "staying");
      assertThat(view.instance("changing")).contains(changed);
      await().atMost(WAIT).untilAsserted(() -> assertThat(told)
          .as("one notice for the whole difference").containsExactly(List.of("changing", "new", "staying")));
      // The watch outlived the cut (the client sets it again on the same session).
      provider.register(instance("orders", "after", 8005));
      await().atMost(WAIT).until(() -> view.instance("after").isPresent());
    }
  }

  /**
   * The caller's own session expires: its watches went with it. On the new session the view
   * watches again and lists again by itself, sees what changed meanwhile, and keeps following.
   */
  @Test
  void viewSessionExpired_watchesAgainOnTheNewSession_andKeepsFollowing() throws Exception {
    String base = "/reg-view-expiry";
    ServiceRegistry provider = registry(baton(), base);
    Registration leaving = provider.register(instance("orders", "leaving", 8001));
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton consumer = baton(proxy.connectString(), Duration.ofSeconds(1))) {
      ServiceRegistry registry = registry(consumer, base);
      ServiceView view = registry.watch("orders");
      assertThat(registry.services()).containsExactly("orders");
      long oldSession = consumer.sessionId();

      proxy.blackhole();
      await().atMost(WAIT).until(view::isStale);
      await().atMost(WAIT).until(() -> !cluster.watchesBySession(0).containsKey(oldSession)); // expired
      leaving.close();
      provider.register(instance("orders", "joined-meanwhile", 8002));
      provider.register(instance("billing", "b1", 9001));
      proxy.restore();

      await().atMost(WAIT).until(() -> consumer.sessionId() != oldSession && !view.isStale());
      assertThat(ids(view.instances())).containsExactly("joined-meanwhile");
      await().atMost(WAIT).until(() -> registry.services().equals(Set.of("billing", "orders")));
      provider.register(instance("orders", "joined-after", 8003));
      await().atMost(WAIT).until(() -> ids(view.instances()).equals(List.of("joined-after", "joined-meanwhile")));
      assertThat(cluster.watchesBySession(0).get(consumer.sessionId())).contains(base + "/orders", base);
    }
  }

  /** Registering while the connection is down: the node is made once it is back, and only one. */
  @Test
  void registerWhileCut_completesOnceTheConnectionIsBack() throws Exception {
    String base = "/reg-cut-register";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton baton = baton(proxy.connectString(), Duration.ofSeconds(20))) {
      ServiceRegistry registry = registry(baton, base);
      proxy.cut();
      await().atMost(WAIT).until(() -> baton.connectionState() == ConnectionState.SUSPENDED);
      CompletableFuture<Registration> pending = CompletableFuture.supplyAsync(
          () -> registry.register(instance("orders", "patient", 8001)), pool(1));
      proxy.restore();

      Registration registration = pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(registration.isRegistered()).isTrue();
      assertThat(raw.children(base + "/orders")).containsExactly("patient");
    }
  }

  /**
   * Unregistering while cut off: the delete cannot be sent, but once the session is presumed lost
   * the node is certainly going with it, so close returns; the node is gone once the ensemble
   * ends the session, and the client does not register it again on its new session.
   */
  @Test
  void closeWhileCutOff_returnsOnceTheSessionIsPresumedLost_andTheNodeStaysGone() throws Exception {
    String base = "/reg-cut-close";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton baton = baton(proxy.connectString(), Duration.ofSeconds(1))) {
      Registration registration = registry(baton, base).register(instance("orders", "going", 8001));
      long oldSession = baton.sessionId();
      proxy.blackhole();
      await().atMost(WAIT).until(() -> baton.connectionState() == ConnectionState.SUSPENDED);

      CompletableFuture<Void> closed = CompletableFuture.runAsync(registration::close, pool(1));
      closed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(baton.connectionState()).isEqualTo(ConnectionState.LOST);

      await().atMost(WAIT).until(() -> raw.children(base + "/orders").isEmpty());
      proxy.restore();
      await().atMost(WAIT).until(() -> baton.sessionId() != oldSession && baton.connectionState().isConnected());
      // One more round trip of the new session: a re-registration would have been sent before it.
      registry(baton, base).instances("orders");
      assertThat(raw.children(base + "/orders")).isEmpty();
      assertThat(registration.isRegistered()).isFalse();
    }
  }

  // ---- pick -----------------------------------------------------------------------------------

  @Test
  void pick_roundRobinCyclesThroughAll_stickyStaysUntilItsInstanceLeaves_randomOnlyLiveOnes() throws Exception {
    String base = "/reg-pick";
    ServiceRegistry provider = registry(baton(), base);
    List<Registration> registrations = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      registrations.add(provider.register(instance("orders", "i" + i, 8000 + i)));
    }
    ServiceView view = registry(baton(), base).watch("orders");
    assertThat(view.instances()).hasSize(3);

    List<String> cycle = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      cycle.add(view.pick(PickStrategy.ROUND_ROBIN).orElseThrow().id());
    }
    assertThat(new HashSet<>(cycle.subList(0, 3))).containsExactlyInAnyOrder("i1", "i2", "i3");
    assertThat(cycle.subList(3, 6)).isEqualTo(cycle.subList(0, 3));

    String stuck = view.pick(PickStrategy.STICKY).orElseThrow().id();
    for (int i = 0; i < 10; i++) {
      assertThat(view.pick(PickStrategy.STICKY).orElseThrow().id()).isEqualTo(stuck);
    }
    Registration stuckRegistration = registrations.stream()
        .filter(r -> r.instance().id().equals(stuck)).findFirst().orElseThrow();
    stuckRegistration.close();
    await().atMost(WAIT).until(() -> view.instances().size() == 2);
    String next = view.pick(PickStrategy.STICKY).orElseThrow().id();
    assertThat(next).isNotEqualTo(stuck);
    for (int i = 0; i < 10; i++) {
      assertThat(view.pick(PickStrategy.STICKY).orElseThrow().id()).isEqualTo(next);
    }

    Set<String> live = view.instances().stream().map(ServiceInstance::id).collect(Collectors.toSet());
    Set<String> random = new HashSet<>();
    for (int i = 0; i < 200; i++) {
      random.add(view.pick(PickStrategy.RANDOM).orElseThrow().id());
    }
    assertThat(random).isEqualTo(live);
  }

  @Test
  void pick_skipsDisabledInstances_andIsEmptyWithoutLiveOnes() throws Exception {
    String base = "/reg-disabled";
    ServiceRegistry provider = registry(baton(), base);
    Registration draining = provider.register(instance("orders", "draining", 8001));
    Registration serving = provider.register(instance("orders", "serving", 8002));
    ServiceView view = registry(baton(), base).watch("orders");

    draining.update(draining.instance().toBuilder().enabled(false).build());
    await().atMost(WAIT).until(() -> !view.instance("draining").orElseThrow().isEnabled());

    for (PickStrategy strategy : PickStrategy.values()) {
      for (int i = 0; i < 5; i++) {
        assertThat(view.pick(strategy).orElseThrow().id()).as(strategy.name()).isEqualTo("serving");
      }
    }
    assertThat(view.instances()).as("listed, though not picked").hasSize(2);
    serving.close();
    await().atMost(WAIT).until(() -> view.instances().size() == 1);
    assertThat(view.pick(PickStrategy.ROUND_ROBIN)).isEmpty();
  }

  // ---- services and the root watch ------------------------------------------------------------

  @Test
  void services_rootWatchSeesNewServices_andTheEnsembleRemovesAServiceWhoseLastProviderLeft() throws Exception {
    String base = "/reg-names";
    ServiceRegistry provider = registry(baton(), base);
    provider.register(instance("orders", "o1", 8001));
    ServiceRegistry consumer = registry(baton(), base);
    assertThat(consumer.services()).containsExactly("orders");
    List<Set<String>> told = new CopyOnWriteArrayList<>();
    consumer.addServicesListener(told::add, Runnable::run);

    Registration billing = provider.register(instance("billing", "b1", 9001));
    await().atMost(WAIT).until(() -> consumer.services().equals(Set.of("billing", "orders")));
    ServiceView billingView = consumer.watch("billing");
    assertThat(ids(billingView.instances())).containsExactly("b1");

    billing.close();
    await().atMost(WAIT).until(() -> billingView.instances().isEmpty());
    await().atMost(WAIT).until(() -> consumer.services().equals(Set.of("orders")));
    assertThat(raw.exists(base + "/billing")).isFalse();
    assertThat(told).containsExactly(Set.of("billing", "orders"), Set.of("orders"));

    // A service that comes back is seen again, by the names and by the view watching it.
    provider.register(instance("billing", "b2", 9002));
    await().atMost(WAIT).until(() -> consumer.services().contains("billing"));
    await().atMost(WAIT).until(() -> ids(billingView.instances()).equals(List.of("b2")));
  }

  // ---- faults and leaks -----------------------------------------------------------------------

  /**
   * The create reaches the server but its reply is lost with the connection: the retry finds the
   * node, owned by its own session, and uses it instead of failing or leaving a second node.
   */
  @Test
  void registerWithLostReply_findsItsOwnNodeInsteadOfLeakingOrFailing() throws Exception {
    String base = "/reg-lost-reply";
    String path = base + "/orders/once";
    try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
        Baton baton = baton(proxy.connectString(), Duration.ofSeconds(20))) {
      ServiceRegistry registry = registry(baton, base);
      raw.zk().create(base, new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
          org.apache.zookeeper.CreateMode.CONTAINER);
      raw.zk().create(base + "/orders", new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
          org.apache.zookeeper.CreateMode.CONTAINER);
      proxy.delay(Duration.ofMillis(1000));
      CompletableFuture<Registration> pending = CompletableFuture.supplyAsync(
          () -> registry.register(instance("orders", "once", 8001)), pool(1));
      await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(() -> raw.exists(path));
      proxy.cut(); // the reply is still in the proxy's delay line: it is dropped
      long created = raw.czxid(path);
      assertThat(pending).isNotDone();
      await().atMost(WAIT).until(() -> baton.connectionState() == ConnectionState.SUSPENDED);
      proxy.restore();

      Registration registration = pending.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(registration.isRegistered()).isTrue();
      assertThat(raw.children(base + "/orders")).containsExactly("once");
      assertThat(registrationOwner(path)).isEqualTo(baton.sessionId());
      assertThat(raw.czxid(path)).as("the node of the first create, kept: not replaced").isEqualTo(created);
      registration.close();
      assertThat(raw.exists(path)).isFalse();
    }
  }

  /** A restarted process that kept its id replaces the node its old session still holds. */
  @Test
  void register_idHeldByAnotherSession_replacesThatNode() throws Exception {
    String base = "/reg-replace";
    Baton old = baton();
    registry(old, base).register(instance("orders", "stable-id", 8001));
    Baton restarted = baton();

    Registration registration = registry(restarted, base).register(instance("orders", "stable-id", 8002));

    assertThat(registrationOwner(registration.path())).isEqualTo(restarted.sessionId());
    assertThat(registry(baton(), base).instances("orders")).singleElement()
        .satisfies(i -> assertThat(i.port()).hasValue(8002));
  }

  @Test
  void register_sameIdTwiceInOneClient_isRefusedUntilTheFirstIsClosed() {
    String base = "/reg-twice";
    ServiceRegistry registry = registry(baton(), base);
    Registration first = registry.register(instance("orders", "dup", 8001));

    assertThatThrownBy(() -> registry.register(instance("orders", "dup", 8002)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining(base + "/orders/dup");

    first.close();
    first.close(); // idempotent
    Registration second = registry.register(instance("orders", "dup", 8002));
    assertThat(second.isRegistered()).isTrue();
    assertThatThrownBy(() -> first.update(instance("orders", "dup", 8003)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
  }

  @Test
  void registryClose_unregistersItsInstances_andClosesItsViews() throws Exception {
    String base = "/reg-close";
    ServiceRegistry registry = ServiceRegistry.open(baton(), base);
    registry.register(instance("orders", "o1", 8001));
    registry.register(instance("billing", "b1", 9001));
    ServiceView view = registry.watch("orders");

    registry.close();

    assertThat(raw.children(base + "/orders")).isEmpty();
    assertThat(raw.children(base + "/billing")).isEmpty();
    assertThat(view.isStale()).isTrue();
    assertThatThrownBy(() -> registry.watch("orders")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(base);
    registry.close(); // idempotent
  }

  /**
   * Watches are counted by the server itself ({@code mntr}'s {@code zk_watch_count}, {@code
   * wchc}): a closed view removes its watch from the server (while another view of the same
   * client on the same service keeps it), and a closed client leaves none. The server counts a
   * persistent recursive watch (a service's) once, and a persistent one (the base's) twice, as
   * a data watch and a child watch.
   */
  @Test
  void closedViewsAndClosedClient_leaveNoWatchOnTheServer() throws Exception {
    awaitWatchCount(0);
    String base = "/reg-leak";
    Baton consumer = baton();
    ServiceRegistry registry = ServiceRegistry.open(consumer, base);
    ServiceView first = registry.watch("orders");
    ServiceView second = registry.watch("orders");
    awaitWatchCount(1);
    assertThat(cluster.watchesBySession(0).get(consumer.sessionId())).containsExactly(base + "/orders");
    assertThat(registry.services()).isEmpty();
    awaitWatchCount(3);

    first.close();
    // The provider watches its own node (to hear if it is deleted or replaced): one watch more.
    registry(baton(), base).register(instance("orders", "o1", 8001));
    await().atMost(WAIT).until(() -> second.instances().size() == 1);
    awaitWatchCount(4);
    second.close();
    awaitWatchCount(3);
    assertThat(cluster.watchesBySession(0).get(consumer.sessionId())).containsExactly(base);

    long session = consumer.sessionId();
    consumer.close();
    awaitWatchCount(1);
    assertThat(cluster.watchesBySession(0)).doesNotContainKey(session);
  }

  private static void awaitWatchCount(int count) {
    await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.metrics(0).get("zk_watch_count"))
        .as("watches on the server (%s)", cluster.watchesBySession(0)).isEqualTo(Integer.toString(count)));
  }
}
