package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.HelperZk;
import dev.baton.testkit.TestCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceProvider;
import org.apache.curator.x.discovery.UriSpec;
import org.apache.curator.x.discovery.details.JsonInstanceSerializer;
import org.apache.curator.x.discovery.strategies.RoundRobinStrategy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Baton's registry and curator-x-discovery 5.9.0 on the same base path: an instance registered by
 * either is seen by the other with the same fields (Curator through {@code ServiceDiscovery},
 * {@code ServiceCache} and {@code ServiceProvider}), payloads of Curator's {@code Map} class, of
 * a class of the user's, and none, go both ways, and either side sees the other's instances leave.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryCuratorInteropTest {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static TestCluster cluster;
  private static HelperZk raw;
  private final List<AutoCloseable> toClose = new ArrayList<>();

  /** A payload class of the user's, as Curator's documentation has it. */
  public static final class InstanceDetails {
    private String description;
    private int weight;

    public InstanceDetails() {}

    InstanceDetails(String description, int weight) {
      this.description = description;
      this.weight = weight;
    }

    public String getDescription() {
      return description;
    }

    public void setDescription(String description) {
      this.description = description;
    }

    public int getWeight() {
      return weight;
    }

    public void setWeight(int weight) {
      this.weight = weight;
    }
  }

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = TestCluster.builder().standalone().property("maxSessionTimeout", "20000").start();
    raw = HelperZk.connect(cluster.connectString());
  }

  @AfterAll
  static void stopCluster() {
    if (raw != null) {
      raw.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closing(T resource) {
    toClose.add(resource);
    return resource;
  }

  private Baton baton() {
    return closing(Baton.builder().connectString(cluster.connectString()).sessionTimeout(Duration.ofSeconds(10))
        .connectionTimeout(Duration.ofSeconds(10)).build());
  }

  private CuratorFramework curator() throws InterruptedException {
    CuratorFramework curator = closing(CuratorFrameworkFactory.newClient(
        cluster.connectString(), 10_000, 10_000, new ExponentialBackoffRetry(50, 5)));
    curator.start();
    assertThat(curator.blockUntilConnected(10, TimeUnit.SECONDS)).as("curator connected").isTrue();
    return curator;
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private ServiceDiscovery<Map> mapDiscovery(CuratorFramework curator, String base) throws Exception {
    ServiceDiscovery<Map> discovery = ServiceDiscoveryBuilder.builder(Map.class).client(curator).basePath(base)
        .serializer(new JsonInstanceSerializer<>(Map.class)).build();
    closing(discovery);
    discovery.start();
    return discovery;
  }

  // ---- Curator registers, Baton discovers -----------------------------------------------------

  @Test
  @SuppressWarnings("rawtypes")
  void curatorRegisters_batonSeesEveryField_andSeesItLeave() throws Exception {
    String base = "/interop-reg/curator-first";
    ServiceDiscovery<Map> discovery = mapDiscovery(curator(), base);
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("zone", "a");
    payload.put("weight", 3);
    org.apache.curator.x.discovery.ServiceInstance<Map> theirs = org.apache.curator.x.discovery.ServiceInstance
        .<Map>builder().name("orders").id("curator-1").address("10.1.1.1").port(7001).sslPort(7443)
        .payload(payload).uriSpec(new UriSpec("{scheme}://{address}:{port}/v1")).build();
    discovery.registerService(theirs);

    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), base));
    ServiceView view = registry.watch("orders");

    // Curator's discovery re-registers its instances when its connection-state listener hears
    // CONNECTED, which may come after registerService: it deletes the node and creates it again,
    // so a load that falls in between rightly finds no instance until the node is back.
    await().atMost(WAIT).until(() -> view.instance("curator-1").isPresent()
        && registry.instances("orders").size() == 1);
    ServiceInstance seen = view.instance("curator-1").orElseThrow();
    assertThat(seen.name()).isEqualTo("orders");
    assertThat(seen.address()).isEqualTo("10.1.1.1");
    assertThat(seen.port()).hasValue(7001);
    assertThat(seen.sslPort()).hasValue(7443);
    assertThat(seen.payload()).containsExactly(Map.entry("zone", "a"), Map.entry("weight", 3));
    assertThat(seen.payloadType()).contains("java.util.LinkedHashMap");
    assertThat(seen.registrationTime()).isEqualTo(Instant.ofEpochMilli(theirs.getRegistrationTimeUTC()));
    assertThat(seen.uriSpec()).contains("{scheme}://{address}:{port}/v1");
    assertThat(seen.isEnabled()).isTrue();
    assertThat(registry.services()).containsExactly("orders");
    assertThat(registry.instances("orders")).containsExactly(seen);

    discovery.unregisterService(theirs);
    await().atMost(WAIT).until(() -> view.instances().isEmpty());
  }

  @Test
  void curatorWithoutPayload_andWithItsOwnPayloadClass_areReadByBaton() throws Exception {
    String base = "/interop-reg/curator-payloads";
    CuratorFramework curator = curator();
    ServiceDiscovery<Void> none = ServiceDiscoveryBuilder.builder(Void.class).client(curator).basePath(base).build();
    closing(none);
    none.start();
    none.registerService(org.apache.curator.x.discovery.ServiceInstance.<Void>builder()
        .name("orders").id("bare").address("10.1.1.2").port(7002).build());
    ServiceDiscovery<InstanceDetails> detailed = ServiceDiscoveryBuilder.builder(InstanceDetails.class)
        .client(curator).basePath(base).build();
    closing(detailed);
    detailed.start();
    detailed.registerService(org.apache.curator.x.discovery.ServiceInstance.<InstanceDetails>builder()
        .name("orders").id("detailed").address("10.1.1.3").port(7003).payload(new InstanceDetails("eu", 5)).build());

    ServiceView view = closing(ServiceRegistry.open(baton(), base)).watch("orders");

    ServiceInstance bare = view.instance("bare").orElseThrow();
    assertThat(bare.payload()).isEmpty();
    assertThat(bare.payloadType()).isEmpty();
    assertThat(bare.sslPort()).isEmpty();
    ServiceInstance withDetails = view.instance("detailed").orElseThrow();
    assertThat(withDetails.payloadType()).contains(InstanceDetails.class.getName());
    assertThat(withDetails.payload()).containsEntry("description", "eu").containsEntry("weight", 5);
  }

  // ---- Baton registers, Curator discovers -----------------------------------------------------

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void batonRegisters_curatorDiscoveryCacheAndProviderSeeTheSameFields_andSeeItLeave() throws Exception {
    String base = "/interop-reg/baton-first";
    ServiceInstance ours = ServiceInstance.builder("orders").id("baton-1").address("10.2.2.2").port(8080)
        .sslPort(8443).payload(Map.of("zone", "b", "weight", 7)).uriSpec("{scheme}://{address}:{port}")
        .build();
    Registration registration = closing(ServiceRegistry.open(baton(), base)).register(ours);
    ServiceDiscovery<Map> discovery = mapDiscovery(curator(), base);
    ServiceCache<Map> cache = closing(discovery.serviceCacheBuilder().name("orders").build());
    cache.start();
    ServiceProvider<Map> provider = closing(discovery.serviceProviderBuilder().serviceName("orders")
        .providerStrategy(new RoundRobinStrategy<>()).build());
    provider.start();

    org.apache.curator.x.discovery.ServiceInstance<Map> theirs = discovery.queryForInstance("orders", "baton-1");
    assertThat(theirs.getName()).isEqualTo("orders");
    assertThat(theirs.getId()).isEqualTo("baton-1");
    assertThat(theirs.getAddress()).isEqualTo("10.2.2.2");
    assertThat(theirs.getPort()).isEqualTo(8080);
    assertThat(theirs.getSslPort()).isEqualTo(8443);
    assertThat(theirs.getPayload()).isInstanceOf(LinkedHashMap.class).isEqualTo(Map.of("zone", "b", "weight", 7));
    assertThat(theirs.getRegistrationTimeUTC()).isEqualTo(ours.registrationTime().toEpochMilli());
    assertThat(theirs.getServiceType()).isEqualTo(org.apache.curator.x.discovery.ServiceType.DYNAMIC);
    assertThat(theirs.buildUriSpec()).isEqualTo("https://10.2.2.2:8080");
    assertThat(theirs.isEnabled()).isTrue();
    assertThat(discovery.queryForNames()).containsExactly("orders");
    await().atMost(WAIT).until(() -> cache.getInstances().size() == 1);
    assertThat(cache.getInstances().get(0)).isEqualTo(theirs);
    await().atMost(WAIT).until(() -> provider.getAllInstances().size() == 1);
    assertThat(provider.getInstance()).isEqualTo(theirs);

    // An update and a disabled flag come through; Curator's own reader keeps the flag.
    registration.update(ours.toBuilder().port(8081).enabled(false).build());
    await().atMost(WAIT).until(() -> cache.getInstances().get(0).getPort() == 8081);
    assertThat(cache.getInstances().get(0).isEnabled()).isFalse();

    registration.close();
    await().atMost(WAIT).until(() -> cache.getInstances().isEmpty());
    assertThat(discovery.queryForInstances("orders")).isEmpty();
  }

  @Test
  void batonPayloadOfTheUsersClass_andNoPayload_areReadByCuratorsTypedDiscovery() throws Exception {
    String base = "/interop-reg/baton-payloads";
    ServiceRegistry registry = closing(ServiceRegistry.open(baton(), base));
    registry.register(ServiceInstance.builder("orders").id("typed").address("10.2.2.3").port(8003)
        .payloadType(InstanceDetails.class.getName()).payload(Map.of("description", "us", "weight", 2)).build());
    registry.register(ServiceInstance.builder("plain").id("bare").address("10.2.2.4").port(8004).build());
    CuratorFramework curator = curator();
    ServiceDiscovery<InstanceDetails> detailed = ServiceDiscoveryBuilder.builder(InstanceDetails.class)
        .client(curator).basePath(base).build();
    closing(detailed);
    detailed.start();
    ServiceDiscovery<Void> none = ServiceDiscoveryBuilder.builder(Void.class).client(curator).basePath(base).build();
    closing(none);
    none.start();

    InstanceDetails details = detailed.queryForInstance("orders", "typed").getPayload();
    assertThat(details.getDescription()).isEqualTo("us");
    assertThat(details.getWeight()).isEqualTo(2);
    org.apache.curator.x.discovery.ServiceInstance<Void> bare = none.queryForInstance("plain", "bare");
    assertThat(bare.getPayload()).isNull();
    assertThat(bare.getPort()).isEqualTo(8004);
    assertThat(bare.getSslPort()).isNull();
    assertThat(bare.getUriSpec()).isNull();
  }

  // ---- both at once ---------------------------------------------------------------------------

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void mixedProviders_bothSidesSeeAll_andEachSeesTheOthersClientGo() throws Exception {
    String base = "/interop-reg/mixed";
    CuratorFramework curatorClient = curator();
    ServiceDiscovery<Map> discovery = mapDiscovery(curatorClient, base);
    discovery.registerService(org.apache.curator.x.discovery.ServiceInstance.<Map>builder().name("orders")
        .id("c").address("10.3.3.1").port(7001).payload(new LinkedHashMap<>(Map.of("side", "curator"))).build());
    Baton providerClient = baton();
    closing(ServiceRegistry.open(providerClient, base)).register(ServiceInstance.builder("orders").id("b")
        .address("10.3.3.2").port(8001).payload(Map.of("side", "baton")).build());
    ServiceView view = closing(ServiceRegistry.open(baton(), base)).watch("orders");
    ServiceCache<Map> cache = closing(discovery.serviceCacheBuilder().name("orders").build());
    cache.start();

    await().atMost(WAIT).until(() -> cache.getInstances().size() == 2);
    assertThat(view.instances()).extracting(ServiceInstance::id).containsExactly("b", "c");
    Set<String> picked = new java.util.HashSet<>();
    for (int i = 0; i < 4; i++) {
      picked.add(view.pick(PickStrategy.ROUND_ROBIN).orElseThrow().id());
    }
    assertThat(picked).containsExactlyInAnyOrder("b", "c");

    providerClient.close();
    await().atMost(WAIT).until(() -> cache.getInstances().size() == 1);
    assertThat(cache.getInstances().get(0).getId()).isEqualTo("c");
    discovery.close();
    await().atMost(WAIT).until(() -> view.instances().isEmpty());
    assertThat(raw.children(base + "/orders")).isEmpty();
    assertThat(view.instances().stream().map(ServiceInstance::id).collect(Collectors.toList())).isEmpty();
  }
}
