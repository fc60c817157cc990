package dev.baton.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FaultProxyTest {

    /** Long enough that a reconnect after a cut (client backoff up to 1 s) keeps the session. */
    private static final Duration LONG_SESSION = Duration.ofSeconds(6);
    /** Short enough that a blackhole outlives it quickly. */
    private static final Duration SHORT_SESSION = Duration.ofMillis(400);

    private static TestCluster cluster;

    @BeforeAll
    static void startServer() {
        cluster = TestCluster.builder().property("maxSessionTimeout", "10000").start();
    }

    @AfterAll
    static void stopServer() {
        cluster.close();
    }

    @Test
    void start_rawClientCreatesAndReadsThroughProxy() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
                RecordingClient client = RecordingClient.connect(proxy.connectString(), LONG_SESSION)) {
            client.zk().create("/proxied", "hi".getBytes(UTF_8), Ids.OPEN_ACL_UNSAFE,
                    CreateMode.EPHEMERAL);

            assertThat(client.zk().getData("/proxied", false, null)).isEqualTo("hi".getBytes(UTF_8));
            assertThat(proxy.connectString()).isEqualTo("127.0.0.1:" + proxy.port());
            assertThat(proxy.target()).isEqualTo(cluster.address(0));
            assertThat(proxy.connectionCount()).isEqualTo(1);
        }
    }

    @Test
    void cut_disconnectsClientAndRestoreReconnectsSameSession() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
                RecordingClient client = RecordingClient.connect(proxy.connectString(), LONG_SESSION)) {
            long session = client.sessionId();

            proxy.cut();

            client.awaitState(KeeperState.Disconnected, 1);
            try (Socket probe = new Socket(proxy.target().getAddress(), proxy.port())) {
                probe.setSoTimeout(5_000);
                assertThat(probe.getInputStream().read()).as("new connection is closed").isEqualTo(-1);
            }

            proxy.restore();

            client.awaitState(KeeperState.SyncConnected, 2);
            assertThat(client.sessionId()).isEqualTo(session);
            assertThat(client.count(KeeperState.Expired)).isZero();
            assertThat(client.zk().exists("/", false)).isNotNull();
        }
    }

    @Test
    void blackhole_heldPastSessionTimeout_sessionExpiresOnRestore() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
                RecordingClient direct = RecordingClient.connect(cluster.connectString(), LONG_SESSION);
                RecordingClient client = RecordingClient.connect(proxy.connectString(), SHORT_SESSION)) {
            client.zk().create("/blackholed", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);

            proxy.blackhole();

            client.awaitState(KeeperState.Disconnected, 1);
            // The server drops the session's ephemeral node when it expires the session.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> direct.zk().exists("/blackholed", false) == null);
            assertThat(client.count(KeeperState.Expired)).as("client cannot know yet").isZero();

            proxy.restore();

            client.awaitState(KeeperState.Expired, 1);
        }
    }

    @Test
    void muteClient_theServerHearsNothing_butTheClientStillHearsWatchEvents() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
                RecordingClient direct = RecordingClient.connect(cluster.connectString(), LONG_SESSION);
                RecordingClient client = RecordingClient.connect(proxy.connectString(), LONG_SESSION)) {
            direct.zk().create("/muted", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
            List<String> events = new CopyOnWriteArrayList<>();
            client.zk().exists("/muted", event -> events.add(event.getType() + " " + event.getPath()));

            proxy.muteClient();
            AtomicInteger answers = new AtomicInteger();
            client.zk().create("/muted-client", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL,
                    (rc, path, ctx, name) -> answers.incrementAndGet(), null);
            await().atMost(Duration.ofSeconds(5)).until(() -> proxy.clientBytesDropped() > 0);
            long heardBefore = proxy.bytesToClients();
            direct.zk().delete("/muted", -1);

            await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("NodeDeleted /muted"));
            assertThat(proxy.bytesToClients()).isGreaterThan(heardBefore);
            assertThat(direct.zk().exists("/muted-client", false)).as("the muted client's create").isNull();
            assertThat(answers.get()).isZero();
            assertThat(client.count(KeeperState.Disconnected)).isZero();
            proxy.restore();
        }
    }

    @Test
    void blackhole_newConnectionIsAcceptedButGetsNoAnswer() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(cluster.address(0))) {
            proxy.blackhole();

            try (Socket socket = new Socket(proxy.target().getAddress(), proxy.port())) {
                socket.getOutputStream().write("ruok".getBytes(UTF_8));
                await().atMost(Duration.ofSeconds(5)).until(() -> proxy.connectionCount() == 1);
                socket.setSoTimeout(300);
                InputStream in = socket.getInputStream();
                assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
            }
            proxy.restore();
            try (Socket socket = new Socket(proxy.target().getAddress(), proxy.port())) {
                socket.getOutputStream().write("ruok".getBytes(UTF_8));
                socket.setSoTimeout(5_000);
                assertThat(new String(socket.getInputStream().readAllBytes(), UTF_8)).isEqualTo("imok");
            }
        }
    }

    @Test
    void delay_addsLatencyAndKeepsPipelinedRequestsIntact() throws Exception {
        try (FaultProxy proxy = FaultProxy.start(cluster.address(0));
                RecordingClient client = RecordingClient.connect(proxy.connectString(), LONG_SESSION)) {
            ZooKeeper zk = client.zk();
            zk.create("/delayed", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);

            proxy.delay(Duration.ofMillis(100));

            long start = System.nanoTime();
            zk.exists("/delayed", false);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("one round trip, delayed each way")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(200));

            // Many requests in flight at once: any lost or reordered byte would break the stream.
            int count = 100;
            List<String> created = new CopyOnWriteArrayList<>();
            AtomicInteger failures = new AtomicInteger();
            for (int i = 0; i < count; i++) {
                zk.create("/delayed/n-" + i, ("v" + i).getBytes(UTF_8), Ids.OPEN_ACL_UNSAFE,
                        CreateMode.PERSISTENT, (rc, path, ctx, name) -> {
                            if (rc == Code.OK.intValue()) {
                                created.add(name);
                            } else {
                                failures.incrementAndGet();
                            }
                        }, null);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> created.size() + failures.get() == count);
            assertThat(failures).hasValue(0);
            // Replies to one session arrive in request order.
            assertThat(created).containsExactlyElementsOf(
                    IntStream.range(0, count).mapToObj(i -> "/delayed/n-" + i).toList());

            proxy.delay(Duration.ZERO);

            assertThat(zk.getData("/delayed/n-42", false, null)).isEqualTo("v42".getBytes(UTF_8));
            assertThat(client.count(KeeperState.Disconnected)).isZero();
        }
    }

    @Test
    void close_endsEveryProxyThreadAndIsIdempotent() {
        FaultProxy proxy = FaultProxy.start(cluster.address(0));
        String prefix = FaultProxy.THREAD_NAME_PREFIX + proxy.port() + "-";
        try (RecordingClient client = RecordingClient.connect(proxy.connectString(), LONG_SESSION)) {
            proxy.delay(Duration.ofMillis(10));
            assertThat(threadsNamed(prefix)).isNotEmpty().allSatisfy(t -> assertThat(t.isDaemon()).isTrue());

            proxy.close();
            proxy.close();

            assertThat(threadsNamed(prefix)).isEmpty();
            assertThat(proxy.connectionCount()).isZero();
            assertThatThrownBy(proxy::cut).hasMessageContaining(String.valueOf(proxy.port()));
        }
    }

    @Test
    void group_cutAndRestore_applyToEveryServerOfEnsemble() throws Exception {
        try (TestCluster ensemble = TestCluster.builder().ensemble(3)
                        .property("maxSessionTimeout", "10000").start();
                FaultProxyGroup proxies = FaultProxyGroup.forCluster(ensemble);
                RecordingClient client = RecordingClient.connect(proxies.connectString(), LONG_SESSION)) {
            assertThat(proxies.proxies()).hasSize(3);
            for (int i = 0; i < 3; i++) {
                assertThat(proxies.proxy(i).target()).isEqualTo(ensemble.address(i));
            }
            long session = client.sessionId();

            proxies.cut();

            client.awaitState(KeeperState.Disconnected, 1);

            proxies.restore();

            client.awaitState(KeeperState.SyncConnected, 2);
            assertThat(client.sessionId()).isEqualTo(session);
            client.createOrKeep("/through-group", new byte[0]);
        }
    }

    private static List<Thread> threadsNamed(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix))
                .toList();
    }
}
