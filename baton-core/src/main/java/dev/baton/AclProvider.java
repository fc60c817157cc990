package dev.baton;

import dev.baton.FixedAcl;
import dev.baton.lock.Mutex;
import java.util.List;
import org.apache.zookeeper.data.ACL;

/**
 * The ACL of each node a client creates, chosen by path, as Curator's {@code ACLProvider} does.
 * Every node Baton creates gets its ACL from here: the namespace, every recipe's parents and
 * path (container nodes), the queue nodes of the mutex, read-write lock, semaphore, semaphore
 * mutex and leader election, a read-write lock's downgrade node, a counter's node, barrier and
 * queue nodes. Operations of {@link Baton#transaction} keep the ACL each {@code Op.create}
 * carries. Set it with {@link Baton.Builder#aclProvider} or {@link Baton.Builder#acl}; the
 * default is {@link #open()}, as ZooKeeper's and Curator's default.
 *
 * <p>What ZooKeeper checks, and where (this is what decides what an ACL protects):
 *
 * <ul>
 *   <li>Creating and deleting a node need {@code CREATE} and {@code DELETE} on its
 *       <em>parent</em>; reading a node ({@code getData}, {@code exists}, listing its children)
 *       needs {@code READ} on the node, writing its data {@code WRITE}, changing its ACL {@code
 *       ADMIN}.
 *   <li>So a lock is protected by the ACL of its path, the container its queue nodes live in.
 *       With {@link #creatorAllOthersRead()}, another identity cannot queue for the lock (its
 *       create is refused), cannot delete the holder's node to steal the lock, and cannot write
 *       the holder's node (a revocation request), but can still read the queue: {@link
 *       Mutex#holder()} and {@link Mutex#waiters()} work for everyone. Refusals fail with {@link
 *       NotAuthorizedException} naming the path, at once; nothing waits or retries.
 *   <li>An ACL is set when a node is created and only then. A node that already exists keeps the
 *       ACL of whoever created it: if another identity created a lock path first, its ACL
 *       decides. Recipe paths and their parents are containers, which the server removes some
 *       time after their last child (60 s by default); the next client to use the path creates
 *       it again with its own ACL. For a rule that lasts, create the parent (say {@code
 *       /locks}) ahead of time as a persistent node with the ACL you want: who may create below
 *       it decides who may make lock paths there.
 *   <li>Session expiry still removes ephemeral nodes whatever their ACL: a crashed holder's lock
 *       is freed as usual. ZooKeeper's super user ({@code superDigest}) passes every check, to
 *       repair a tree.
 * </ul>
 *
 * <p>The provider is called with the path on the ensemble (the namespace included), and for a
 * sequential node with the path before its sequence number, as Curator calls its provider, so a
 * Curator provider can be reused: {@code path -> curatorProvider.getAclForPath(path)}. It is
 * called on ZooKeeper's and Baton's threads, so it must be quick and must not block. If it
 * throws or returns no ACL, the create is refused by ZooKeeper ({@code INVALIDACL}) and the
 * operation fails with a {@link BatonException} naming the path; a node is never created open
 * by accident.
 */
@FunctionalInterface
public interface AclProvider {

  /** The ACL for a node about to be created at {@code path} (on the ensemble); not empty. */
  List<ACL> aclForPath(String path);

  /**
   * Everyone may do everything (ZooKeeper's {@code OPEN_ACL_UNSAFE}): the default, and right for
   * an ensemble only trusted clients reach.
   */
  static AclProvider open() {
    return FixedAcl.OPEN;
  }

  /**
   * Full rights for the identities the creating session authenticated with (ZooKeeper's {@code
   * auth} scheme: the {@link Baton.Builder#digestAuth digest} user, and the certificate of a
   * {@link Baton.Builder#tlsClientCertificate TLS client}), read-only for everyone else: other
   * identities can see who holds a lock and read a counter, but not queue, delete, write or
   * change the ACL. The client needs an identity: {@link Baton.Builder#build()} refuses this
   * provider without {@code digestAuth} or a TLS client certificate.
   */
  static AclProvider creatorAllOthersRead() {
    return FixedAcl.CREATOR_ALL_OTHERS_READ;
  }

  /**
   * The same ACL for every node, e.g. {@code List.of(new ACL(Perms.ALL, new Id("digest",
   * DigestAuthenticationProvider.generateDigest("app:secret"))), new ACL(Perms.READ,
   * Ids.ANYONE_ID_UNSAFE))}.
   *
   * @throws IllegalArgumentException if {@code acl} is empty or holds null
   */
  static AclProvider of(List<ACL> acl) {
    return FixedAcl.of(acl);
  }
}
