package dev.baton.bench.lock;

/** One connected client: one ZooKeeper session, as one application node would have. */
public interface LockClient extends AutoCloseable {

  /** A lock object on {@code path}; cheap, nothing is sent until it is used. */
  BenchLock lock(String path);

  /**
   * Sends one request and waits for its reply. The session answers in order, so once it returns
   * every request this client sent before (a release that was not waited for) has reached the
   * server: the request counter can then be read. Costs exactly one request.
   */
  void roundTrip(String path) throws Exception;

  @Override
  void close();
}
