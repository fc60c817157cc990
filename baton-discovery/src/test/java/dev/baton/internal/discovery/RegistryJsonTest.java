package dev.baton.internal.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.discovery.PickStrategy;
import dev.baton.discovery.ServiceInstance;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.curator.x.discovery.UriSpec;
import org.apache.curator.x.discovery.details.JsonInstanceSerializer;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The registry's pure pieces, without a server: the JSON of an instance against what Curator's
 * own serializer writes and reads, and the pick strategies over a list.
 */
class RegistryJsonTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static ServiceInstance full() {
    return ServiceInstance.builder("orders").id("o-1").address("10.0.0.5").port(8080).sslPort(8443)
        .payload(Map.of("zone", "a", "weight", 3, "tags", List.of("x")))
        .uriSpec("{scheme}://{address}:{port}/api").registrationTime(Instant.ofEpochMilli(1234567890123L)).build();
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void encode_hasTheFieldsAndTypesCuratorsDefaultSerializerWrites() throws Exception {
    LinkedHashMap<String, Object> payload = new LinkedHashMap<>(full().payload());
    org.apache.curator.x.discovery.ServiceInstance<Map> curators = new org.apache.curator.x.discovery.ServiceInstance<>(
        "orders", "o-1", "10.0.0.5", 8080, 8443, payload, 1234567890123L,
        org.apache.curator.x.discovery.ServiceType.DYNAMIC, new UriSpec("{scheme}://{address}:{port}/api"));
    JsonNode theirs = MAPPER.readTree(new JsonInstanceSerializer<>(Map.class).serialize(curators));

    JsonNode ours = MAPPER.readTree(InstanceJson.encode(full()));

    assertThat(fieldNames(ours)).isEqualTo(fieldNames(theirs));
    for (String field : fieldNames(theirs)) {
      if (!field.equals("payload")) {
        assertThat(ours.get(field)).as(field).isEqualTo(theirs.get(field));
      }
    }
    assertThat(ours.get("payload").get("@class")).isEqualTo(theirs.get("payload").get("@class"));
    assertThat(MAPPER.convertValue(ours.get("payload"), Map.class))
        .isEqualTo(MAPPER.convertValue(theirs.get("payload"), Map.class));
  }

  private static Set<String> fieldNames(JsonNode node) {
    Set<String> names = new TreeSet<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void decode_readsWhatCuratorWrites_andCuratorReadsWhatWeWrite() throws Exception {
    ServiceInstance instance = full().toBuilder().enabled(false).build();
    JsonInstanceSerializer<Map> curator = new JsonInstanceSerializer<>(Map.class);

    org.apache.curator.x.discovery.ServiceInstance<Map> read = curator.deserialize(InstanceJson.encode(instance));
    byte[] written = curator.serialize(read);

    assertThat(read.isEnabled()).isFalse();
    assertThat(read.buildUriSpec()).isEqualTo("https://10.0.0.5:8080/api");
    // Curator's default writer leaves "enabled" out: what comes back is the same, enabled.
    assertThat(InstanceJson.decode(written, "orders", "o-1")).isEqualTo(instance.toBuilder().enabled(true).build());
  }

  @Test
  void encodeThenDecode_givesTheSameInstance() {
    ServiceInstance bare = ServiceInstance.builder("billing").id("b").address("host").build();
    for (ServiceInstance instance : List.of(full(), bare, full().toBuilder().enabled(false).build(),
        full().toBuilder().payloadType("com.example.Details").build())) {
      assertThat(InstanceJson.decode(InstanceJson.encode(instance), instance.name(), instance.id()))
          .isEqualTo(instance);
    }
    assertThat(new String(InstanceJson.encode(bare), StandardCharsets.UTF_8))
        .contains("\"payload\":null", "\"port\":null", "\"uriSpec\":null").doesNotContain("enabled");
  }

  @Test
  void decode_takesTheServiceFromThePath_andAMissingIdFromTheNode() {
    byte[] data = "{\"name\":\"elsewhere\",\"address\":\"h\"}".getBytes(StandardCharsets.UTF_8);
    ServiceInstance instance = InstanceJson.decode(data, "orders", "node-7");
    assertThat(instance.name()).isEqualTo("orders");
    assertThat(instance.id()).isEqualTo("node-7");
    assertThat(instance.registrationTime()).isEqualTo(Instant.EPOCH);
    assertThat(instance.isEnabled()).isTrue();
  }

  @Test
  void decode_payloadsCuratorWritesForOtherTypes() {
    byte[] text = "{\"address\":\"h\",\"payload\":\"just text\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(InstanceJson.decode(text, "s", "n").payload()).isEmpty();
    byte[] wrapped = "{\"address\":\"h\",\"payload\":[\"com.example.Box\",{\"size\":2}]}".getBytes(StandardCharsets.UTF_8);
    ServiceInstance boxed = InstanceJson.decode(wrapped, "s", "n");
    assertThat(boxed.payloadType()).contains("com.example.Box");
    assertThat(boxed.payload()).containsExactly(Map.entry("size", 2));
    byte[] untyped = "{\"address\":\"h\",\"payload\":{\"zone\":\"a\",\"gone\":null}}".getBytes(StandardCharsets.UTF_8);
    assertThat(InstanceJson.decode(untyped, "s", "n").payload()).containsExactly(Map.entry("zone", "a"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"{scheme}://{address}:{port}", "http://{ address }/x", "plain", "{a}{b}", "{}x{ }",
      "[{port}]", "{[}literal{]}"})
  void uriParts_splitAsCuratorsUriSpec(String spec) {
    List<UriSpec.Part> theirs = new UriSpec(spec).getParts();
    List<InstanceJson.UriPart> ours = InstanceJson.uriParts(spec);
    List<String> a = new ArrayList<>();
    theirs.forEach(part -> a.add(part.getValue() + "/" + part.isVariable()));
    List<String> b = new ArrayList<>();
    ours.forEach(part -> b.add(part.value() + "/" + part.variable()));
    assertThat(b).isEqualTo(a);
  }

  @Test
  void checkSize_refusesDataOverTheLimit_namingThePath() {
    InstanceJson.checkSize(new byte[1000], "/s/orders/a", "/s/orders/a", ZooDefs.Ids.OPEN_ACL_UNSAFE, 0xfffff);
    assertThatThrownBy(() -> InstanceJson.checkSize(new byte[0xfffff], "/s/orders/a", "/c/orders/a",
        ZooDefs.Ids.OPEN_ACL_UNSAFE, 0xfffff))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/c/orders/a");
  }

  // ---- picking --------------------------------------------------------------------------------

  private static List<ServiceInstance> instances(String... ids) {
    List<ServiceInstance> list = new ArrayList<>();
    for (String id : ids) {
      list.add(ServiceInstance.builder("s").id(id).address("h").build());
    }
    return list;
  }

  @Test
  void roundRobin_visitsEachOncePerCycle_evenAsTheListChanges() {
    InstancePicker picker = new InstancePicker();
    List<ServiceInstance> three = instances("a", "b", "c");
    Set<String> cycle = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      cycle.add(picker.pick(three, PickStrategy.ROUND_ROBIN).orElseThrow().id());
    }
    assertThat(cycle).containsExactlyInAnyOrder("a", "b", "c");
    List<ServiceInstance> two = instances("a", "c");
    for (int i = 0; i < 10; i++) {
      assertThat(picker.pick(two, PickStrategy.ROUND_ROBIN).orElseThrow().id()).isIn("a", "c");
    }
    assertThat(picker.pick(List.of(), PickStrategy.ROUND_ROBIN)).isEmpty();
  }

  @Test
  void sticky_keepsItsChoiceWhileListed_andMovesOnWhenItLeaves() {
    InstancePicker picker = new InstancePicker();
    String first = picker.pick(instances("a", "b"), PickStrategy.STICKY).orElseThrow().id();
    assertThat(picker.pick(instances("a", "b", "c"), PickStrategy.STICKY).orElseThrow().id()).isEqualTo(first);
    String other = first.equals("a") ? "b" : "a";
    assertThat(picker.pick(instances(other, "c"), PickStrategy.STICKY).orElseThrow().id()).isNotEqualTo(first);
    String second = picker.pick(instances(other, "c"), PickStrategy.STICKY).orElseThrow().id();
    assertThat(picker.pick(instances(first, other, "c"), PickStrategy.STICKY).orElseThrow().id()).isEqualTo(second);
  }
}
