package dev.baton.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks free loopback ports for test servers.
 *
 * <p>A stopped test server is restarted on the same ports, so its ports must stay free while it
 * is down. Ports the kernel hands out for {@code bind(0)} come from the ephemeral range, which is
 * also where every outgoing connection (clients, proxies, quorum links) gets its local port: a
 * busy chaos test could take a stopped server's port. So ports are picked at random below the
 * usual ephemeral ranges (Linux starts at 32768, macOS and Windows at 49152), probed with a bind,
 * and remembered until released so two clusters in one JVM never share one.
 */
final class FreePorts {

    static final InetAddress LOOPBACK = loopback();

    private static final int LOW = 20_000;
    private static final int HIGH = 32_000;
    private static final int ATTEMPTS = 2_000;
    private static final Set<Integer> RESERVED = ConcurrentHashMap.newKeySet();
    private static final boolean RANGE_IS_SAFE = ephemeralRangeStartsAbove(HIGH);

    private FreePorts() {
    }

    /**
     * Reserves a port that is free on 127.0.0.1 right now and that no other caller in this JVM
     * holds. Call {@link #release(int)} when the port is no longer needed.
     *
     * @throws IllegalStateException if no free port could be found
     */
    static int reserve() {
        if (RANGE_IS_SAFE) {
            for (int i = 0; i < ATTEMPTS; i++) {
                int port = ThreadLocalRandom.current().nextInt(LOW, HIGH);
                if (RESERVED.add(port)) {
                    if (canBind(port)) {
                        return port;
                    }
                    RESERVED.remove(port);
                }
            }
        }
        // Fallback: let the kernel choose; collisions with outgoing connections become possible
        // again but are rare.
        for (int i = 0; i < ATTEMPTS; i++) {
            int port = kernelChosenPort();
            if (RESERVED.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port found");
    }

    /** Makes the port available to later {@link #reserve()} calls. */
    static void release(int port) {
        RESERVED.remove(port);
    }

    private static boolean canBind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            // ZooKeeper binds its listeners with SO_REUSEADDR, so a port in TIME_WAIT is usable.
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(LOOPBACK, port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int kernelChosenPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind any port on 127.0.0.1", e);
        }
    }

    private static boolean ephemeralRangeStartsAbove(int port) {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (!Files.isReadable(range)) {
            return true; // not Linux: macOS and Windows start at 49152
        }
        try {
            // readAllLines, not readString: the latter trusts the size /proc reports and may
            // return only part of the file.
            String[] bounds = Files.readAllLines(range).get(0).trim().split("\\s+");
            return Integer.parseInt(bounds[0]) >= port;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static InetAddress loopback() {
        try {
            // Not getLoopbackAddress(): that may answer ::1, and the servers bind 127.0.0.1.
            return InetAddress.getByAddress("127.0.0.1", new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
