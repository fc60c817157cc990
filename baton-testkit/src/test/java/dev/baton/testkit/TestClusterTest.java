package dev.baton.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestClusterTest {

    private static final Duration SESSION = Duration.ofSeconds(2);

    @Test
    void standalone_servesRawZooKeeperClient() throws Exception {
        try (TestCluster cluster = TestCluster.standalone();
                RecordingClient client = RecordingClient.connect(cluster.connectString(), SESSION)) {
            client.zk().create("/hello", "world".getBytes(UTF_8), Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT);

            assertThat(new String(client.zk().getData("/hello", false, null), UTF_8))
                    .isEqualTo("world");
            assertThat(cluster.size()).isEqualTo(1);
            assertThat(cluster.isEnsemble()).isFalse();
            assertThat(cluster.leader()).isZero();
            assertThat(cluster.mode(0)).hasValue("standalone");
            assertThat(cluster.connectString()).isEqualTo(cluster.connectString(0))
                    .startsWith("127.0.0.1:");
        }
    }

    @Test
    void emptyContainersCheckedEvery_removesAnEmptiedContainerAndLeavesTheJvmSettingAsItWas()
            throws Exception {
        String property = "znode.container.checkIntervalMs";
        assertThat(System.getProperty(property)).isNull();
        try (TestCluster cluster = TestCluster.builder().standalone()
                        .emptyContainersCheckedEvery(Duration.ofMillis(100)).start();
                RecordingClient client = RecordingClient.connect(cluster.connectString(), SESSION)) {
            assertThat(System.getProperty(property)).isNull();
            client.zk().create("/box", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.CONTAINER);
            client.zk().create("/box/item", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            client.zk().delete("/box/item", -1);

            // With ZooKeeper's default the container would stay for about a minute.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> client.zk().exists("/box", false) == null);
        }
    }

    @Test
    void ensemble_startsWithEveryServerServingAndOneLeader() {
        try (TestCluster cluster = TestCluster.ensemble(3)) {
            assertThat(cluster.connectString().split(",")).hasSize(3)
                    .allSatisfy(hostPort -> assertThat(hostPort).startsWith("127.0.0.1:"));
            assertThat(cluster.connectString().split(",")).doesNotHaveDuplicates();
            assertThat(cluster.address(1).getPort())
                    .isEqualTo(Integer.parseInt(cluster.connectString(1).split(":")[1]));

            int leader = cluster.leader();
            for (int i = 0; i < 3; i++) {
                assertThat(cluster.isServing(i)).as("server %d serving", i).isTrue();
                assertThat(cluster.mode(i)).hasValue(i == leader ? "leader" : "follower");
            }
        }
    }

    @Test
    void stopLeader_ensembleElectsNewLeaderAndServesWrites() throws Exception {
        try (TestCluster cluster = TestCluster.ensemble(3)) {
            try (RecordingClient before = RecordingClient.connect(cluster.connectString(), SESSION)) {
                before.createOrKeep("/before", new byte[0]);
            }

            int oldLeader = cluster.stopLeader();

            assertThat(cluster.isRunning(oldLeader)).isFalse();
            int newLeader = cluster.leader();
            assertThat(newLeader).isNotEqualTo(oldLeader);
            cluster.awaitServing();
            // A fresh session: the new leader gives old sessions one session timeout (2 s) to come
            // back, and a client still backing off between servers can miss it. Its session then
            // stays expired, which says nothing about whether the ensemble serves. The fresh one
            // is long for the same reason: a follower still syncing may drop it once.
            try (RecordingClient after =
                    RecordingClient.connect(cluster.connectString(), Duration.ofSeconds(30))) {
                // Retried because the server it reached may still be syncing with the new leader.
                await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
                    after.createOrKeep("/after", "ok".getBytes(UTF_8));
                    assertThat(after.zk().getData("/after", false, null))
                            .isEqualTo("ok".getBytes(UTF_8));
                });
                assertThat(after.zk().exists("/before", false)).isNotNull();
            }
        }
    }

    @Test
    void stopAndStartFollower_followerRejoinsWithWritesMadeWhileItWasDown() throws Exception {
        try (TestCluster cluster = TestCluster.ensemble(3)) {
            int leader = cluster.leader();
            int follower = (leader + 1) % 3;

            cluster.stop(follower);
            assertThat(cluster.isRunning(follower)).isFalse();
            assertThat(cluster.isServing(follower)).isFalse();
            cluster.stop(follower); // stopping twice is harmless
            try (RecordingClient client =
                    RecordingClient.connect(cluster.connectString(leader), SESSION)) {
                client.createOrKeep("/while-down", "x".getBytes(UTF_8));
            }

            cluster.start(follower);
            cluster.awaitServing(follower);

            assertThat(cluster.isRunning(follower)).isTrue();
            assertThat(cluster.mode(follower)).hasValue("follower");
            try (RecordingClient client =
                    RecordingClient.connect(cluster.connectString(follower), SESSION)) {
                assertThat(client.zk().getData("/while-down", false, null))
                        .isEqualTo("x".getBytes(UTF_8));
            }
        }
    }

    @Test
    void awaitServing_withOneOfThreeStopped_returnsOnceQuorumServes() {
        try (TestCluster cluster = TestCluster.ensemble(3)) {
            cluster.stopLeader();

            cluster.awaitServing();

            long serving = IntStream.range(0, 3).filter(cluster::isServing).count();
            assertThat(serving).isEqualTo(2);
        }
    }

    @Test
    void metrics_reportZnodeCountThatGrowsWithCreates() throws Exception {
        try (TestCluster cluster = TestCluster.standalone();
                RecordingClient client = RecordingClient.connect(cluster.connectString(), SESSION)) {
            Map<String, String> before = cluster.metrics(0);
            assertThat(before).containsKeys("zk_znode_count", "zk_ephemerals_count",
                    "zk_watch_count", "zk_num_alive_connections", "zk_packets_received");
            assertThat(before).containsEntry("zk_server_state", "standalone");

            client.zk().create("/counted", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);

            Map<String, String> after = cluster.metrics(0);
            assertThat(Long.parseLong(after.get("zk_znode_count")))
                    .isEqualTo(Long.parseLong(before.get("zk_znode_count")) + 1);
            assertThat(after).containsEntry("zk_ephemerals_count", "1");
        }
    }

    @Test
    void packetsReceived_growsByTheRequestsAClientSends() throws Exception {
        try (TestCluster cluster = TestCluster.standalone();
                RecordingClient client = RecordingClient.connect(cluster.connectString(),
                        Duration.ofSeconds(30))) {
            long readingCost = cluster.packetReadingCost(0);
            long before = cluster.packetsReceived(0);
            for (int i = 0; i < 7; i++) {
                client.zk().exists("/counted", false);
            }
            // The reading's own four-letter word is counted, whatever pings fell between pairs.
            assertThat(readingCost).isEqualTo(1);
            assertThat(cluster.packetsReceived(0) - before - readingCost).isEqualTo(7);
        }
    }

    @Test
    void watchesBySession_listsPathsWatchedByEachSession() throws Exception {
        try (TestCluster cluster = TestCluster.standalone();
                RecordingClient client = RecordingClient.connect(cluster.connectString(), SESSION)) {
            assertThat(cluster.watchesBySession(0)).isEmpty();

            client.zk().exists("/watched", true);
            client.zk().create("/data", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            client.zk().getData("/data", true, null);

            assertThat(cluster.watchesBySession(0))
                    .containsOnlyKeys(client.sessionId())
                    .containsEntry(client.sessionId(), Set.of("/watched", "/data"));
            assertThat(cluster.metrics(0)).containsEntry("zk_watch_count", "2");
        }
    }

    @Test
    void metrics_ofStoppedServer_throwsNamingServerAndPort() {
        try (TestCluster cluster = TestCluster.ensemble(3)) {
            cluster.stop(2);

            assertThatThrownBy(() -> cluster.metrics(2))
                    .hasMessageContaining("server 2")
                    .hasMessageContaining(cluster.connectString(2));
        }
    }

    @Test
    void close_stopsServersDeletesDataAndIsIdempotent() {
        TestCluster cluster = TestCluster.standalone();
        assertThat(cluster.directory()).isDirectory();

        cluster.close();
        cluster.close();

        assertThat(cluster.directory()).doesNotExist();
        assertThat(cluster.isRunning(0)).isFalse();
        assertThatThrownBy(() -> new Socket().connect(cluster.address(0), 2_000))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> cluster.start(0)).hasMessageContaining("closed");
    }

    @Test
    void builder_tickTimeSetsSessionBounds() {
        try (TestCluster cluster = TestCluster.builder()
                .tickTime(Duration.ofMillis(50))
                .property("maxSessionTimeout", "3000")
                .start()) {
            assertThat(cluster.tickTime()).isEqualTo(Duration.ofMillis(50));
            String conf = cluster.fourLetterWord(0, "conf");
            assertThat(conf).contains("tickTime=50", "minSessionTimeout=100", "maxSessionTimeout=3000");
        }
    }

    @Test
    void secureClientPort_servesTlsBesideThePlainPort_andCloseRestoresSystemProperties(@TempDir Path folder)
            throws Exception {
        TestCertificates.Identity server = TestCertificates.selfSigned(folder, "server", "secret");
        Path trust = TestCertificates.trustStore(folder.resolve("trust.p12"), "secret", server);
        String factoryBefore = System.getProperty("zookeeper.serverCnxnFactory");
        try (TestCluster cluster = TestCluster.builder()
                .secureClientPort(server.keyStore(), "secret", trust, "secret")
                .property("ssl.clientAuth", "none")
                .start()) {
            assertThat(cluster.secureConnectString()).startsWith("127.0.0.1:")
                    .isNotEqualTo(cluster.connectString());
            assertThat(System.getProperty("zookeeper.ssl.clientAuth")).isEqualTo("none");

            ZKClientConfig config = new ZKClientConfig();
            config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
            config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET,
                    "org.apache.zookeeper.ClientCnxnSocketNetty");
            config.setProperty("zookeeper.ssl.trustStore.location", trust.toString());
            config.setProperty("zookeeper.ssl.trustStore.password", "secret");
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper zk = new ZooKeeper(cluster.secureConnectString(), 5_000, event -> {
                if (event.getState() == KeeperState.SyncConnected) {
                    connected.countDown();
                }
            }, config);
            try {
                assertThat(connected.await(20, TimeUnit.SECONDS)).as("connected over TLS").isTrue();
                zk.create("/tls", "ok".getBytes(UTF_8), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            } finally {
                zk.close();
            }
            try (RecordingClient plain = RecordingClient.connect(cluster.connectString(), SESSION)) {
                assertThat(plain.zk().getData("/tls", false, null)).isEqualTo("ok".getBytes(UTF_8));
            }
        }
        assertThat(System.getProperty("zookeeper.serverCnxnFactory")).isEqualTo(factoryBefore);
        assertThat(System.getProperty("zookeeper.ssl.keyStore.location")).isNull();
        assertThat(System.getProperty("zookeeper.ssl.clientAuth")).isNull();
        try (TestCluster plainOnly = TestCluster.standalone()) {
            assertThatThrownBy(plainOnly::secureConnectString).hasMessageContaining("secureClientPort");
        }
    }
}
