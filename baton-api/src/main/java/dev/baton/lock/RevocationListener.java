package dev.baton.lock;

/**
 * Told that another process asked for a lock this client holds (cooperative revocation, as in
 * Curator: the asker writes {@code __REVOKE__} to the lock node). The holder decides: close the
 * lease soon, or ignore the request. Called on the client's event executor, once per request.
 */
@FunctionalInterface
public interface RevocationListener {
  void revocationRequested(Lease lease);
}
