package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * A TCP proxy on a free 127.0.0.1 port that forwards to one target and can break the network on
 * command, so a test can put a ZooKeeper client behind it and watch how it copes.
 *
 * <p>Faults, each of which replaces the previous one until {@link #restore()}:
 * <ul>
 *   <li>{@link #cut()}: every connection is closed at once and new ones are closed as soon as
 *       they are accepted. The client notices immediately (ZooKeeper: {@code Disconnected}) and
 *       the server sees its connection go, but the session lives on for its timeout.</li>
 *   <li>{@link #blackhole()}: connections stay open but every byte is dropped both ways, and new
 *       connections are accepted but never forwarded. Nobody is told anything: the client's read
 *       timeout fires ({@code Disconnected}) and, held longer than the session timeout, the
 *       server expires the session.</li>
 *   <li>{@link #muteClient()}: what the client sends is dropped, while what the server sends still
 *       reaches the client, on open connections and new ones. The server hears nothing more from
 *       the client, which keeps hearing the server's answers already on their way and its watch
 *       events: a client that stays silent however much it is told.</li>
 *   <li>{@link #delay(Duration)}: every chunk read in either direction is written that much later;
 *       byte order is preserved. Combines with the other faults.</li>
 * </ul>
 *
 * <p>Every thread is a daemon named {@code faultproxy-<port>-...}; when {@link #close()} returns,
 * all of them have ended and every socket is closed. This class is thread-safe.
 */
public final class FaultProxy implements AutoCloseable {

    /** Prefix of every thread a proxy starts, for tests that check nothing is left behind. */
    public static final String THREAD_NAME_PREFIX = "faultproxy-";

    private static final int BUFFER_SIZE = 16 * 1024;
    private static final int CONNECT_TIMEOUT_MS = 2_000;
    private static final long CLOSE_TIMEOUT_MS = 5_000;

    private enum Mode { FORWARD, CUT, BLACKHOLE, MUTE_CLIENT }

    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final String threadPrefix;
    private final Object lock = new Object();
    private final Set<Connection> connections = new HashSet<>(); // guarded by lock
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionIds = new AtomicLong();
    private final AtomicLong bytesToClients = new AtomicLong();
    private final AtomicLong clientBytesDropped = new AtomicLong();
    private Mode mode = Mode.FORWARD; // guarded by lock
    private boolean closed; // guarded by lock
    private volatile long delayNanos;

    /**
     * Starts forwarding a free 127.0.0.1 port to {@code target}. The target need not be up:
     * connections made while it is down are closed at once, as the server itself would refuse.
     *
     * @throws UncheckedIOException if no local port can be opened
     */
    public static FaultProxy start(InetSocketAddress target) {
        Objects.requireNonNull(target, "target");
        try {
            return new FaultProxy(target);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a proxy port for " + target, e);
        }
    }

    private FaultProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        // The proxy keeps its port for life, so a kernel-chosen port is safe here.
        this.listener = new ServerSocket(0, 50, FreePorts.LOOPBACK);
        this.threadPrefix = THREAD_NAME_PREFIX + listener.getLocalPort() + "-";
        startThread("accept", this::acceptLoop);
    }

    /** The local port clients should connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code "127.0.0.1:<port>"}, for a ZooKeeper client's connect string. */
    public String connectString() {
        return FreePorts.LOOPBACK.getHostAddress() + ":" + port();
    }

    /** The address this proxy forwards to. */
    public InetSocketAddress target() {
        return target;
    }

    /** Number of client connections the proxy holds open right now, forwarded or not. */
    public int connectionCount() {
        synchronized (lock) {
            return connections.size();
        }
    }

    /**
     * Closes every current connection and, until {@link #restore()}, closes new ones as soon as
     * they are accepted. When this returns, no byte will be forwarded.
     */
    public void cut() {
        synchronized (lock) {
            requireOpen();
            mode = Mode.CUT;
            new ArrayList<>(connections).forEach(Connection::close);
        }
    }

    /**
     * Drops every byte both ways on the current connections without closing them and, until
     * {@link #restore()}, accepts new connections but forwards nothing. When this returns, no
     * byte will be forwarded (bytes held back by {@link #delay} are dropped too).
     */
    public void blackhole() {
        synchronized (lock) {
            requireOpen();
            mode = Mode.BLACKHOLE;
            connections.forEach(Connection::blackhole);
        }
    }

    /**
     * Drops every byte the clients send, on the current connections and new ones, while the
     * server's bytes still reach them, until {@link #restore()} (or another fault). When this
     * returns, no byte of a client will reach the server. {@link #clientBytesDropped()} tells when
     * a client has tried to say something; {@link #bytesToClients()} when the server has.
     */
    public void muteClient() {
        synchronized (lock) {
            requireOpen();
            mode = Mode.MUTE_CLIENT;
            connections.forEach(Connection::muteClient);
        }
    }

    /** Bytes written to clients since the proxy started, whatever the fault. */
    public long bytesToClients() {
        return bytesToClients.get();
    }

    /** Bytes the clients sent that were dropped by {@link #muteClient()}. */
    public long clientBytesDropped() {
        return clientBytesDropped.get();
    }

    /**
     * Makes every chunk read from now on, in either direction, wait {@code latency} before it is
     * written; {@link Duration#ZERO} removes the delay. Chunks already waiting keep their time,
     * so bytes are never reordered.
     */
    public void delay(Duration latency) {
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative: " + latency);
        }
        synchronized (lock) {
            requireOpen();
            delayNanos = latency.toNanos();
        }
    }

    /**
     * Back to plain forwarding for new connections: no cut, no blackhole, no mute, no delay.
     * Connections that were blackholed or muted are closed, since bytes were lost from their
     * streams; ZooKeeper clients reconnect by themselves.
     */
    public void restore() {
        synchronized (lock) {
            requireOpen();
            mode = Mode.FORWARD;
            delayNanos = 0;
            connections.stream()
                    .filter(c -> c.blackholed || c.clientMuted)
                    .collect(Collectors.toList())
                    .forEach(Connection::close);
        }
    }

    /**
     * Closes the port and every connection and waits for every proxy thread to end. Calling it
     * again does nothing.
     *
     * @throws IllegalStateException if a proxy thread is somehow still alive after 5 seconds
     */
    @Override
    public void close() {
        List<Connection> open;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            mode = Mode.CUT;
            open = new ArrayList<>(connections);
        }
        closeQuietly(listener);
        open.forEach(Connection::close);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_TIMEOUT_MS);
        for (Thread thread : new ArrayList<>(threads)) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            try {
                thread.join(Math.max(1, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<String> alive = threads.stream()
                .filter(Thread::isAlive)
                .map(Thread::getName)
                .collect(Collectors.toList());
        if (!alive.isEmpty()) {
            throw new IllegalStateException("proxy " + this + " threads still running: " + alive);
        }
    }

    @Override
    public String toString() {
        return connectString() + " -> " + target.getHostString() + ":" + target.getPort();
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("proxy " + this + " is closed");
        }
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                continue; // the loop ends once close() has closed the listener
            }
            handle(client);
        }
    }

    private void handle(Socket client) {
        Mode current;
        synchronized (lock) {
            current = mode;
        }
        if (current == Mode.CUT) {
            closeQuietly(client);
            return;
        }
        Socket upstream = null;
        if (current == Mode.FORWARD) {
            upstream = new Socket();
            try {
                upstream.setTcpNoDelay(true);
                upstream.connect(target, CONNECT_TIMEOUT_MS);
            } catch (IOException e) {
                // Target down: close the client as a refusing server would.
                closeQuietly(upstream);
                closeQuietly(client);
                return;
            }
        }
        Connection connection = new Connection(connectionIds.incrementAndGet(), client, upstream);
        synchronized (lock) {
            // The mode may have changed while connecting upstream.
            if (mode == Mode.CUT) {
                connection.close();
                return;
            }
            if (mode == Mode.BLACKHOLE) {
                connection.blackhole();
            } else if (mode == Mode.MUTE_CLIENT) {
                connection.muteClient();
            }
            connections.add(connection);
            connection.start();
        }
    }

    private void startThread(String name, Runnable body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } finally {
                threads.remove(Thread.currentThread());
            }
        }, threadPrefix + name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            // Nothing useful to do: the goal is only that it is closed.
        }
    }

    /** One accepted client connection and, unless it arrived during a blackhole, its upstream. */
    private final class Connection {
        private final long id;
        private final Socket client;
        private final Socket upstream;
        private final AtomicBoolean closed = new AtomicBoolean();
        private final List<Direction> directions = new ArrayList<>();
        volatile boolean blackholed;
        volatile boolean clientMuted;

        Connection(long id, Socket client, Socket upstream) {
            this.id = id;
            this.client = client;
            this.upstream = upstream;
            try {
                client.setTcpNoDelay(true);
            } catch (IOException e) {
                // Only latency is at stake.
            }
        }

        void start() {
            directions.add(new Direction(this, client, upstream, false, "c" + id + "-up"));
            if (upstream != null) {
                directions.add(new Direction(this, upstream, client, true, "c" + id + "-down"));
            }
            directions.forEach(Direction::start);
        }

        void blackhole() {
            blackholed = true;
        }

        void muteClient() {
            clientMuted = true;
        }

        void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            closeQuietly(client);
            closeQuietly(upstream);
            // Readers are released by the closed sockets; writers may be parked on their queue.
            directions.forEach(Direction::stopWriter);
            synchronized (lock) {
                connections.remove(this);
            }
        }
    }

    /** Bytes flowing one way: a reader thread feeding a writer thread through a delay line. */
    private final class Direction {
        private static final byte[] NO_BYTES = new byte[0];

        private final Connection connection;
        private final Socket from;
        private final Socket to;
        private final boolean fromUpstream;
        private final String name;
        private final BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        private final Chunk end = new Chunk(0, NO_BYTES);
        private volatile Thread writer;

        Direction(Connection connection, Socket from, Socket to, boolean fromUpstream, String name) {
            this.connection = connection;
            this.from = from;
            this.to = to;
            this.fromUpstream = fromUpstream;
            this.name = name;
        }

        void start() {
            if (to != null) {
                startThread(name + "-write", this::writeLoop);
            }
            startThread(name + "-read", this::readLoop);
        }

        void stopWriter() {
            Thread thread = writer;
            if (thread != null && thread != Thread.currentThread()) {
                thread.interrupt();
            }
        }

        private void readLoop() {
            byte[] buffer = new byte[BUFFER_SIZE];
            try {
                InputStream in = from.getInputStream();
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    if (to == null || connection.blackholed) {
                        continue; // dropped; a blackhole answers nothing
                    }
                    if (!fromUpstream && connection.clientMuted) {
                        clientBytesDropped.addAndGet(read);
                        continue;
                    }
                    queue.add(new Chunk(System.nanoTime() + delayNanos,
                            Arrays.copyOf(buffer, read)));
                }
            } catch (IOException e) {
                // Closed by us or reset by the peer: handled as end of stream.
            }
            endOfStream();
        }

        private void endOfStream() {
            if (connection.blackholed && fromUpstream) {
                // The server gave up (e.g. expired the session); a blackholed client must not
                // learn of it, so keep its side open until restore() or close().
                closeQuietly(from);
            } else if (to == null || connection.blackholed) {
                connection.close();
            } else {
                queue.add(end); // the writer closes the connection after the delayed bytes
            }
        }

        private void writeLoop() {
            writer = Thread.currentThread();
            if (connection.closed.get()) {
                return; // close() ran before this thread could be interrupted
            }
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk chunk = queue.take();
                    if (chunk == end) {
                        break;
                    }
                    long wait = chunk.dueNanos - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    if (connection.blackholed) {
                        continue;
                    }
                    if (!fromUpstream && connection.clientMuted) {
                        clientBytesDropped.addAndGet(chunk.bytes.length);
                        continue; // read before the mute, held back by a delay
                    }
                    out.write(chunk.bytes);
                    out.flush();
                    if (fromUpstream) {
                        bytesToClients.addAndGet(chunk.bytes.length);
                    }
                }
            } catch (InterruptedException e) {
                return; // close() stopped us
            } catch (IOException e) {
                // The receiving side is gone.
            }
            connection.close();
        }
    }

    private static final class Chunk {
        final long dueNanos;
        final byte[] bytes;

        Chunk(long dueNanos, byte[] bytes) {
            this.dueNanos = dueNanos;
            this.bytes = bytes;
        }
    }
}
