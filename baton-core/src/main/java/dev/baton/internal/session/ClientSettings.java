package dev.baton.internal.session;

import dev.baton.AclProvider;
import dev.baton.Baton;
import dev.baton.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's finished configuration, validated by {@code Baton.Builder}.
 *
 * @param zkClientProperties ZooKeeper client properties of this client only (TLS and any the user
 *     set), applied to a fresh {@link ZKClientConfig} for each handle
 */
public record ClientSettings(
    String connectString,
    Duration sessionTimeout,
    Duration connectionTimeout,
    RetryPolicy retryPolicy,
    String namespace,
    String authUser,
    String authPassword,
    AclProvider aclProvider,
    Map<String, String> zkClientProperties) {

  private static final Logger log = LoggerFactory.getLogger(ClientSettings.class);

  /** The ZooKeeper client property that turns TLS on. */
  public static final String SECURE_CLIENT = ZKClientConfig.SECURE_CLIENT;

  public ClientSettings {
    aclProvider = aclProvider == null ? AclProvider.open() : aclProvider;
    zkClientProperties = zkClientProperties == null ? Map.of() : Map.copyOf(zkClientProperties);
  }

  /** Open ACLs and ZooKeeper's default client configuration. */
  public ClientSettings(String connectString, Duration sessionTimeout, Duration connectionTimeout,
      RetryPolicy retryPolicy, String namespace, String authUser, String authPassword) {
    this(connectString, sessionTimeout, connectionTimeout, retryPolicy, namespace, authUser, authPassword,
        null, null);
  }

  /** The path on the ensemble for a path of the client. */
  public String onServer(String clientPath) {
    if (namespace.isEmpty()) {
      return clientPath;
    }
    return clientPath.equals("/") ? namespace : namespace + clientPath;
  }

  /** The client's path for a path on the ensemble (the reverse of {@link #onServer}). */
  public String onClient(String serverPath) {
    if (namespace.isEmpty()) {
      return serverPath;
    }
    String rest = serverPath.substring(namespace.length());
    return rest.isEmpty() ? "/" : rest;
  }

  /**
   * The ACL for a node about to be created at {@code serverPath}: every create of Baton takes
   * its ACL from here. Never throws, so it is safe inside ZooKeeper's callbacks: when the
   * provider fails or gives no ACL, the answer is an empty list, which ZooKeeper refuses
   * ({@code INVALIDACL}), so the create fails with a clear error instead of going out open.
   */
  public List<ACL> aclFor(String serverPath) {
    List<ACL> acl;
    try {
      acl = aclProvider.aclForPath(serverPath);
    } catch (RuntimeException e) {
      log.error("The AclProvider failed for {}; the create will be refused", serverPath, e);
      return new ArrayList<>();
    }
    if (acl == null || acl.isEmpty()) {
      log.error("The AclProvider gave no ACL for {}; the create will be refused", serverPath);
      return new ArrayList<>();
    }
    // A copy in an ArrayList: ZooKeeper's client asks contains(null), which List.of refuses.
    List<ACL> copy = new ArrayList<>(acl.size());
    for (ACL entry : acl) {
      if (entry == null) {
        log.error("The AclProvider gave an ACL holding null for {}; the create will be refused", serverPath);
        return new ArrayList<>();
      }
      copy.add(entry);
    }
    return copy;
  }

  /** A fresh ZooKeeper client configuration for one handle, with this client's own properties. */
  public ZKClientConfig zkClientConfig() {
    ZKClientConfig config = new ZKClientConfig();
    zkClientProperties.forEach(config::setProperty);
    return config;
  }

  /** Whether the client connects with TLS. */
  public boolean usesTls() {
    return "true".equals(zkClientProperties.get(SECURE_CLIENT));
  }

  @Override
  public String toString() {
    // Never print the passwords.
    return "ClientSettings[" + connectString + namespace + ", sessionTimeout=" + sessionTimeout
        + (usesTls() ? ", TLS" : "") + "]";
  }
}
