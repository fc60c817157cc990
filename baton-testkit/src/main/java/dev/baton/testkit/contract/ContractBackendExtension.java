package dev.baton.testkit.contract;

import dev.baton.Coordinator;
import dev.baton.testkit.FaultProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link ContractBackend} as a JUnit extension: the server runs for the test class, each client
 * talks to it through a {@link FaultProxy} of its own, and clients are closed after each test.
 * A backend supplies how to start, stop and restart its server and how to connect a client to a
 * {@code host:port}.
 *
 * <pre>{@code
 * class ZooKeeperMutexContractTest extends MutexContract {
 *   @RegisterExtension static final ZooKeeperBackend BACKEND = new ZooKeeperBackend();
 *   @Override protected ContractBackend backend() { return BACKEND; }
 * }
 * }</pre>
 */
public abstract class ContractBackendExtension
    implements ContractBackend, BeforeAllCallback, AfterAllCallback, AfterEachCallback {
  private final Map<Coordinator, FaultProxy> proxies = new IdentityHashMap<>();
  private final List<Coordinator> clients = new ArrayList<>();

  /** Starts the server for the test class. */
  protected abstract void startServer();

  /** Stops the server for good, removing what it stored. */
  protected abstract void stopServer();

  /** Where the server listens (its port stays the same across {@link #restartServer()}). */
  protected abstract InetSocketAddress serverAddress();

  /** A client of the server at {@code hostAndPort} (a proxy's), with a lease timeout of {@code leaseTimeout}. */
  protected abstract Coordinator connect(String hostAndPort, Duration leaseTimeout);

  @Override
  public final Coordinator newClient(Duration leaseTimeout) {
    FaultProxy proxy = FaultProxy.start(serverAddress());
    Coordinator client;
    try {
      client = connect(proxy.connectString(), leaseTimeout);
    } catch (RuntimeException | Error e) {
      proxy.close();
      throw e;
    }
    synchronized (this) {
      proxies.put(client, proxy);
      clients.add(client);
    }
    return client;
  }

  @Override
  public final void cutLink(Coordinator client) {
    proxy(client).cut();
  }

  @Override
  public final void delayLink(Coordinator client, Duration latency) {
    proxy(client).delay(latency);
  }

  @Override
  public final void restoreLink(Coordinator client) {
    proxy(client).restore();
  }

  /**
   * The {@code host:port} {@code client} was connected to (its proxy's), as {@link #connect} was
   * given it: for a fixture that tells the server's view of a client's connections by it.
   */
  protected final String connectString(Coordinator client) {
    return proxy(client).connectString();
  }

  private synchronized FaultProxy proxy(Coordinator client) {
    FaultProxy proxy = proxies.get(client);
    if (proxy == null) {
      throw new IllegalArgumentException(client + " was not made by this fixture's newClient()");
    }
    return proxy;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    startServer();
  }

  /**
   * Closes the test's clients, last made first, each after its proxy (so that a client whose link
   * is cut ends at once on a refused connection; its leases expire on the server).
   */
  @Override
  public void afterEach(ExtensionContext context) {
    List<Coordinator> toClose;
    List<FaultProxy> links;
    synchronized (this) {
      toClose = new ArrayList<>(clients);
      links = new ArrayList<>();
      for (Coordinator client : toClose) {
        links.add(proxies.get(client));
      }
      clients.clear();
      proxies.clear();
    }
    RuntimeException failure = null;
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        links.get(i).close();
        toClose.get(i).close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    stopServer();
  }

  @Override
  public String toString() {
    return name() + " contract backend at " + serverAddress();
  }
}
