package dev.baton.discovery;

import dev.baton.ZkPaths;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;

/**
 * One provider of a service, as the {@link ServiceRegistry} stores it: an immutable value, the
 * fields of curator-x-discovery's {@code ServiceInstance}. Built with {@link #builder(String)};
 * each setting is checked as it is set, and the error names the argument.
 *
 * <pre>{@code
 * ServiceInstance instance = ServiceInstance.builder("orders")
 *     .address("10.0.0.5").port(8080)
 *     .payload(Map.of("zone", "a"))
 *     .build();                                // id: a random UUID
 * }</pre>
 *
 * <p>The payload is JSON-shaped: a map from names to strings, numbers, booleans, lists and maps of
 * the same. It is stored as Curator stores a {@code Map} payload, with {@code "@class"} naming its
 * Java type ({@link #payloadType()}, {@code java.util.LinkedHashMap} unless set), so a Curator
 * client built with a {@code Map} payload class reads it as is; give the name of a class of
 * yours with the same properties for a Curator client that reads that class. Whole numbers are
 * kept as the smallest of {@code Integer}, {@code Long} and {@code BigInteger} that holds them,
 * other numbers as {@code Double}, as reading them back gives, so an instance read from its node
 * equals the one registered.
 */
public final class ServiceInstance {
  /** The payload type written when none is set: what Curator's {@code Map} payloads are. */
  public static final String DEFAULT_PAYLOAD_TYPE = "java.util.LinkedHashMap";

  private final String name;
  private final String id;
  private final String address;
  private final Integer port;
  private final Integer sslPort;
  private final Map<String, Object> payload;
  private final String payloadType;
  private final Instant registrationTime;
  private final String uriSpec;
  private final boolean enabled;

  private ServiceInstance(Builder builder) {
    this.name = builder.name;
    this.id = builder.id == null ? UUID.randomUUID().toString() : builder.id;
    if (builder.address == null) {
      throw new IllegalStateException("address is required: ServiceInstance.builder(\"" + name
          + "\").address(\"10.0.0.5\")");
    }
    this.address = builder.address;
    this.port = builder.port;
    this.sslPort = builder.sslPort;
    this.payload = builder.payload;
    this.payloadType = builder.payloadType == null && !builder.payload.isEmpty()
        ? DEFAULT_PAYLOAD_TYPE : builder.payloadType;
    this.registrationTime = builder.registrationTime == null
        ? Instant.ofEpochMilli(System.currentTimeMillis()) : builder.registrationTime;
    this.uriSpec = builder.uriSpec;
    this.enabled = builder.enabled;
  }

  /**
   * A builder for an instance of {@code service}.
   *
   * @throws IllegalArgumentException naming the argument if {@code service} is not a single
   *     ZooKeeper node name (empty, or holding '/')
   */
  public static Builder builder(String service) {
    return new Builder(service);
  }

  /** A builder holding every field of this instance, to change some and build a new one. */
  public Builder toBuilder() {
    Builder builder = new Builder(name).id(id).address(address).registrationTime(registrationTime).enabled(enabled);
    builder.port = port;
    builder.sslPort = sslPort;
    builder.payload = payload;
    builder.payloadType = payloadType;
    builder.uriSpec = uriSpec;
    return builder;
  }

  /** The service's name: the node {@code <base>/<name>} the instance lives under. */
  public String name() {
    return name;
  }

  /** The instance's id, unique within its service: the name of its node. */
  public String id() {
    return id;
  }

  /** Host name or IP address where the instance serves. */
  public String address() {
    return address;
  }

  public OptionalInt port() {
    return port == null ? OptionalInt.empty() : OptionalInt.of(port);
  }

  public OptionalInt sslPort() {
    return sslPort == null ? OptionalInt.empty() : OptionalInt.of(sslPort);
  }

  /** The payload, unmodifiable; empty if none was given. */
  public Map<String, Object> payload() {
    return payload;
  }

  /**
   * The Java class name stored with the payload (Curator's {@code "@class"}): the one given to
   * the builder or read from the node, else {@link #DEFAULT_PAYLOAD_TYPE} if there is a payload.
   * Empty when there is neither a payload nor a type: the node then holds a null payload.
   */
  public Optional<String> payloadType() {
    return Optional.ofNullable(payloadType);
  }

  /** When the instance was built (or the time given to the builder), to the millisecond. */
  public Instant registrationTime() {
    return registrationTime;
  }

  /** Curator's URI template, such as {@code "{scheme}://{address}:{port}"}, if one was given. */
  public Optional<String> uriSpec() {
    return Optional.ofNullable(uriSpec);
  }

  /**
   * Whether callers should be sent to this instance. A disabled instance stays listed by {@link
   * ServiceView#instances()} but is never {@linkplain ServiceView#pick picked}: register it
   * enabled, and update it disabled to drain it before it stops.
   */
  public boolean isEnabled() {
    return enabled;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServiceInstance that && name.equals(that.name) && id.equals(that.id)
        && address.equals(that.address) && Objects.equals(port, that.port)
        && Objects.equals(sslPort, that.sslPort) && payload.equals(that.payload)
        && Objects.equals(payloadType, that.payloadType) && registrationTime.equals(that.registrationTime)
        && Objects.equals(uriSpec, that.uriSpec) && enabled == that.enabled;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, id, address, port, sslPort, payload, registrationTime);
  }

  @Override
  public String toString() {
    return "ServiceInstance[" + name + "/" + id + " " + address + (port == null ? "" : ":" + port)
        + (sslPort == null ? "" : " ssl:" + sslPort) + (payload.isEmpty() ? "" : " " + payload)
        + (enabled ? "" : " disabled") + "]";
  }

  /** Settings of an instance, each checked as it is set; {@link #build()} makes the instance. */
  public static final class Builder {
    private final String name;
    private String id;
    private String address;
    private Integer port;
    private Integer sslPort;
    private Map<String, Object> payload = Map.of();
    private String payloadType;
    private Instant registrationTime;
    private String uriSpec;
    private boolean enabled = true;

    private Builder(String name) {
      this.name = ZkPaths.validateName(name, "service name");
    }

    /** The instance's id, a single node name; default: a random UUID. */
    public Builder id(String id) {
      this.id = ZkPaths.validateName(id, "instance id");
      return this;
    }

    /** Host name or IP address callers connect to; required. */
    public Builder address(String address) {
      Objects.requireNonNull(address, "address must not be null");
      if (address.isBlank() || !address.strip().equals(address)) {
        throw new IllegalArgumentException(
            "address must be a host name or IP address without blanks, was '" + address + "'");
      }
      this.address = address;
      return this;
    }

    /** The port callers connect to, 1 to 65535. */
    public Builder port(int port) {
      this.port = checkPort(port, "port");
      return this;
    }

    /** The TLS port, 1 to 65535. */
    public Builder sslPort(int sslPort) {
      this.sslPort = checkPort(sslPort, "sslPort");
      return this;
    }

    /**
     * Metadata callers see (zone, version, weight...). Keys are strings other than {@code
     * "@class"}; values are strings, numbers, booleans, or lists and maps of those, never null.
     * Copied.
     *
     * @throws IllegalArgumentException naming the key whose value is null or of another type
     */
    public Builder payload(Map<String, ?> payload) {
      Objects.requireNonNull(payload, "payload must not be null");
      if (payload.containsKey("@class")) {
        throw new IllegalArgumentException("payload key '@class' is reserved for the payload's type;"
            + " set it with payloadType(...)");
      }
      this.payload = copyMap(payload, "payload");
      return this;
    }

    /**
     * The Java class name stored with the payload as Curator's {@code "@class"}, for Curator
     * clients that read a payload class of their own. Default: {@link #DEFAULT_PAYLOAD_TYPE}.
     */
    public Builder payloadType(String payloadType) {
      Objects.requireNonNull(payloadType, "payloadType must not be null");
      if (payloadType.isBlank() || payloadType.chars().anyMatch(Character::isWhitespace)) {
        throw new IllegalArgumentException("payloadType must be a Java class name, was '" + payloadType + "'");
      }
      this.payloadType = payloadType;
      return this;
    }

    /** Default: the time of {@link #build()}. Kept to the millisecond, as the node stores it. */
    public Builder registrationTime(Instant registrationTime) {
      Objects.requireNonNull(registrationTime, "registrationTime must not be null");
      this.registrationTime = Instant.ofEpochMilli(registrationTime.toEpochMilli());
      return this;
    }

    /**
     * Curator's URI template: literal text and {@code {variables}}, such as {@code
     * "{scheme}://{address}:{port}/api"}.
     *
     * @throws IllegalArgumentException if a brace is unbalanced or nested
     */
    public Builder uriSpec(String uriSpec) {
      Objects.requireNonNull(uriSpec, "uriSpec must not be null");
      boolean inside = false;
      for (char c : uriSpec.toCharArray()) {
        if (c == '{' && inside || c == '}' && !inside) {
          throw new IllegalArgumentException("uriSpec '" + uriSpec + "' has an unbalanced or nested '" + c + "'");
        }
        if (c == '{' || c == '}') {
          inside = c == '{';
        }
      }
      if (inside) {
        throw new IllegalArgumentException("uriSpec '" + uriSpec + "' has a '{' that is never closed");
      }
      this.uriSpec = uriSpec;
      return this;
    }

    /** Whether callers should be sent to the instance; default true. See {@link ServiceInstance#isEnabled()}. */
    public Builder enabled(boolean enabled) {
      this.enabled = enabled;
      return this;
    }

    /**
     * The instance.
     *
     * @throws IllegalStateException if no address was set
     */
    public ServiceInstance build() {
      return new ServiceInstance(this);
    }

    private static Integer checkPort(int port, String what) {
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException(what + " must be between 1 and 65535, was " + port);
      }
      return port;
    }

    /** The smallest of Integer, Long and BigInteger that holds it: what reading the JSON gives. */
    private static Object integral(Object value) {
      BigInteger number = value instanceof BigInteger big ? big : BigInteger.valueOf(((Number) value).longValue());
      if (number.bitLength() < 32) {
        return number.intValue();
      }
      return number.bitLength() < 64 ? (Object) number.longValue() : number;
    }

    private static Map<String, Object> copyMap(Map<?, ?> map, String where) {
      Map<String, Object> copy = new LinkedHashMap<>();
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!(entry.getKey() instanceof String key)) {
          throw new IllegalArgumentException(where + " has a key that is not a string: " + entry.getKey());
        }
        copy.put(key, copyValue(entry.getValue(), where + "." + key));
      }
      return Collections.unmodifiableMap(copy);
    }

    private static Object copyValue(Object value, String where) {
      if (value == null) {
        throw new IllegalArgumentException(where + " is null; payload values must not be null");
      }
      if (value instanceof String || value instanceof Boolean) {
        return value;
      }
      if (value instanceof Integer || value instanceof Long || value instanceof Short
          || value instanceof Byte || value instanceof BigInteger) {
        return integral(value);
      }
      if (value instanceof Double || value instanceof Float || value instanceof BigDecimal) {
        double number = ((Number) value).doubleValue();
        if (!Double.isFinite(number)) {
          throw new IllegalArgumentException(where + " is " + value + "; JSON holds finite numbers only");
        }
        return number;
      }
      if (value instanceof Map<?, ?> map) {
        return copyMap(map, where);
      }
      if (value instanceof Collection<?> collection) {
        List<Object> copy = new ArrayList<>(collection.size());
        int i = 0;
        for (Object element : collection) {
          copy.add(copyValue(element, where + "[" + i++ + "]"));
        }
        return Collections.unmodifiableList(copy);
      }
      throw new IllegalArgumentException(where + " is a " + value.getClass().getName()
          + "; payload values must be strings, numbers, booleans, lists or maps");
    }
  }
}
