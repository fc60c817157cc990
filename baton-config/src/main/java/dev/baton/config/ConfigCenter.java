package dev.baton.config;

import dev.baton.AclProvider;
import dev.baton.Baton;
import dev.baton.BatonException;
import dev.baton.BatonInterruptedException;
import dev.baton.ConnectionException;
import dev.baton.FailureListener;
import dev.baton.NotAuthorizedException;
import dev.baton.OutcomeUnknownException;
import dev.baton.RetryPolicy;
import dev.baton.internal.config.ZkConfigCenter;
import dev.baton.internal.session.RecipePaths;
import dev.baton.internal.session.Session;
import dev.baton.internal.session.Sessions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * Small values that change at run time and must be the same on every machine, kept under one
 * prefix ({@code /config}): reads come from a local copy that a watch keeps current, writes go to
 * the ensemble and check what they replace. Thread-safe. Made by {@link #open(Baton, String)}.
 *
 * <pre>{@code
 * ConfigCenter config = ConfigCenter.open(baton, "/config",
 *     ConfigOptions.defaults().withSnapshotFile(Path.of("/var/lib/shop/config.json")));
 * String url = config.get("db/url", "jdbc:h2:mem:test");     // local: no request
 * int poolSize = config.getInt("db/pool-size", 10);
 * config.addListener((key, oldValue, newValue) -> reconfigure(key, newValue), executor);
 * config.set("db/pool-size", "20");                          // seen by every copy within ms
 * }</pre>
 *
 * <h2>Keys and nodes</h2>
 * A key is a path relative to the prefix, and may be nested: {@code db/url} is the node {@code
 * /config/db/url} (below the client's namespace, if any). Its value is the node's data, as UTF-8
 * text. Nodes with no data at all ({@code null}, as ZooKeeper tells it apart from empty data) are
 * folders, not keys: Baton creates the folders of nested keys ({@code /config/db}) that way, as
 * container nodes the ensemble removes once their last key is gone, and so does {@code zkCli
 * create /config/db}. Nodes that other tools create with empty data (Curator's {@code
 * creatingParentsIfNeeded} does) are keys whose value is {@code ""}. A key may have nested keys
 * of its own ({@code db} = {@code "primary"} beside {@code db/url}).
 *
 * <h2>The local copy</h2>
 * The config center watches the whole prefix with one persistent recursive watch (ZooKeeper
 * 3.6+) and loads it once; after that each change costs every other client's copy one read of
 * the changed node (the writer's own copy learns the value from the write's reply, for free).
 * Reads ({@link #get}, the typed getters, {@link #entry}, {@link #snapshot}) never send a request
 * and never block. ZooKeeper does not replay the changes made while a client is disconnected, so
 * after every reconnection (and on the new session after an expiry) the copy loads the prefix
 * again, and listeners hear only of keys whose value really differs. While the connection is
 * down the copy keeps the last values it saw ({@link #isSynced()} tells). A write of this client
 * is in its own copy when the write returns (read-your-writes): the write's reply, which ZooKeeper
 * delivers in order with the watch's events, updates the copy before the write returns; other
 * clients' copies follow within a round trip of the change.
 *
 * <h2>Writes</h2>
 * Each write is one request in the usual case and says what it found: {@link #create} fails if
 * the key exists, {@link #update} if it does not, {@link #compareAndSet} and {@link
 * #deleteIfVersion} only write if the node is still at the version the caller read. {@link
 * #update} and {@link #set} replace whatever value is there, but still write on the version they
 * saw (retrying on a conflict), so they never write into a folder or a node that was deleted and
 * created again meanwhile. New keys get their node's ACL, and their folders' (container nodes
 * with no data), from the client's {@link AclProvider}. With {@link
 * AclProvider#creatorAllOthersRead()} only the writer's identity can change or delete the key,
 * and only it can create keys in the folders it made; everyone reads. The first key written under
 * a prefix that does not exist also creates the prefix, with the same ACL, so that identity is
 * then the only one that can add keys anywhere under it. As the prefix and the folders are
 * containers, the ensemble removes them once empty and the next writer makes them again with
 * its own ACL; for a rule that lasts, create the prefix ahead of time as a persistent node with
 * the ACL you want (who may create below it decides who may add keys).
 *
 * <h2>Connection loss and timeouts</h2>
 * Reads never block, never fail for lack of a connection, and serve the last values seen. Writes
 * have no timeout of their own: while the connection is down a write waits, as the client's
 * {@link RetryPolicy} allows, before it is sent, then fails with {@link ConnectionException}
 * (nothing was sent). A write whose reply is lost is never sent again blindly: once the
 * connection is back the key is read, and the write is sent again only if it certainly was not
 * applied (for {@link #create}: the key is still absent; for the versioned writes: the node is
 * still at the version written on); {@link #update}, {@link #set} and {@link #delete}, which
 * replace whatever is there, may simply be applied again. Where that cannot be decided, the
 * write fails with {@link OutcomeUnknownException}: it was applied at most once. A session
 * expiry is handled the same way, on the client's new session. A refusal by the node's ACL fails
 * at once with {@link NotAuthorizedException} naming the key's path.
 */
public interface ConfigCenter extends AutoCloseable {

  /**
   * A config center on {@code prefix}, on the session of {@code baton}: a local copy of the keys
   * under it that a watch keeps current, for reads without requests, and checked writes. If the
   * client is connected, returns once the keys are loaded (waiting at most the client's connection
   * timeout); if not (a client built with {@code connectInBackground()}), returns at once and loads
   * them when the client connects. Close it when done, to remove its watch (closing the client
   * ends the watch with the session as well).
   *
   * @throws IllegalArgumentException naming the argument if the prefix is invalid or the root
   * @throws dev.baton.ClientClosedException if {@code baton} was closed
   */
  static ConfigCenter open(Baton baton, String prefix) {
    return open(baton, prefix, ConfigOptions.defaults());
  }

  /**
   * A config center on {@code prefix} with {@code options}: with a {@linkplain
   * ConfigOptions#withSnapshotFile snapshot file} it serves the file's values at once, before
   * (or without) reaching the ensemble. Otherwise as {@link #open(Baton, String)}.
   *
   * @throws NotAuthorizedException naming the prefix if its ACL refuses this identity reading or
   *     watching it (the first load fails); nothing is left open
   * @throws ConfigSnapshotException naming the file if it exists but cannot be read or is not a
   *     snapshot of this prefix
   */
  static ConfigCenter open(Baton baton, String prefix, ConfigOptions options) {
    Session session = Sessions.of(baton);
    return ZkConfigCenter.open(session, RecipePaths.check(session.settings(), prefix, "config prefix"),
        java.util.Objects.requireNonNull(options, "options must not be null"));
  }

  /** The prefix the keys live under, as given. */
  String prefix();

  // ---- reads: local, never blocking ------------------------------------------------------------

  /**
   * The value of {@code key} in the local copy; empty if there is no such key. No request: never
   * blocks, and while the connection is down answers with the last value seen.
   *
   * @throws IllegalArgumentException naming the key if it is not a valid relative path
   */
  Optional<String> get(String key);

  /**
   * The value of {@code key} in the local copy, or {@code defaultValue} if there is none. No
   * request: never blocks, whatever the connection.
   */
  String get(String key, String defaultValue);

  /**
   * The value of {@code key} as an {@code int} (decimal, surrounding spaces allowed), or {@code
   * defaultValue} if there is no such key. From the local copy: no request, never blocks.
   *
   * @throws ConfigValueException naming the key, the value and the type if it is not an {@code int}
   */
  int getInt(String key, int defaultValue);

  /**
   * The value of {@code key} as a {@code long}, or {@code defaultValue} if there is no such key.
   * From the local copy: no request, never blocks.
   *
   * @throws ConfigValueException naming the key, the value and the type if it is not a {@code long}
   */
  long getLong(String key, long defaultValue);

  /**
   * The value of {@code key} as a {@code boolean} ({@code true} or {@code false}, in any case),
   * or {@code defaultValue} if there is no such key. From the local copy: no request, never blocks.
   *
   * @throws ConfigValueException naming the key, the value and the type for anything else
   */
  boolean getBoolean(String key, boolean defaultValue);

  /**
   * The value of {@code key} as a {@link Duration}, or {@code defaultValue} if there is no such
   * key. Either ISO-8601 ({@code PT5S}, {@code PT0.25S}) or a number and a unit: {@code ns},
   * {@code us}, {@code ms}, {@code s}, {@code m} or {@code min}, {@code h}, {@code d} ({@code
   * 5s}, {@code 250ms}, {@code 1.5 h}). From the local copy: no request, never blocks.
   *
   * @throws ConfigValueException naming the key, the value and the type if it is neither
   */
  Duration getDuration(String key, Duration defaultValue);

  /**
   * The value of {@code key} as a list: comma-separated items, each stripped of blanks ({@code
   * "a, b,c"} is {@code [a, b, c]}); empty items are dropped, so {@code ""} is the empty list. A
   * JSON array of scalars, as an import writes a list ({@code ["a","b, c"]}), gives its items.
   * {@code defaultValue} if there is no such key. From the local copy: no request.
   */
  java.util.List<String> getList(String key, java.util.List<String> defaultValue);

  /**
   * The value of {@code key} as a map: comma-separated {@code name=value} pairs, stripped ({@code
   * "eu=3, us=1"}), in the order written. {@code defaultValue} if there is no such key. From the
   * local copy: no request.
   *
   * @throws ConfigValueException naming the key if an item has no {@code =} or its name is empty
   */
  Map<String, String> getMap(String key, Map<String, String> defaultValue);

  /**
   * The keys at and below {@code keyPrefix} ({@code "db"}: {@code db}, {@code db/url}, {@code
   * db/pool/size}, not {@code db2}) and their values, as {@link #snapshot()} shows them. From the
   * local copy: no request.
   *
   * @throws IllegalArgumentException naming the key prefix if it is not a valid key
   */
  Map<String, String> snapshot(String keyPrefix);

  /**
   * The released value of {@code key} with its node's version, from the local copy: no request,
   * never blocks. After a disconnection the version may be behind; a versioned write then fails
   * harmlessly. On an instance that sees a gray candidate for the key, this is still the released
   * value (the one the version belongs to), not what {@link #get} shows, so that a
   * read-modify-write with {@link #compareAndSet} builds on the value it replaces.
   */
  Optional<ConfigEntry> entry(String key);

  /**
   * Every key and its value in the local copy, sorted by key; an immutable copy. No request,
   * never blocks.
   */
  Map<String, String> snapshot();

  // ---- writes ----------------------------------------------------------------------------------

  /**
   * Creates {@code key} with {@code value}, and the folders of a nested key as needed. Waits for
   * the connection as the retry policy allows; a create whose reply was lost is sent again only
   * if the key is still absent.
   *
   * @return the new entry (version 0)
   * @throws ConfigKeyExistsException naming the key and its path if it exists (nothing written)
   * @throws OutcomeUnknownException if the reply was lost and the key now exists: it may be this
   *     write's or another client's
   * @throws IllegalArgumentException naming the key if it is invalid, or the size if the value
   *     does not fit in a node (ZooKeeper's {@code jute.maxbuffer}, 1 MB by default); nothing
   *     is sent
   */
  ConfigEntry create(String key, String value);

  /**
   * Replaces the value of the existing {@code key}, whatever it is; retried on a version conflict
   * and on connection loss (a repeat is harmless, though it overwrites a write another client
   * made in between).
   *
   * @return the entry as written
   * @throws ConfigKeyMissingException naming the key and its path if there is no such key
   *     (nothing written)
   * @throws ConnectionException if the retry policy gave up before the update was sent
   * @throws OutcomeUnknownException if it gave up after a reply was lost, before the key could
   *     be read again
   */
  ConfigEntry update(String key, String value);

  /**
   * Creates {@code key} or replaces its value, whichever is needed; retried as {@link #update}.
   *
   * @return the entry as written
   * @throws ConfigKeyExistsException if the name is taken by a folder of nested keys
   * @throws ConnectionException if the retry policy gave up before the write was sent
   * @throws OutcomeUnknownException if it gave up after a reply was lost, before the key could
   *     be read again
   */
  ConfigEntry set(String key, String value);

  /**
   * Replaces the value of {@code key} only if its node is still at {@code expectedVersion} (from
   * {@link #entry}): optimistic concurrency, so two clients cannot both win. Waits for the
   * connection as the retry policy allows; after a lost reply it is sent again only if the node
   * is still at {@code expectedVersion}.
   *
   * @return whether the value was written; false if the version differs or the key is gone
   * @throws OutcomeUnknownException if the reply was lost and the node has moved on since, so
   *     that this write may or may not be among the changes
   * @throws IllegalArgumentException if {@code expectedVersion} is negative
   */
  boolean compareAndSet(String key, int expectedVersion, String value);

  /**
   * Deletes {@code key}, whatever its value (on the version its copy holds, so never a folder or
   * a node created again meanwhile); retried on a version conflict and on connection loss.
   *
   * @return true if the key is gone thanks to this call (after a lost reply: gone, by this call or
   *     another); false if there was no such key
   * @throws BatonException naming the key if it has nested keys (delete those first)
   */
  boolean delete(String key);

  /**
   * Deletes {@code key} only if its node is still at {@code expectedVersion}. Waits for the
   * connection as the retry policy allows; after a lost reply it is sent again only if the node
   * is still there at that version.
   *
   * @return whether it was deleted; false if the version differs or there is no such key
   * @throws OutcomeUnknownException if the reply was lost and the key is gone since: this call or
   *     another may have deleted it
   * @throws IllegalArgumentException if {@code expectedVersion} is negative
   */
  boolean deleteIfVersion(String key, int expectedVersion);

  /**
   * The keys under {@code keyPrefix} as a record of {@code type}, kept current (see {@link
   * ConfigBinding}). Each component reads the key {@code <keyPrefix>/<name>}, or, if absent, the
   * key of its name in kebab case ({@code poolSize}: {@code pool-size}). Component types: {@code
   * String}, {@code int}, {@code long}, {@code boolean}, {@code double} (and their boxes), {@link
   * Duration}, {@code List<String>} and {@code Map<String, String>} (as {@link #getList} and
   * {@link #getMap} read them), and {@code Optional} of a scalar for a key that may be absent.
   *
   * <pre>{@code
   * record Db(String url, int poolSize, Duration timeout, Optional<String> user) {}
   * ConfigBinding<Db> db = config.bind("db", Db.class);  // db/url, db/pool-size, db/timeout, db/user
   * pool.resize(db.get().poolSize());
   * }</pre>
   *
   * @throws IllegalArgumentException naming the component if its type is not supported, or the
   *     key prefix if it is invalid
   * @throws IllegalStateException naming the key if a required key is absent
   * @throws ConfigValueException naming the key if a value does not parse
   */
  <T extends Record> ConfigBinding<T> bind(String keyPrefix, Class<T> type);

  // ---- import and export ----------------------------------------------------------------------

  /**
   * The keys at and below {@code keyPrefix} ({@code ""}: every key) and their values, from the
   * local copy (as {@link #snapshot(String)}: no request), as text in {@code format}, laid out by
   * the rule {@link ConfigFormat} documents (YAML and JSON nested one map per {@code /}, lists as
   * lists), so that {@link #importFrom(String, ConfigFormat)} of it gives the same keys and values.
   *
   * @throws IllegalArgumentException naming the key prefix if it is not a valid key
   */
  String export(String keyPrefix, ConfigFormat format);

  /**
   * Writes the keys and values of {@code text} (as {@link #export} writes them, laid out by the
   * rule {@link ConfigFormat} documents, the same for every format): every key and
   * value is checked before anything is sent, then the keys whose value differs are written in as
   * few transactions as fit ZooKeeper's packet limit, each key on the version the local copy holds
   * (with history, each with its revision, operation {@code import}). Keys absent from the text
   * are left alone. A key may have keys nested below it ({@code db} beside {@code db/url}): keys
   * are written parent first, so an export imports back. The import is in this config center's
   * copy when it returns (read-your-writes); if the copy is being reloaded (after a
   * reconnection), the import first waits for it, at most the client's connection timeout.
   *
   * <p>Connection loss: a transaction waits for the connection as the retry policy allows, then
   * fails with {@link ConnectionException} naming the batch not sent; one whose reply is lost
   * fails with {@link OutcomeUnknownException} naming that batch and saying that the batches
   * before it were applied and the later ones not sent (import again: the keys already written
   * are then unchanged and skipped).
   *
   * @return how many keys were written
   * @throws IllegalArgumentException naming the first bad key or value, or saying where the text
   *     is malformed; nothing written
   * @throws BatonException naming the batch that failed and the key (a key written meanwhile by
   *     someone else): the batches before it were applied
   */
  int importFrom(String text, ConfigFormat format);

  /**
   * As {@link #importFrom(String, ConfigFormat)}, with {@code options}: with {@link
   * ImportOptions#withPrune()} the keys the text leaves out are deleted too (each with its
   * revision, operation {@code import}), in the same batched transactions as the writes, after
   * them and the deepest first. A prune of a text with no key is refused unless {@link
   * ImportOptions#withAllowEmpty()}; a key cannot be pruned while the text keeps a key below it
   * (ZooKeeper cannot delete a node with children), which is refused before anything is sent.
   *
   * @return what was written: the keys added, changed and removed
   * @throws IllegalArgumentException as {@link #importFrom(String, ConfigFormat)}, or naming the
   *     key that cannot be pruned, or for a prune of an empty text; nothing written
   * @throws BatonException as {@link #importFrom(String, ConfigFormat)}
   */
  ImportPlan importFrom(String text, ConfigFormat format, ImportOptions options);

  /**
   * What {@link #importFrom(String, ConfigFormat, ImportOptions)} would write now, against the
   * local copy: the keys it would add, change and (with a prune) remove, each with its old and
   * new value. Sends nothing (a dry run); if the copy is being reloaded, waits for it first as an
   * import does. Refuses what the import would refuse.
   *
   * @throws IllegalArgumentException as the import would; nothing is written either way
   */
  ImportPlan planImport(String text, ConfigFormat format, ImportOptions options);

  // ---- history (with ConfigOptions.withHistory) ------------------------------------------------

  /**
   * The revisions of {@code key} its history keeps, newest first: the writes made through config
   * centers opened {@link ConfigOptions#withHistory(int) with history}, each recorded in the same
   * transaction as the write (so a write is never without its revision, and the order is the
   * order the ensemble applied them). A deleted key keeps its history. Read from the ensemble,
   * not the local copy: waits for the connection and retries reads as the client's retry policy
   * allows, then fails with {@link ConnectionException}.
   *
   * @return empty if the key has no history (never written through a config center with history)
   * @throws IllegalStateException if this config center was opened without history
   * @throws IllegalArgumentException naming the key if it is invalid
   */
  java.util.List<ConfigRevision> history(String key);

  /**
   * Writes back the value {@code key} had at {@code toVersion}, as found in its history (the value
   * a revision wrote at that version, or the one a revision replaced). A write like {@link #set}:
   * it creates the key again if it was deleted, and is recorded in the history as {@code rollback
   * to version N}. Connection loss and timeouts as for {@link #set}.
   *
   * @return the key's new entry
   * @throws IllegalArgumentException naming the key and the versions kept if the history does not
   *     hold {@code toVersion} (nothing written), or if {@code toVersion} is negative or the key
   *     invalid
   * @throws IllegalStateException if this config center was opened without history
   */
  ConfigEntry rollback(String key, int toVersion);

  // ---- gray releases (with ConfigOptions.withInstance) -----------------------------------------

  /**
   * Publishes {@code candidate} for {@code key} to the instances {@code rule} matches first: they
   * see it through the same {@link #get} (and their listeners hear the change), the others keep
   * the released value, as do plain readers of the key's node and older clients (the candidate
   * lives in {@code <prefix>.gray}, not in the key's node). Replaces a gray release of the key in
   * progress. Returns once the ensemble has it; this instance's own copy has it then too. Waits for
   * the connection and retries as the retry policy allows (writing the same candidate again does
   * no harm), then fails with {@link ConnectionException}.
   *
   * <p>The rule must reach at least one live instance ({@link #grayInstances()}), this one
   * included if it announces itself: the instances are read from the ensemble first (one listing
   * and a read per instance).
   *
   * @throws ConfigKeyMissingException if the key has no released value (nothing written)
   * @throws IllegalStateException if this config center does not take part in gray releases
   * @throws IllegalArgumentException naming the key if it is invalid, or the value too big, and
   *     naming the key and the rule if the rule matches no live instance (nothing written)
   */
  void grayRelease(String key, String candidate, GrayRule rule);

  /**
   * The key's gray release in progress, as this instance's copy knows it; no request. A candidate
   * belongs to the key's node it was released beside: once the key is deleted, no instance sees
   * it any more, and a key created again under the same name starts without one.
   */
  Optional<GrayRelease> gray(String key);

  /**
   * The live config center instances of this prefix that take part in gray releases, as they
   * announced themselves ({@link ConfigOptions#withInstance}), one per id, sorted by id. Read from
   * the ensemble (one listing, then one read per instance, pipelined); an instance is listed from
   * its opening until it is closed or its session ends. Retried on connection loss as the retry
   * policy allows, then {@link ConnectionException}.
   *
   * @throws IllegalStateException if this config center does not take part in gray releases
   */
  List<ConfigInstance> grayInstances();

  /**
   * The live instances that the key's gray release in progress reaches now (those of {@link
   * #grayInstances()} its rule matches); empty if the key has no gray release. Reads as {@link
   * #grayInstances()} does.
   *
   * @throws IllegalStateException if this config center does not take part in gray releases
   * @throws IllegalArgumentException naming the key if it is invalid
   */
  List<ConfigInstance> grayReach(String key);

  /**
   * Ends the key's gray release by making its candidate the released value (a write like {@link
   * #set}, with history if kept) and removing the candidate: every instance then sees it, and
   * only the instances that did not see it before hear a change. The candidate is the one the
   * ensemble holds, read first (not this instance's copy, which may be behind): the write and the
   * candidate's removal at the version read are one transaction, so a release aborted or replaced
   * meanwhile is refused, never released, and a newer candidate is never removed.
   *
   * <p>Connection loss: waits for the connection and retries as the retry policy allows, then
   * fails with {@link ConnectionException}; after a lost reply it is sent again only if the
   * candidate is still there at the version read, and fails with {@link OutcomeUnknownException}
   * if it cannot tell.
   *
   * @return the key's new entry
   * @throws IllegalStateException if no gray release of the key is in progress (none, aborted or
   *     replaced since it was read, or released beside a value of the key deleted since), or this
   *     config center does not take part in gray releases; nothing written
   */
  ConfigEntry promote(String key);

  /**
   * Ends the key's gray release by removing the candidate: the matching instances go back to the
   * released value (and their listeners hear it). Connection loss as for {@link #grayRelease}.
   *
   * @return false if no gray release of the key was in progress
   * @throws IllegalStateException if this config center does not take part in gray releases
   */
  boolean abort(String key);

  // ---- listeners and state ---------------------------------------------------------------------

  /**
   * Calls {@code listener} after each later change of the local copy, on the client's event
   * executor (never on ZooKeeper's event thread). See {@link ConfigListener}. While the connection
   * is down nothing changes, so nothing is told; the changes made meanwhile are told, once each,
   * when the copy loads again after the reconnection (or on the new session after an expiry).
   */
  void addListener(ConfigListener listener);

  /**
   * Calls {@code listener} after each later change of the local copy, on {@code executor}: one
   * call at a time and in the order of the changes, even on a pool of many threads. An executor
   * that runs tasks in the calling thread ({@code Runnable::run}) runs the listener on
   * ZooKeeper's event thread, which must not wait: such a listener must not block, nor write to
   * the config center (the write would wait for a reply that thread has to deliver).
   */
  void addListener(ConfigListener listener, Executor executor);

  /**
   * As {@link #addListener(ConfigListener, Executor)}, for the changes of {@code key} only.
   *
   * @throws IllegalArgumentException naming the key if it is invalid
   */
  void addKeyListener(String key, ConfigListener listener, Executor executor);

  /**
   * As {@link #addListener(ConfigListener, Executor)}, for the changes of the keys at and below
   * {@code keyPrefix} only ({@code "db"}: {@code db}, {@code db/url}, not {@code db2}).
   *
   * @throws IllegalArgumentException naming the key prefix if it is not a valid key
   */
  void addPrefixListener(String keyPrefix, ConfigListener listener, Executor executor);

  /** Stops calling {@code listener} (for every key or prefix it was added for); calls already handed to its executor still run. */
  void removeListener(ConfigListener listener);

  /**
   * Whether the local copy follows the ensemble right now: connected, and loaded since the
   * connection began. Never blocks. False while the connection is down, while the copy loads again after a
   * reconnection, and while it serves a snapshot file.
   */
  boolean isSynced();

  /** Where the values served come from; see {@link ConfigSource}. Never blocks. */
  ConfigSource source();

  /**
   * Waits until {@link #isSynced()}, at most {@code timeout}. A write of this client needs no
   * wait (see "The local copy"); this is for a process that must not start on stale values.
   *
   * @return whether the copy is synced
   * @throws IllegalArgumentException if {@code timeout} is negative
   * @throws IllegalStateException if the config center has stopped for a {@link #failure()} (the
   *     cause), before or while waiting
   * @throws BatonInterruptedException if the thread is interrupted
   */
  boolean awaitSynced(Duration timeout);

  /**
   * Why the local copy stopped following the ensemble by itself, if it did: the prefix's ACL
   * refuses this identity its reading or watching (a {@link dev.baton.NotAuthorizedException}
   * naming the prefix; keys below it that refuse reading are only left out), another error
   * retrying cannot cure, or the client was closed ({@link dev.baton.ClientClosedException}).
   * Connection loss and session expiry never end it. Reads keep serving the values the copy has.
   * {@link #open} throws such an error itself when it comes while it waits for the first load.
   * Local state.
   */
  Optional<RuntimeException> failure();

  /**
   * Tells {@code listener}, on the client's event executor and at most once, when the copy stops
   * following the ensemble for the reason {@link #failure()} then returns; at once if it has.
   */
  void addFailureListener(FailureListener listener);

  /**
   * Stops following the ensemble and removes the watch from the server (on reconnection, if the
   * connection is down). An instance that announced itself for gray releases deletes its node
   * (at its version, and only if this client's session owns it; a node whose create's reply was
   * lost is looked for first), waiting for the reply at most the connection timeout; while the
   * connection is down it returns at once, and the node is deleted when the connection comes back
   * on the same session, or goes when the session ends. Reads, writes and listeners are refused
   * afterwards with {@link IllegalStateException}. Idempotent. Closing the {@link Baton} client
   * stops it too, but then reads still serve the last values.
   */
  @Override
  void close();

  /**
   * The items of {@code value} when it is a list as an import writes one (compact JSON array text
   * of scalars, {@code ["a","b, c"]}), else empty: for tools that show or bind lists as lists, such
   * as the Spring property source, which gives {@code hosts[0]}, {@code hosts[1]} as Spring's own
   * YAML loader does. Reads nothing from the ensemble.
   */
  static java.util.Optional<java.util.List<String>> listItems(String value) {
    return dev.baton.internal.config.ConfigLists.items(value);
  }
}
