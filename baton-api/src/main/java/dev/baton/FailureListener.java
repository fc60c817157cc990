package dev.baton;

/**
 * Told, once, that a long-running recipe (a leader latch or selector, a queue consumer, a service
 * registration, a config center) stopped for an error that retrying cannot cure: the ensemble
 * refused this client's identity ({@code NotAuthorizedException} on ZooKeeper), refused an ACL, rejected a
 * request as malformed, or the client was closed. The recipe has stopped trying; its {@code
 * failure()} returns the same error. Connection loss and session expiry are never reported here:
 * recipes ride them out by themselves.
 */
@FunctionalInterface
public interface FailureListener {
  void failed(RuntimeException error);
}
