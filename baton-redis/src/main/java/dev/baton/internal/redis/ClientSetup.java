package dev.baton.internal.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;

/** What every Lettuce client of Baton is told, alone or in a cluster. */
final class ClientSetup {
  private ClientSetup() {}

  /** The settings' credentials, TLS and command timeout, over what {@code uri} said itself. */
  static RedisURI withSettings(RedisURI uri, RedisSettings settings) {
    if (settings.user() != null) {
      uri.setUsername(settings.user());
    }
    if (settings.password() != null) {
      uri.setPassword(settings.password());
    }
    if (settings.tls()) {
      uri.setSsl(true);
    }
    uri.setTimeout(settings.commandTimeout());
    return uri;
  }

  /** {@code options} (a cluster's builder or a server's) set as the settings say. */
  static <B extends ClientOptions.Builder> B configure(B options, RedisSettings settings) {
    if (settings.trustStore() != null) {
      options.sslOptions(SslOptions.builder()
          .truststore(settings.trustStore().toFile(), settings.trustStorePassword()).build());
    }
    options.autoReconnect(true)
        // Fail commands at once while disconnected: a renewal that waited in a queue would hide
        // the outage the lease must report.
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .socketOptions(SocketOptions.builder().connectTimeout(settings.connectTimeout()).keepAlive(true).build())
        .timeoutOptions(TimeoutOptions.enabled(settings.commandTimeout()));
    return options;
  }
}
