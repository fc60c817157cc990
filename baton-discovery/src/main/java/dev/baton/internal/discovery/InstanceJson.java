package dev.baton.internal.discovery;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.discovery.ServiceInstance;
import dev.baton.internal.session.NodeSizes;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.data.ACL;

/**
 * A service instance as curator-x-discovery's {@code JsonInstanceSerializer} writes it by default
 * (its "compatible" mode): {@code name, id, address, port, sslPort, payload, registrationTimeUTC,
 * serviceType, uriSpec}, with nulls written out, the payload an object holding its Java type as
 * {@code "@class"}, and the URI template as a list of parts. {@code enabled} is written only when
 * false: Curator's default writer leaves it out (readers older than the field would refuse it),
 * and every reader takes a missing one as true. Pure functions.
 *
 * <p>Reading is lenient where Curator is (unknown fields are ignored, a missing field takes
 * Curator's default) and strict where a caller would be misled: the data must be a JSON object
 * with an address, and fields present must have their type.
 */
final class InstanceJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private InstanceJson() {}

  /** The bytes of {@code instance}'s node. */
  static byte[] encode(ServiceInstance instance) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("name", instance.name());
    root.put("id", instance.id());
    root.put("address", instance.address());
    putPort(root, "port", instance.port());
    putPort(root, "sslPort", instance.sslPort());
    if (instance.payloadType().isEmpty()) {
      root.putNull("payload");
    } else {
      ObjectNode payload = root.putObject("payload");
      payload.put("@class", instance.payloadType().get());
      payload.setAll((ObjectNode) MAPPER.valueToTree(instance.payload()));
    }
    root.put("registrationTimeUTC", instance.registrationTime().toEpochMilli());
    root.put("serviceType", "DYNAMIC");
    if (instance.uriSpec().isPresent()) {
      ArrayNode parts = root.putObject("uriSpec").putArray("parts");
      for (UriPart part : uriParts(instance.uriSpec().get())) {
        parts.addObject().put("value", part.value()).put("variable", part.variable());
      }
    } else {
      root.putNull("uriSpec");
    }
    if (!instance.isEnabled()) {
      root.put("enabled", false);
    }
    try {
      return MAPPER.writeValueAsBytes(root);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Cannot write " + instance + " as JSON: " + e.getMessage(), e);
    }
  }

  /**
   * Throws if {@code data} is too big for the node at {@code serverPath}, with {@code path} (as
   * the user knows it) in the message.
   */
  static void checkSize(byte[] data, String serverPath, String path, List<ACL> acl, int maxPacket) {
    int limit = NodeSizes.maxCreateData(serverPath, acl, maxPacket);
    if (data.length > limit) {
      throw new IllegalArgumentException("The instance for " + path + " is " + data.length
          + " bytes as JSON, over the " + limit + " bytes its node can hold (ZooKeeper's"
          + " jute.maxbuffer of " + maxPacket + " bytes, less the request's overhead); nothing was"
          + " written. Keep the payload small: it is read by every caller that watches the service.");
    }
  }

  /**
   * The instance held by the node {@code <service>/<node>}. The service is the one the node lives
   * under, whatever the JSON's name says; a missing id is the node's name.
   *
   * @throws IllegalArgumentException saying what is wrong with the data
   */
  static ServiceInstance decode(byte[] data, String service, String node) {
    if (NamingLayout.applies(data)) {
      return NamingLayout.decode(data, service, node);
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(data);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    ServiceInstance.Builder builder = ServiceInstance.builder(service);
    String id = text(root, "id");
    builder.id(id == null || id.isEmpty() ? node : id);
    String address = text(root, "address");
    if (address == null) {
      throw new IllegalArgumentException("no address");
    }
    builder.address(address);
    Integer port = port(root, "port");
    if (port != null) {
      builder.port(port);
    }
    Integer sslPort = port(root, "sslPort");
    if (sslPort != null) {
      builder.sslPort(sslPort);
    }
    readPayload(root.get("payload"), builder);
    JsonNode time = root.get("registrationTimeUTC");
    if (time != null && !time.isNull()) {
      if (!time.canConvertToLong() || !time.isIntegralNumber()) {
        throw new IllegalArgumentException("registrationTimeUTC is not a whole number: " + time);
      }
      builder.registrationTime(Instant.ofEpochMilli(time.longValue()));
    } else {
      builder.registrationTime(Instant.EPOCH);
    }
    String uriSpec = uriSpec(root.get("uriSpec"));
    if (uriSpec != null) {
      builder.uriSpec(uriSpec);
    }
    JsonNode enabled = root.get("enabled");
    if (enabled != null && !enabled.isNull()) {
      if (!enabled.isBoolean()) {
        throw new IllegalArgumentException("enabled is not a boolean: " + enabled);
      }
      builder.enabled(enabled.booleanValue());
    }
    return builder.build();
  }

  private static void putPort(ObjectNode root, String field, java.util.OptionalInt port) {
    if (port.isPresent()) {
      root.put(field, port.getAsInt());
    } else {
      root.putNull(field);
    }
  }

  private static String text(JsonNode root, String field) {
    JsonNode value = root.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw new IllegalArgumentException(field + " is not a string: " + value);
    }
    return value.textValue();
  }

  /** A port, or null if absent (or 0: Curator's instances have no port 0 to be sent to). */
  private static Integer port(JsonNode root, String field) {
    JsonNode value = root.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0 || value.intValue() > 65_535) {
      throw new IllegalArgumentException(field + " is not a port number: " + value);
    }
    return value.intValue() == 0 ? null : value.intValue();
  }

  /**
   * Curator writes a payload with Jackson's class-name type id: an object with {@code "@class"}
   * for beans and maps, a {@code [type, value]} pair for other non-JSON types, the bare value for
   * strings, numbers and booleans. Only objects become a payload map; other payloads are left out.
   */
  private static void readPayload(JsonNode payload, ServiceInstance.Builder builder) {
    if (payload == null || payload.isNull()) {
      return;
    }
    JsonNode fields = payload;
    if (payload.isArray() && payload.size() == 2 && payload.get(0).isTextual()) {
      builder.payloadType(payload.get(0).textValue());
      fields = payload.get(1);
    }
    if (!fields.isObject()) {
      return;
    }
    Map<String, Object> values = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> field : fields.properties()) {
      if (field.getKey().equals("@class")) {
        if (field.getValue().isTextual() && !field.getValue().textValue().isBlank()) {
          builder.payloadType(field.getValue().textValue());
        }
      } else if (!field.getValue().isNull()) {
        values.put(field.getKey(), plain(field.getValue()));
      }
    }
    builder.payload(values);
  }

  /** A JSON value as strings, numbers, booleans, lists and maps; nulls inside are dropped. */
  private static Object plain(JsonNode value) {
    if (value.getNodeType() == JsonNodeType.OBJECT) {
      Map<String, Object> map = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> field : value.properties()) {
        if (!field.getValue().isNull()) {
          map.put(field.getKey(), plain(field.getValue()));
        }
      }
      return map;
    }
    if (value.isArray()) {
      List<Object> list = new ArrayList<>();
      value.forEach(element -> {
        if (!element.isNull()) {
          list.add(plain(element));
        }
      });
      return list;
    }
    if (value.isBoolean()) {
      return value.booleanValue();
    }
    if (value.isNumber()) {
      return value.numberValue();
    }
    return value.asText();
  }

  /** Curator's parts back into the template they were parsed from; null if absent or not parts. */
  private static String uriSpec(JsonNode spec) {
    if (spec == null || !spec.isObject() || !spec.path("parts").isArray()) {
      return null;
    }
    StringBuilder raw = new StringBuilder();
    for (JsonNode part : spec.get("parts")) {
      String value = part.path("value").asText("");
      raw.append(part.path("variable").asBoolean(false) ? "{" + value + "}" : value);
    }
    return raw.toString();
  }

  record UriPart(String value, boolean variable) {}

  /** A template split as Curator's {@code UriSpec} splits it: braces delimit trimmed variables. */
  static List<UriPart> uriParts(String spec) {
    List<UriPart> parts = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean inside = false;
    for (char c : spec.toCharArray()) {
      if (c == '{' || c == '}') {
        if (current.length() > 0) {
          parts.add(new UriPart(inside ? current.toString().trim() : current.toString(), inside));
          current.setLength(0);
        }
        inside = c == '{';
      } else {
        current.append(c);
      }
    }
    if (current.length() > 0) {
      parts.add(new UriPart(current.toString(), false));
    }
    return parts;
  }
}
