package dev.baton.testkit;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;

/** A raw ZooKeeper client that remembers every connection state it was told about. */
final class RecordingClient implements AutoCloseable {

    private final List<KeeperState> states = new CopyOnWriteArrayList<>();
    private final ZooKeeper zk;

    private RecordingClient(String connectString, Duration sessionTimeout) {
        try {
            zk = new ZooKeeper(connectString, (int) sessionTimeout.toMillis(), event -> {
                if (event.getType() == EventType.None) {
                    states.add(event.getState());
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Connects and waits until the session is established. */
    static RecordingClient connect(String connectString, Duration sessionTimeout) {
        RecordingClient client = new RecordingClient(connectString, sessionTimeout);
        try {
            client.awaitState(KeeperState.SyncConnected, 1);
        } catch (RuntimeException | Error e) {
            client.close();
            throw e;
        }
        return client;
    }

    ZooKeeper zk() {
        return zk;
    }

    long sessionId() {
        return zk.getSessionId();
    }

    /** Number of times the client was told it is in {@code state}. */
    long count(KeeperState state) {
        return states.stream().filter(state::equals).count();
    }

    /** Waits until the client has been told {@code times} times that it is in {@code state}. */
    void awaitState(KeeperState state, int times) {
        await("client state " + state + " x" + times + ", seen " + states)
                .atMost(Duration.ofSeconds(20))
                .until(() -> count(state) >= times);
    }

    /** Creates a node; a retry after a lost connection may find it already created. */
    void createOrKeep(String path, byte[] data) throws KeeperException, InterruptedException {
        try {
            zk.create(path, data, Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        } catch (KeeperException.NodeExistsException e) {
            // Created by an attempt whose answer was lost.
        }
    }

    @Override
    public void close() {
        try {
            zk.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
