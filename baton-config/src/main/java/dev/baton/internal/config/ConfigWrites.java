package dev.baton.internal.config;

import dev.baton.BatonException;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigEntry;
import dev.baton.config.ConfigKeyExistsException;
import dev.baton.config.ConfigKeyMissingException;
import java.util.Optional;

/**
 * The config center's writes: each call one request at a time ({@link ConfigRequests}) on the
 * version the local copy holds, with the outcome of a lost reply worked out by reading the node
 * again ({@link ConfigWrite}); and the errors they raise. See {@link dev.baton.config.ConfigCenter} for
 * the contract.
 *
 * <p>Why every write knows the version it writes on, even {@link #update}, which replaces any
 * value: ZooKeeper cannot tell a client a container from a persistent node, so the only way to
 * be sure a write lands on a key and not on a folder (or on a node deleted and created again
 * meanwhile) is to write on the version of a node seen to hold a value. The local copy supplies
 * that version, so it costs nothing unless the copy is behind (then one read).
 */
final class ConfigWrites {
  private final ConfigRequests requests;
  private final ConfigTree tree;

  ConfigWrites(ConfigRequests requests, ConfigTree tree) {
    this.requests = requests;
    this.tree = tree;
  }

  ConfigEntry create(String key, String value) {
    ConfigWrite write = new ConfigWrite(requests, key, value, "create");
    for (int round = 1; ; round++) {
      ConfigRequests.Reply reply = write.send(h -> requests.create(h, key, write.data, write.acl, write.what));
      switch (reply.code()) {
        case OK -> {
          return new ConfigEntry(key, value, reply.stat().getVersion());
        }
        case NODEEXISTS -> {
          if (write.replyLost) {
            throw write.outcomeUnknown("the key exists now, written by this call or another client");
          }
          throw exists(key);
        }
        case NONODE -> write.createFolders(round);
        default -> {
          write.failUnlessLost(reply.code());
          // Sent again only if certainly not applied: the key is still absent.
          Optional<ConfigTree.Node> now = write.readAfterLoss();
          if (now.isPresent()) {
            throw write.outcomeUnknown("the key exists now (version " + now.get().version()
                + "), created by this call or another client");
          }
        }
      }
    }
  }

  ConfigEntry update(String key, String value) {
    ConfigWrite write = new ConfigWrite(requests, key, value, "update");
    ConfigTree.Node known = tree.node(key);
    while (true) {
      if (known == null) {
        known = write.read().orElseThrow(() -> missing(key));
      }
      if (!known.isKey()) {
        throw missing(key);
      }
      int version = known.version();
      ConfigRequests.Reply reply = write.send(h -> requests.setData(h, key, write.data, version, write.what));
      switch (reply.code()) {
        case OK -> {
          return new ConfigEntry(key, value, reply.stat().getVersion());
        }
        case BADVERSION -> known = null;
        case NONODE -> throw missing(key);
        default -> {
          write.failUnlessLost(reply.code());
          known = write.readAfterLoss().orElseThrow(() -> missing(key));
          if (value.equals(known.value())) {
            return new ConfigEntry(key, value, known.version()); // applied, or the same value anyway
          }
        }
      }
    }
  }

  ConfigEntry set(String key, String value) {
    return set(key, value, "set");
  }

  /** {@link #set}, named {@code what} in its errors and its revision (a rollback is a set). */
  ConfigEntry set(String key, String value, String what) {
    ConfigWrite write = new ConfigWrite(requests, key, value, what);
    ConfigTree.Node known = tree.node(key);
    for (int round = 1; ; round++) {
      if (known != null && !known.isKey()) {
        throw exists(key);
      }
      ConfigTree.Node on = known;
      ConfigRequests.Reply reply = write.send(h -> on == null ? requests.create(h, key, write.data, write.acl, write.what)
          : requests.setData(h, key, write.data, on.version(), write.what));
      switch (reply.code()) {
        case OK -> {
          return new ConfigEntry(key, value, reply.stat().getVersion());
        }
        case NODEEXISTS, BADVERSION -> known = write.read().orElse(null);
        case NONODE -> {
          if (on == null) {
            write.createFolders(round);
          } else {
            known = null;
          }
        }
        default -> {
          write.failUnlessLost(reply.code());
          known = write.readAfterLoss().orElse(null);
          if (known != null && value.equals(known.value())) {
            return new ConfigEntry(key, value, known.version());
          }
        }
      }
    }
  }

  /**
   * Makes {@code value}, the candidate of {@code release}, the key's released value: one
   * transaction sets the key on the version it holds (with its revision) and applies {@code
   * removal}, the removal of the gray node at the version read. A removal that fails means the
   * release changed since it was read: refused, nothing written. After a lost reply, {@code
   * stillThere} reads whether the gray node is still at that version (then nothing was applied).
   *
   * @throws IllegalStateException from {@code noRelease} if the release was changed meanwhile, or
   *     the key is gone or is another node than the one the candidate was released beside
   */
  ConfigEntry promote(String key, String value, ConfigGray.Entry release, ConfigRequests.Guard removal,
      java.util.function.BooleanSupplier stillThere,
      java.util.function.Function<String, IllegalStateException> noRelease) {
    ConfigWrite write = new ConfigWrite(requests, key, value, "promote gray release");
    ConfigTree.Node known = tree.node(key);
    while (true) {
      if (known == null) {
        known = (write.replyLost ? write.readAfterLoss() : write.read()).orElse(null);
      }
      if (!release.belongsTo(known)) {
        throw noRelease.apply(" (its candidate was released beside a value of the key since deleted; abort it)");
      }
      int version = known.version();
      ConfigRequests.Reply reply = write.send(h -> requests.setData(h, key, write.data, version, write.what,
          removal));
      if (reply.failed() == ConfigRequests.Part.GUARD) {
        throw noRelease.apply(" as it was read: it was aborted, promoted or replaced by another grayRelease"
            + " meanwhile. Read gray(key) and decide again");
      }
      switch (reply.code()) {
        case OK -> {
          return new ConfigEntry(key, value, reply.stat().getVersion());
        }
        case BADVERSION, NONODE -> known = null;
        default -> {
          write.failUnlessLost(reply.code());
          boolean notApplied;
          try {
            notApplied = stillThere.getAsBoolean();
          } catch (dev.baton.ConnectionException e) {
            throw write.outcomeUnknown("the connection did not come back in time to read the gray release again", e);
          }
          if (!notApplied) {
            known = write.readAfterLoss().orElse(null);
            if (known != null && value.equals(known.value())) {
              return new ConfigEntry(key, value, known.version());
            }
            throw write.outcomeUnknown("the gray release has ended since, by this call or another client");
          }
          known = null; // the gray node is still at the version read: nothing was applied
        }
      }
    }
  }

  boolean compareAndSet(String key, int expectedVersion, String value) {
    checkVersion(expectedVersion);
    ConfigWrite write = new ConfigWrite(requests, key, value, "compare-and-set");
    long czxid = czxidAt(key, expectedVersion);
    while (true) {
      ConfigRequests.Reply reply = write.send(h -> requests.setData(h, key, write.data, expectedVersion, write.what));
      switch (reply.code()) {
        case OK -> {
          return true;
        }
        case BADVERSION, NONODE -> {
          return false;
        }
        default -> {
          write.failUnlessLost(reply.code());
          ConfigTree.Node now = write.readAfterLoss().orElseThrow(() -> write.outcomeUnknown(
              "the key is gone now, so this write may have been applied before it was deleted"));
          boolean sameNode = czxid == 0 || now.czxid() == czxid;
          if (sameNode && now.version() == expectedVersion) {
            continue; // certainly not applied: send again
          }
          if (czxid != 0 && sameNode && now.version() == expectedVersion + 1 && !value.equals(now.value())) {
            return false; // the one write since was another client's
          }
          throw write.outcomeUnknown("the node has moved on to version " + now.version()
              + " since version " + expectedVersion + ", maybe with this write among the changes");
        }
      }
    }
  }

  boolean delete(String key) {
    ConfigWrite write = new ConfigWrite(requests, key, null, "delete");
    ConfigTree.Node known = tree.node(key);
    while (true) {
      if (known == null) {
        Optional<ConfigTree.Node> read = write.replyLost ? write.readAfterLoss() : write.read();
        if (read.isEmpty()) {
          return write.replyLost; // gone: by a lost attempt of this call, or never there
        }
        known = read.get();
      }
      if (!known.isKey()) {
        return false; // a folder: no such key
      }
      int version = known.version();
      ConfigRequests.Reply reply = write.send(h -> requests.delete(h, key, version, write.what));
      switch (reply.code()) {
        case OK -> {
          return true;
        }
        case BADVERSION -> known = null;
        case NONODE -> {
          return write.replyLost;
        }
        case NOTEMPTY -> throw hasNestedKeys(key);
        default -> {
          write.failUnlessLost(reply.code());
          known = null;
        }
      }
    }
  }

  boolean deleteIfVersion(String key, int expectedVersion) {
    checkVersion(expectedVersion);
    ConfigWrite write = new ConfigWrite(requests, key, null, "delete");
    long czxid = czxidAt(key, expectedVersion);
    while (true) {
      ConfigRequests.Reply reply = write.send(h -> requests.delete(h, key, expectedVersion, write.what));
      switch (reply.code()) {
        case OK -> {
          return true;
        }
        case BADVERSION, NONODE -> {
          return false;
        }
        case NOTEMPTY -> throw hasNestedKeys(key);
        default -> {
          write.failUnlessLost(reply.code());
          ConfigTree.Node now = write.readAfterLoss().orElseThrow(() -> write.outcomeUnknown(
              "the key is gone now, deleted by this call or another client"));
          boolean sameNode = czxid == 0 || now.czxid() == czxid;
          if (sameNode && now.version() == expectedVersion) {
            continue; // still there at that version: certainly not applied
          }
          if (czxid != 0 && sameNode) {
            return false; // still there: not applied, and the version has moved on
          }
          throw write.outcomeUnknown("a node is there again (version " + now.version() + "), maybe"
              + " created after this call deleted the one it was for");
        }
      }
    }
  }

  /** The czxid of the node at {@code version} in the local copy; 0 if it is not known. */
  private long czxidAt(String key, int version) {
    ConfigTree.Node node = tree.node(key);
    return node != null && node.version() == version ? node.czxid() : 0;
  }

  private static void checkVersion(int expectedVersion) {
    if (expectedVersion < 0) {
      throw new IllegalArgumentException("expectedVersion must not be negative (ZooKeeper's -1 would mean"
          + " any version), was " + expectedVersion + "; take it from ConfigCenter.entry(key)");
    }
  }

  private String clientPath(String key) {
    return requests.clientPath(key);
  }

  private ConfigKeyExistsException exists(String key) {
    ConfigTree.Node node = tree.node(key);
    String path = clientPath(key);
    if (node != null && !node.isKey()) {
      return new ConfigKeyExistsException(key, path, "config key '" + key + "' cannot be created: " + path
          + " is a folder of nested keys (a node without data), not a key; choose another name");
    }
    return new ConfigKeyExistsException(key, path, "config key '" + key + "' already exists at " + path
        + (node == null ? "" : " (version " + node.version() + ")") + "; use update or set to change it");
  }

  private ConfigKeyMissingException missing(String key) {
    ConfigTree.Node node = tree.node(key);
    String path = clientPath(key);
    return new ConfigKeyMissingException(key, path, "config key '" + key + "' does not exist at " + path
        + (node != null && !node.isKey() ? " (only a folder of nested keys is there)" : "")
        + "; nothing was written. Use create or set to make it");
  }

  private BatonException hasNestedKeys(String key) {
    return new BatonException("config key '" + key + "' at " + clientPath(key) + " has nested keys below it;"
        + " delete those first. Nothing was deleted");
  }
}
