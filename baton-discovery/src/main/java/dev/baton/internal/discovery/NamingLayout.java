package dev.baton.internal.discovery;

import dev.baton.discovery.ServiceInstance;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The naming-service layout of hand-written registries (dynamic DNS): a provider is a node
 * {@code <root>/<service>/<host>:<port>} whose data is empty or plain text. Read as an instance
 * whose id is the node's name, its address and port taken from the name, and its text (if any)
 * in the payload under {@code "data"}. IPv6 addresses are written in brackets ({@code
 * [::1]:8080}). Pure functions.
 */
final class NamingLayout {
  static final String DATA = "data";

  private NamingLayout() {}

  /** Whether {@code data} is not JSON, so the node is read in this layout. */
  static boolean applies(byte[] data) {
    for (byte b : data) {
      if (!Character.isWhitespace(b)) {
        return b != '{';
      }
    }
    return true; // empty
  }

  /**
   * The instance of node {@code node} of {@code service} holding {@code data}.
   *
   * @throws IllegalArgumentException if the name is not {@code host:port}
   */
  static ServiceInstance decode(byte[] data, String service, String node) {
    int colon = node.lastIndexOf(':');
    if (colon <= 0 || colon == node.length() - 1) {
      throw new IllegalArgumentException("neither JSON nor a naming-layout node (its name '" + node
          + "' is not host:port)");
    }
    String host = node.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(node.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("neither JSON nor a naming-layout node (the port in '" + node
          + "' is not a number)");
    }
    ServiceInstance.Builder builder = ServiceInstance.builder(service).id(node).address(host).port(port);
    String text = new String(data, StandardCharsets.UTF_8).strip();
    if (!text.isEmpty()) {
      builder.payload(Map.of(DATA, text));
    }
    return builder.build();
  }

  /** The node name of {@code instance} in this layout: {@code host:port}. */
  static String nodeName(ServiceInstance instance) {
    int port = instance.port().orElseThrow(() -> new IllegalArgumentException("An instance registered in the"
        + " naming layout needs a port (its node is <address>:<port>): " + instance));
    String host = instance.address().contains(":") ? "[" + instance.address() + "]" : instance.address();
    return host + ":" + port;
  }

  /** The node's data in this layout: the payload's {@code "data"} text, else nothing. */
  static byte[] encode(ServiceInstance instance) {
    Object text = instance.payload().get(DATA);
    return text == null ? new byte[0] : text.toString().getBytes(StandardCharsets.UTF_8);
  }
}
