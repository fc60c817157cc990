package dev.baton.internal;

import dev.baton.RetryPolicy;
import java.time.Duration;

/** A client's finished configuration, validated by {@code Baton.Builder}. */
public record ClientSettings(
    String connectString,
    Duration sessionTimeout,
    Duration connectionTimeout,
    RetryPolicy retryPolicy,
    String namespace,
    String authUser,
    String authPassword) {

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

  @Override
  public String toString() {
    // Never print the password.
    return "ClientSettings[" + connectString + namespace + ", sessionTimeout=" + sessionTimeout + "]";
  }
}
