package dev.baton.internal.session;

import dev.baton.Baton;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.KeyStoreFileType;

/**
 * The ZooKeeper client properties a {@code Baton.Builder} collects: TLS (ZooKeeper's Netty client
 * socket with a trust store, and a key store for a client certificate) and any property the user
 * sets. They go into a {@link ZKClientConfig} of the client's own, never into JVM-wide system
 * properties, so clients of one JVM can differ.
 */
public final class ZkClientOptions {
  static final String NETTY_SOCKET = "org.apache.zookeeper.ClientCnxnSocketNetty";

  private Path trustStore;
  private String trustStorePassword;
  private Path keyStore;
  private String keyStorePassword;
  private final Map<String, String> properties = new LinkedHashMap<>();

  /** @throws IllegalArgumentException naming the argument if the file cannot be read */
  public void trustStore(Path trustStore, String password) {
    this.trustStore = readable(trustStore, "trustStore");
    this.trustStorePassword = password == null ? "" : password;
  }

  /** @throws IllegalArgumentException naming the argument if the file cannot be read */
  public void keyStore(Path keyStore, String password) {
    this.keyStore = readable(keyStore, "keyStore");
    this.keyStorePassword = password == null ? "" : password;
  }

  public void property(String key, String value) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
    if (key.isBlank()) {
      throw new IllegalArgumentException("ZooKeeper client property name must not be blank");
    }
    properties.put(key, value);
  }

  /** Whether the client presents a certificate, which also gives its session an x509 identity. */
  public boolean hasClientCertificate() {
    return keyStore != null;
  }

  /**
   * The properties for the client's {@link ZKClientConfig}.
   *
   * @throws IllegalStateException if a client certificate is set without TLS, or a store's type
   *     cannot be told from its file name
   */
  public Map<String, String> toProperties() {
    Map<String, String> all = new LinkedHashMap<>();
    if (keyStore != null && trustStore == null) {
      throw new IllegalStateException("tlsClientCertificate(" + keyStore + ", ...) needs TLS: add"
          + " tls(trustStore, password) with the certificates of the servers or of their CA");
    }
    if (trustStore != null) {
      try (ClientX509Util x509 = new ClientX509Util()) {
        all.put(ZKClientConfig.SECURE_CLIENT, "true");
        all.put(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, NETTY_SOCKET);
        all.put(x509.getSslTruststoreLocationProperty(), trustStore.toString());
        all.put(x509.getSslTruststorePasswdProperty(), trustStorePassword);
        // Said even when empty, so that JVM-wide zookeeper.ssl.* properties (an embedded
        // server's, say) never slip into this client.
        all.put(x509.getSslKeystoreLocationProperty(), keyStore == null ? "" : keyStore.toString());
        all.put(x509.getSslKeystorePasswdProperty(), keyStore == null ? "" : keyStorePassword);
        checkType(trustStore, x509.getSslTruststoreTypeProperty(), "trustStore");
        if (keyStore != null) {
          checkType(keyStore, x509.getSslKeystoreTypeProperty(), "tlsClientCertificate key store");
        }
      }
    }
    all.putAll(properties);
    return all;
  }

  /** ZooKeeper tells a store's type from its file name unless told; say so now rather than at connect. */
  private void checkType(Path store, String typeProperty, String what) {
    if (properties.containsKey(typeProperty)) {
      return;
    }
    try {
      KeyStoreFileType.fromFilename(store.getFileName().toString());
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(what + " " + store + ": ZooKeeper tells a store's type from its file"
          + " name, which must end in .jks, .p12, .pem or .bcfks; rename it, or set"
          + " zkClientProperty(\"" + typeProperty + "\", \"PKCS12\") (or JKS, PEM, BCFKS)", e);
    }
  }

  private static Path readable(Path file, String what) {
    Objects.requireNonNull(file, what);
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalArgumentException(what + " " + file + " is not a readable file");
    }
    return file.toAbsolutePath();
  }
}
