package dev.baton.discovery;

/** How a registered instance's node is written. */
public enum InstanceLayout {
  /**
   * {@code <base>/<service>/<id>} holding curator-x-discovery's JSON: what Curator's {@code
   * ServiceDiscovery} and Spring Cloud Zookeeper read. The default.
   */
  CURATOR_JSON,
  /**
   * The naming-service (dynamic DNS) layout of hand-written registries: {@code
   * <base>/<service>/<address>:<port>} with empty data, or the text of the payload's {@code
   * "data"} entry. The instance's id is then {@code <address>:<port>}; a port is required.
   * Views read both layouts.
   */
  NAMING
}
