package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.common.X509Exception;
import org.apache.zookeeper.server.auth.AuthenticationProvider;
import org.apache.zookeeper.server.auth.ProviderRegistry;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * ZooKeeper servers running inside the test JVM, on 127.0.0.1, for tests that need a real
 * server and want to break it on purpose.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Every port (client, quorum, election) is chosen free when the cluster starts, never a
 *       fixed number, and stays reserved for the cluster's life, so {@link #start(int)} brings a
 *       stopped server back on the same ports with the same data.</li>
 *   <li>Each server has its own data folder inside one fresh temporary folder
 *       ({@link #directory()}), deleted by {@link #close()}.</li>
 *   <li>When a factory method returns, every server answers requests (for an ensemble: it has
 *       elected a leader and every member has joined).</li>
 *   <li>The tick time defaults to {@value #DEFAULT_TICK_TIME_MS} ms, so ZooKeeper accepts session
 *       timeouts from 2 ticks (200 ms) to 20 ticks (2 s) and expires sessions quickly. Change the
 *       tick, or the {@code maxSessionTimeout} property, with the {@link Builder}.</li>
 *   <li>Four-letter words are all enabled, the admin HTTP server is off, and the per-address
 *       connection limit is off (every test client connects from 127.0.0.1).</li>
 *   <li>With {@link Builder#secureClientPort}, each server also serves TLS on a port of its own
 *       ({@link #secureConnectString()}); the plain port stays open.</li>
 * </ul>
 *
 * <p>Servers are numbered from 0 to {@code size() - 1}; server {@code i} has ZooKeeper id
 * {@code i + 1}. Methods that wait do so by polling a condition, bounded by the cluster's
 * timeout (default {@value #DEFAULT_TIMEOUT_SECONDS} s), and throw {@link IllegalStateException}
 * when the bound passes. This class is thread-safe.
 *
 * <p>{@link #close()} stops every server, but a few of ZooKeeper's own threads may outlive it:
 * the election workers ({@code WorkerSender}, {@code WorkerReceiver}) end within about 3 s, their
 * poll timeout, and a stopped leader's per-follower {@code Sender-...} thread has been seen to
 * stay parked. Tests that check for leaked threads should look for the threads they own
 * (ZooKeeper clients, {@link FaultProxy}), not for every thread.
 */
public final class TestCluster implements AutoCloseable {

    /** Default tick time in milliseconds. */
    public static final int DEFAULT_TICK_TIME_MS = 100;
    /** Default bound, in seconds, for starting servers and for every method that waits. */
    public static final int DEFAULT_TIMEOUT_SECONDS = 30;

    private static final int FOUR_LETTER_WORD_TIMEOUT_MS = 2_000;
    private static final int READING_COST_TRIES = 5;
    private static final long POLL_INTERVAL_MS = 20;
    private static final String NOT_SERVING = "not currently serving requests";
    private static final String X509_SCHEME = "x509";
    /** Read by a server once, when it starts: how often it removes empty container nodes. */
    private static final String CONTAINER_CHECK = "znode.container.checkIntervalMs";

    private final boolean ensemble;
    private final int tickTimeMs;
    private final Duration timeout;
    private final Map<String, String> extraProperties;
    private final Tls tls;
    /** How often servers look for empty containers to remove, in ms; null: ZooKeeper's default. */
    private final Long containerCheckMs;
    private final Map<String, String> systemPropertiesBefore = new LinkedHashMap<>();
    private AuthenticationProvider x509ProviderBefore;
    private final Path directory;
    private final List<Server> servers = new ArrayList<>();
    private boolean closed; // guarded by this

    /** Starts one standalone server with the default settings. */
    public static TestCluster standalone() {
        return builder().start();
    }

    /**
     * Starts an ensemble of {@code size} servers (at least 2; 3 is the usual choice) with the
     * default settings and returns once all of them serve.
     */
    public static TestCluster ensemble(int size) {
        return builder().ensemble(size).start();
    }

    /** Returns a builder for a standalone server, to change the tick time or other settings. */
    public static Builder builder() {
        return new Builder();
    }

    /** Settings for a {@link TestCluster}; {@link #start()} creates it. */
    public static final class Builder {
        private int size = 1;
        private int tickTimeMs = DEFAULT_TICK_TIME_MS;
        private Duration timeout = Duration.ofSeconds(DEFAULT_TIMEOUT_SECONDS);
        private final Map<String, String> properties = new LinkedHashMap<>();
        private Tls tls;
        private Long containerCheckMs;

        private Builder() {
        }

        /** One standalone server (the default). */
        public Builder standalone() {
            this.size = 1;
            return this;
        }

        /** An ensemble of {@code size} voting servers; {@code size} must be at least 2. */
        public Builder ensemble(int size) {
            if (size < 2) {
                throw new IllegalArgumentException(
                        "an ensemble needs at least 2 servers, got " + size + "; use standalone()");
            }
            this.size = size;
            return this;
        }

        /**
         * ZooKeeper's tick. Session timeouts are clamped by the servers to 2 to 20 ticks unless
         * {@code minSessionTimeout}/{@code maxSessionTimeout} are set with {@link #property}.
         */
        public Builder tickTime(Duration tickTime) {
            long millis = tickTime.toMillis();
            if (millis < 1 || millis > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("tick time must be at least 1 ms: " + tickTime);
            }
            this.tickTimeMs = (int) millis;
            return this;
        }

        /** Bound for starting servers and for every method of the cluster that waits. */
        public Builder timeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive: " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * Adds or overrides one line of every server's configuration, e.g.
         * {@code property("maxSessionTimeout", "10000")}. Settings the cluster manages itself
         * (ports, addresses, data folders, server list) must not be overridden.
         */
        public Builder property(String key, String value) {
            properties.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }

        /**
         * How often the servers remove empty container nodes (ZooKeeper's default is once a
         * minute), so that a test can see a lock or queue path vanish while clients use it.
         * ZooKeeper reads this from a JVM-wide system property when a server starts; the cluster
         * sets it only while it starts its own servers, so servers started elsewhere in the JVM
         * keep their setting.
         */
        public Builder emptyContainersCheckedEvery(Duration interval) {
            long millis = interval.toMillis();
            if (millis < 1 || millis > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("container check interval must be at least 1 ms: " + interval);
            }
            this.containerCheckMs = millis;
            return this;
        }

        /**
         * Each server also serves TLS on a secure client port of its own ({@code
         * secureClientPort}, through ZooKeeper's Netty connection factory; see {@link
         * #secureConnectString()}), presenting the certificate in {@code keyStore} and accepting
         * the client certificates {@code trustStore} trusts. ZooKeeper infers each store's type
         * from its file name ({@code .jks}, {@code .p12}, {@code .pem}). By default ZooKeeper
         * requires a client certificate on a secure port; {@code property("ssl.clientAuth",
         * "none")} (or {@code "want"}) relaxes that. The plain client port stays open: the
         * cluster's own checks and four-letter words use it.
         *
         * <p>ZooKeeper's server reads these settings from JVM-wide system properties ({@code
         * zookeeper.serverCnxnFactory}, {@code zookeeper.ssl.*}, {@code
         * zookeeper.authProvider.x509}; {@code ssl.*} and {@code client.*} keys given to {@link
         * #property} go there too): the cluster sets them when it starts, registers ZooKeeper's
         * x509 authentication provider (a client certificate's subject becomes the session's
         * identity, {@code x509:CN=...}), and puts everything back when it closes. So run one TLS cluster at a
         * time in a JVM; while it runs, other servers started in the JVM use Netty as well, and
         * ZooKeeper clients of the JVM see the {@code zookeeper.ssl.*} values as defaults (which
         * matters only to clients that turn TLS on without setting their own stores).
         */
        public Builder secureClientPort(Path keyStore, String keyStorePassword, Path trustStore,
                String trustStorePassword) {
            this.tls = new Tls(readable(keyStore, "keyStore"), Objects.requireNonNull(keyStorePassword),
                    readable(trustStore, "trustStore"), Objects.requireNonNull(trustStorePassword));
            return this;
        }

        private static Path readable(Path file, String what) {
            Objects.requireNonNull(file, what);
            if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                throw new IllegalArgumentException(what + " " + file + " is not a readable file");
            }
            return file.toAbsolutePath();
        }

        /** Starts the servers and returns once all of them serve. */
        public TestCluster start() {
            return new TestCluster(this);
        }
    }

    private TestCluster(Builder builder) {
        this.ensemble = builder.size > 1;
        this.tickTimeMs = builder.tickTimeMs;
        this.timeout = builder.timeout;
        this.extraProperties = Map.copyOf(builder.properties);
        this.tls = builder.tls;
        this.containerCheckMs = builder.containerCheckMs;
        try {
            this.directory = Files.createTempDirectory("baton-testkit-zk-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary folder for ZooKeeper", e);
        }
        try {
            for (int i = 0; i < builder.size; i++) {
                servers.add(new Server(i, directory.resolve("server-" + i), tls != null));
            }
            if (tls != null) {
                applyTlsSystemProperties();
            }
            for (Server server : servers) {
                start(server.index);
            }
            await(() -> IntStream.range(0, size()).allMatch(this::isServing),
                    () -> "servers did not all start serving: " + modes());
        } catch (RuntimeException | Error e) {
            try {
                close();
            } catch (RuntimeException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
    }

    /** Number of servers, running or not. */
    public int size() {
        return servers.size();
    }

    /** Whether this is an ensemble (quorum) rather than one standalone server. */
    public boolean isEnsemble() {
        return ensemble;
    }

    /** The tick time the servers use. */
    public Duration tickTime() {
        return Duration.ofMillis(tickTimeMs);
    }

    /** The folder holding every server's data; deleted by {@link #close()}. */
    public Path directory() {
        return directory;
    }

    /** Client connect string listing every server, running or not, e.g. for a ZooKeeper client. */
    public String connectString() {
        return servers.stream().map(s -> s.hostPort()).collect(Collectors.joining(","));
    }

    /** Client connect string for one server only. */
    public String connectString(int server) {
        return server(server).hostPort();
    }

    /** Client address of one server, stable across {@link #stop}/{@link #start}. */
    public InetSocketAddress address(int server) {
        return new InetSocketAddress(FreePorts.LOOPBACK, server(server).clientPort);
    }

    /**
     * Client connect string listing every server's TLS port.
     *
     * @throws IllegalStateException if the cluster was not built with {@link
     *     Builder#secureClientPort}
     */
    public String secureConnectString() {
        return IntStream.range(0, size()).mapToObj(this::secureConnectString)
                .collect(Collectors.joining(","));
    }

    /** Client connect string for one server's TLS port; see {@link #secureConnectString()}. */
    public String secureConnectString(int server) {
        Server s = server(server);
        if (s.secureClientPort < 0) {
            throw new IllegalStateException("this cluster serves no TLS; build it with"
                    + " TestCluster.builder().secureClientPort(keyStore, password, trustStore, password)");
        }
        return FreePorts.LOOPBACK.getHostAddress() + ":" + s.secureClientPort;
    }

    /**
     * Stops one server, as a crash would: its clients are disconnected and its ports closed.
     * Its data stays for {@link #start(int)}. Does nothing if the server is already stopped.
     */
    public synchronized void stop(int server) {
        Server s = server(server);
        ZooKeeperServerEmbedded embedded = s.embedded;
        s.embedded = null;
        if (embedded != null) {
            try {
                embedded.close();
            } catch (RuntimeException e) {
                throw new IllegalStateException("stopping " + s + " failed", e);
            }
        }
    }

    /**
     * Starts a stopped server again on the same ports with the same data. Does nothing if it is
     * running. A standalone server serves when this returns; an ensemble member may still be
     * joining, so call {@link #awaitServing(int)} if the test needs it to serve.
     *
     * @throws IllegalStateException if the cluster is closed or the server fails to start
     */
    public synchronized void start(int server) {
        Server s = server(server);
        if (closed) {
            throw new IllegalStateException("cluster is closed; cannot start " + s);
        }
        if (s.embedded != null) {
            return;
        }
        ZooKeeperServerEmbedded embedded = null;
        String containerCheckBefore = System.getProperty(CONTAINER_CHECK);
        try {
            if (containerCheckMs != null) {
                System.setProperty(CONTAINER_CHECK, Long.toString(containerCheckMs));
            }
            embedded = ZooKeeperServerEmbedded.builder()
                    .baseDir(s.baseDir)
                    .configuration(configuration(s))
                    .exitHandler(ExitHandler.LOG_ONLY)
                    .build();
            embedded.start(timeout.toMillis());
            s.embedded = embedded;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            // The server reports failures inside its own thread only to the log, so a failed
            // start shows up here as a timeout.
            IllegalStateException failure = new IllegalStateException("cannot start " + s
                    + " (quorum port " + s.quorumPort + ", election port " + s.electionPort + ")"
                    + (e instanceof TimeoutException
                            ? ": not up within " + timeout.toMillis() + " ms; the cause is in the"
                                    + " ZooKeeper log (zkservermainrunner thread)"
                            : ""), e);
            if (embedded != null) {
                try {
                    embedded.close();
                } catch (RuntimeException closeFailure) {
                    failure.addSuppressed(closeFailure);
                }
            }
            throw failure;
        } finally {
            if (containerCheckMs != null) {
                if (containerCheckBefore == null) {
                    System.clearProperty(CONTAINER_CHECK);
                } else {
                    System.setProperty(CONTAINER_CHECK, containerCheckBefore);
                }
            }
        }
    }

    /**
     * Whether the server was started and not stopped since. It may still not serve requests,
     * e.g. while an ensemble elects a leader; see {@link #isServing(int)}.
     */
    public synchronized boolean isRunning(int server) {
        return server(server).embedded != null;
    }

    /** Whether the server answers requests right now (asked with the {@code srvr} word). */
    public boolean isServing(int server) {
        return mode(server).isPresent();
    }

    /**
     * The server's role as it reports it right now: {@code "leader"}, {@code "follower"},
     * {@code "observer"} or {@code "standalone"}; empty if it is stopped, unreachable or not
     * serving.
     */
    public Optional<String> mode(int server) {
        if (!isRunning(server)) {
            return Optional.empty();
        }
        String answer;
        try {
            answer = fourLetterWord(server, "srvr");
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        return answer.lines()
                .filter(line -> line.startsWith("Mode:"))
                .map(line -> line.substring("Mode:".length()).trim())
                .findFirst();
    }

    /**
     * Index of the server that is leader now, waiting for an election to finish if needed. Only
     * running servers are asked; for a standalone server the answer is 0 once it serves.
     *
     * @throws IllegalStateException if no single running server reports itself leader in time
     */
    public int leader() {
        String wanted = ensemble ? "leader" : "standalone";
        return poll(() -> {
            List<Integer> leaders = IntStream.range(0, size())
                    .filter(i -> mode(i).filter(wanted::equals).isPresent())
                    .boxed()
                    .collect(Collectors.toList());
            return leaders.size() == 1 ? Optional.of(leaders.get(0)) : Optional.empty();
        }, () -> "no single leader among the running servers: " + modes());
    }

    /** Stops the current leader (see {@link #leader()}) and returns its index. */
    public int stopLeader() {
        int leader = leader();
        stop(leader);
        return leader;
    }

    /**
     * Waits until a majority of the ensemble serves, one of them as leader (for a standalone
     * server: until it serves). Clients can then read and write.
     */
    public void awaitServing() {
        int quorum = size() / 2 + 1;
        await(() -> {
            List<String> modes = IntStream.range(0, size())
                    .mapToObj(this::mode)
                    .flatMap(Optional::stream)
                    .collect(Collectors.toList());
            return modes.size() >= quorum && (!ensemble || modes.contains("leader"));
        }, () -> "no serving quorum of " + quorum + ": " + modes());
    }

    /** Waits until one server serves, e.g. after {@link #start(int)}. */
    public void awaitServing(int server) {
        await(() -> isServing(server), () -> server(server) + " is not serving: " + modes());
    }

    /**
     * Sends a four-letter word (e.g. {@code srvr}, {@code mntr}, {@code cons}) and returns the
     * raw answer.
     *
     * @throws UncheckedIOException if the server cannot be reached
     */
    public String fourLetterWord(int server, String command) {
        Server s = server(server);
        try {
            return FourLetterWordMain.send4LetterWord(
                    FreePorts.LOOPBACK.getHostAddress(), s.clientPort, command, false,
                    FOUR_LETTER_WORD_TIMEOUT_MS);
        } catch (IOException e) {
            throw new UncheckedIOException("'" + command + "' to " + s + " failed", e);
        } catch (X509Exception.SSLContextException e) {
            throw new IllegalStateException("'" + command + "' to " + s + " failed", e);
        }
    }

    /**
     * The server's {@code mntr} metrics by name, e.g. {@code zk_znode_count},
     * {@code zk_ephemerals_count}, {@code zk_watch_count}, {@code zk_num_alive_connections},
     * {@code zk_packets_received}. Values are returned as the server prints them.
     *
     * @throws IllegalStateException if the server is not serving
     * @throws UncheckedIOException if it cannot be reached
     */
    public Map<String, String> metrics(int server) {
        String answer = servingAnswer(server, "mntr");
        Map<String, String> metrics = new LinkedHashMap<>();
        answer.lines().forEach(line -> {
            int tab = line.indexOf('\t');
            if (tab > 0) {
                metrics.put(line.substring(0, tab).trim(), line.substring(tab + 1).trim());
            }
        });
        return metrics;
    }

    /**
     * The server's {@code zk_packets_received} counter: every request, ping and connect read
     * from a client, and every four-letter word. Tests count a recipe's requests as the difference of two readings,
     * minus {@link #packetReadingCost(int)}.
     *
     * @throws IllegalStateException if the server is not serving
     * @throws UncheckedIOException if it cannot be reached
     */
    public long packetsReceived(int server) {
        String value = metrics(server).get("zk_packets_received");
        if (value == null) {
            throw new IllegalStateException(server(server) + " reports no zk_packets_received");
        }
        return Long.parseLong(value);
    }

    /**
     * What one {@link #packetsReceived(int)} reading adds to the counter itself: the least
     * difference over several pairs of readings with nothing sent between them. The least,
     * because a client's ping that lands between one pair must not be taken for the reading's
     * cost. On the servers this class starts it is 1: the server counts the four-letter word.
     *
     * @throws IllegalStateException if the server is not serving
     * @throws UncheckedIOException if it cannot be reached
     */
    public long packetReadingCost(int server) {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < READING_COST_TRIES; i++) {
            long first = packetsReceived(server);
            least = Math.min(least, packetsReceived(server) - first);
        }
        return least;
    }

    /**
     * Paths each session watches on this server, from the {@code wchc} word, keyed by session
     * id. Sessions without watches are absent. ZooKeeper lists data watches here (set by
     * {@code exists} and {@code getData}, and persistent watches) but not child watches; the
     * {@code zk_watch_count} metric counts both.
     *
     * @throws IllegalStateException if the server is not serving
     * @throws UncheckedIOException if it cannot be reached
     */
    public Map<Long, Set<String>> watchesBySession(int server) {
        String answer = servingAnswer(server, "wchc");
        Map<Long, Set<String>> watches = new LinkedHashMap<>();
        Set<String> current = null;
        for (String line : answer.split("\n")) {
            if (line.startsWith("0x")) {
                long session = Long.parseUnsignedLong(line.substring(2).trim(), 16);
                current = watches.computeIfAbsent(session, k -> new LinkedHashSet<>());
            } else if (line.startsWith("\t") && current != null) {
                current.add(line.trim());
            }
        }
        return watches;
    }

    /**
     * Stops every server (even if stopping one fails), deletes the data folder and frees the
     * ports. Calling it again does nothing.
     *
     * @throws IllegalStateException listing what failed, after everything was attempted
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<RuntimeException> failures = new ArrayList<>();
        for (Server server : servers) {
            try {
                stop(server.index);
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        try {
            deleteRecursively(directory);
        } catch (RuntimeException e) {
            failures.add(e);
        }
        for (Server server : servers) {
            server.releasePorts();
        }
        restoreSystemProperties();
        if (!failures.isEmpty()) {
            IllegalStateException failure = new IllegalStateException(
                    "closing the test cluster in " + directory + " failed " + failures.size()
                            + " time(s); first: " + failures.get(0).getMessage());
            failures.forEach(failure::addSuppressed);
            throw failure;
        }
    }

    @Override
    public String toString() {
        return (ensemble ? "ensemble " : "standalone ") + connectString();
    }

    private Properties configuration(Server s) {
        Properties p = new Properties();
        p.setProperty("tickTime", Integer.toString(tickTimeMs));
        p.setProperty("dataDir", s.dataDir.toString());
        p.setProperty("clientPortAddress", FreePorts.LOOPBACK.getHostAddress());
        p.setProperty("clientPort", Integer.toString(s.clientPort));
        p.setProperty("maxClientCnxns", "0");
        p.setProperty("4lw.commands.whitelist", "*");
        p.setProperty("admin.enableServer", "false");
        p.setProperty("forceSync", "no");
        // ZooKeeper keeps these two in static fields, so the last server configured in this JVM
        // decides them for all; say them every time, or an ensemble would break a later
        // standalone server.
        p.setProperty("standaloneEnabled", Boolean.toString(!ensemble));
        p.setProperty("reconfigEnabled", "false");
        if (ensemble) {
            // Short limits so a restarted follower syncs and a lost peer is noticed within a
            // second or so, matching the short tick.
            p.setProperty("initLimit", "10");
            p.setProperty("syncLimit", "5");
            for (Server peer : servers) {
                p.setProperty("server." + peer.id(), FreePorts.LOOPBACK.getHostAddress() + ":"
                        + peer.quorumPort + ":" + peer.electionPort);
            }
        }
        if (tls != null) {
            // The rest of the TLS settings are system properties: see applyTlsSystemProperties.
            p.setProperty("secureClientPortAddress", FreePorts.LOOPBACK.getHostAddress());
            p.setProperty("secureClientPort", Integer.toString(s.secureClientPort));
        }
        p.putAll(extraProperties);
        return p;
    }

    /**
     * ZooKeeper's server takes its TLS settings from system properties only: it turns every
     * configuration key it does not know into {@code zookeeper.<key>}, and reads them from there
     * for each TLS connection. They are set here before the first server starts, with their
     * previous values remembered for {@link #close()}. The x509 authentication provider (which
     * gives a client certificate's subject as the session's identity, and without which the
     * server drops every client that presents a certificate) sits in a JVM-wide registry that
     * reads the system properties once, maybe long before this cluster, so it is registered
     * here explicitly.
     */
    private void applyTlsSystemProperties() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("serverCnxnFactory", "org.apache.zookeeper.server.NettyServerCnxnFactory");
        settings.put("authProvider.x509", "org.apache.zookeeper.server.auth.X509AuthenticationProvider");
        settings.put("ssl.keyStore.location", tls.keyStore().toString());
        settings.put("ssl.keyStore.password", tls.keyStorePassword());
        settings.put("ssl.trustStore.location", tls.trustStore().toString());
        settings.put("ssl.trustStore.password", tls.trustStorePassword());
        extraProperties.forEach((key, value) -> {
            if (key.startsWith("ssl.") || key.startsWith("authProvider.") || key.startsWith("client.")
                    || key.equals("serverCnxnFactory")) {
                settings.put(key, value);
            }
        });
        settings.forEach((key, value) -> {
            String name = "zookeeper." + key;
            systemPropertiesBefore.put(name, System.getProperty(name));
            System.setProperty(name, value);
        });
        x509ProviderBefore = ProviderRegistry.getProvider(X509_SCHEME);
        ProviderRegistry.addOrUpdateProvider("zookeeper.authProvider." + X509_SCHEME);
    }

    private void restoreSystemProperties() {
        if (tls == null) {
            return;
        }
        systemPropertiesBefore.forEach((name, value) -> {
            if (value == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, value);
            }
        });
        if (x509ProviderBefore == null) {
            ProviderRegistry.removeProvider(X509_SCHEME);
        }
    }

    private String servingAnswer(int server, String command) {
        String answer = fourLetterWord(server, command);
        if (answer.contains(NOT_SERVING)) {
            throw new IllegalStateException(server(server) + " is not serving; '" + command
                    + "' answered: " + answer.trim());
        }
        return answer;
    }

    private Server server(int index) {
        if (index < 0 || index >= servers.size()) {
            throw new IndexOutOfBoundsException(
                    "no server " + index + " in a cluster of " + servers.size());
        }
        return servers.get(index);
    }

    private String modes() {
        StringJoiner joiner = new StringJoiner(", ", "[", "]");
        for (int i = 0; i < size(); i++) {
            String state = isRunning(i) ? mode(i).orElse("not serving") : "stopped";
            joiner.add(server(i) + " " + state);
        }
        return joiner.toString();
    }

    private void await(BooleanSupplier condition, Supplier<String> failure) {
        poll(() -> condition.getAsBoolean() ? Optional.of(Boolean.TRUE) : Optional.empty(),
                failure);
    }

    private <T> T poll(Supplier<Optional<T>> probe, Supplier<String> failure) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<T> result = probe.get();
            if (result.isPresent()) {
                return result.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        "waited " + timeout.toMillis() + " ms in vain: " + failure.get());
            }
            try {
                TimeUnit.MILLISECONDS.sleep(POLL_INTERVAL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting: " + failure.get(), e);
            }
        }
    }

    private static void deleteRecursively(Path root) {
        // A server thread may still be finishing a log file right after close, so a folder can
        // briefly refill (or a file vanish) while it is being deleted; retry a few times.
        Exception last = null;
        for (int attempt = 0; attempt < 10 && Files.exists(root); attempt++) {
            try (Stream<Path> paths = Files.walk(root)) {
                for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(path);
                }
            } catch (IOException | UncheckedIOException e) {
                last = e;
                try {
                    TimeUnit.MILLISECONDS.sleep(POLL_INTERVAL_MS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (Files.exists(root)) {
            throw new IllegalStateException("cannot delete ZooKeeper data in " + root, last);
        }
    }

    /** One server's fixed identity: ports and folders survive stop and start. */
    private static final class Server {
        final int index;
        final Path baseDir;
        final Path dataDir;
        final int clientPort = FreePorts.reserve();
        final int quorumPort = FreePorts.reserve();
        final int electionPort = FreePorts.reserve();
        final int secureClientPort; // -1 without TLS
        ZooKeeperServerEmbedded embedded; // guarded by the TestCluster

        Server(int index, Path baseDir, boolean secure) {
            this.secureClientPort = secure ? FreePorts.reserve() : -1;
            this.index = index;
            this.baseDir = baseDir;
            this.dataDir = baseDir.resolve("data");
            try {
                Files.createDirectories(dataDir);
                Files.writeString(dataDir.resolve("myid"), Integer.toString(id()),
                        StandardCharsets.US_ASCII);
            } catch (IOException e) {
                releasePorts();
                throw new UncheckedIOException("cannot prepare the data folder of " + this, e);
            }
        }

        int id() {
            return index + 1;
        }

        String hostPort() {
            return FreePorts.LOOPBACK.getHostAddress() + ":" + clientPort;
        }

        void releasePorts() {
            FreePorts.release(clientPort);
            FreePorts.release(quorumPort);
            FreePorts.release(electionPort);
            if (secureClientPort >= 0) {
                FreePorts.release(secureClientPort);
            }
        }

        @Override
        public String toString() {
            return "server " + index + " (" + hostPort() + ")";
        }
    }

    /** The server's TLS stores. */
    private record Tls(Path keyStore, String keyStorePassword, Path trustStore, String trustStorePassword) {
    }
}
