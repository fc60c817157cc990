package dev.baton.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One {@link FaultProxy} in front of each server of a {@link TestCluster}, so a client whose
 * connect string is {@link #connectString()} reaches the whole ensemble only through proxies and
 * can be partitioned from all of it at once.
 *
 * <p>The group-wide faults apply to every proxy, in server order; use {@link #proxy(int)} to
 * break the path to a single server. Proxies are tied to server addresses, which
 * {@link TestCluster} keeps across stop and start, so they stay valid when servers restart.
 */
public final class FaultProxyGroup implements AutoCloseable {

    private final List<FaultProxy> proxies;

    private FaultProxyGroup(List<FaultProxy> proxies) {
        this.proxies = List.copyOf(proxies);
    }

    /** Starts one proxy per server of {@code cluster}; proxy {@code i} forwards to server {@code i}. */
    public static FaultProxyGroup forCluster(TestCluster cluster) {
        List<FaultProxy> started = new ArrayList<>();
        try {
            for (int i = 0; i < cluster.size(); i++) {
                started.add(FaultProxy.start(cluster.address(i)));
            }
        } catch (RuntimeException e) {
            started.forEach(FaultProxy::close);
            throw e;
        }
        return new FaultProxyGroup(started);
    }

    /** Connect string listing every proxy, in server order. */
    public String connectString() {
        return proxies.stream().map(FaultProxy::connectString).collect(Collectors.joining(","));
    }

    /** The proxy in front of server {@code server}. */
    public FaultProxy proxy(int server) {
        return proxies.get(server);
    }

    /** All proxies, in server order. */
    public List<FaultProxy> proxies() {
        return proxies;
    }

    /** {@link FaultProxy#cut()} on every proxy. */
    public void cut() {
        proxies.forEach(FaultProxy::cut);
    }

    /** {@link FaultProxy#blackhole()} on every proxy. */
    public void blackhole() {
        proxies.forEach(FaultProxy::blackhole);
    }

    /** {@link FaultProxy#delay(Duration)} on every proxy. */
    public void delay(Duration latency) {
        proxies.forEach(proxy -> proxy.delay(latency));
    }

    /** {@link FaultProxy#restore()} on every proxy. */
    public void restore() {
        proxies.forEach(FaultProxy::restore);
    }

    /**
     * Closes every proxy, even if closing one fails; idempotent.
     *
     * @throws IllegalStateException after all were closed, if any failed
     */
    @Override
    public void close() {
        IllegalStateException failure = null;
        for (FaultProxy proxy : proxies) {
            try {
                proxy.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = new IllegalStateException("closing proxy " + proxy + " failed", e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
