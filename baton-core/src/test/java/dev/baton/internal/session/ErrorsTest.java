package dev.baton.internal.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.BatonException;
import dev.baton.ConnectionException;
import dev.baton.NodeExistsException;
import dev.baton.NodeMissingException;
import dev.baton.NotAuthorizedException;
import dev.baton.SessionLostException;
import dev.baton.VersionConflictException;
import java.util.concurrent.CompletionException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * The one place where ZooKeeper's errors become Baton's: each reply code a caller would act on
 * differently gets its own exception, naming the path and keeping ZooKeeper's as the cause.
 */
class ErrorsTest {

  @Test
  void translate_missingNode_isNodeMissingNamingThePath() {
    KeeperException cause = KeeperException.create(Code.NONODE, "/ns/a");
    RuntimeException error = Errors.translate(new CompletionException(cause), "/a");
    assertThat(error).isInstanceOf(NodeMissingException.class).hasMessageContaining("/a").hasCause(cause);
    assertThat(((NodeMissingException) error).path()).isEqualTo("/a");
  }

  @Test
  void translate_existingNode_isNodeExists() {
    RuntimeException error = Errors.translate(KeeperException.create(Code.NODEEXISTS, "/b"), "/b");
    assertThat(error).isInstanceOf(NodeExistsException.class).hasMessageContaining("/b");
    assertThat(((NodeExistsException) error).path()).isEqualTo("/b");
  }

  @Test
  void translate_badVersion_isVersionConflict() {
    RuntimeException error = Errors.translate(KeeperException.create(Code.BADVERSION, "/c"), "/c");
    assertThat(error).isInstanceOf(VersionConflictException.class).hasMessageContaining("/c");
    assertThat(((VersionConflictException) error).path()).isEqualTo("/c");
  }

  @Test
  void translate_connectionAndSessionAndAuth_keepTheirOwnExceptions() {
    assertThat(Errors.translate(KeeperException.create(Code.CONNECTIONLOSS), "/d")).isInstanceOf(ConnectionException.class);
    assertThat(Errors.translate(KeeperException.create(Code.SESSIONEXPIRED), "/d")).isInstanceOf(SessionLostException.class);
    assertThat(Errors.translate(KeeperException.create(Code.NOAUTH), "/d")).isInstanceOf(NotAuthorizedException.class);
  }

  @Test
  void translate_batonException_passesThroughUnchanged() {
    BatonException original = new BatonException("as it was");
    assertThat(Errors.translate(new CompletionException(original), "/e")).isSameAs(original);
  }

  @Test
  void isUnrecoverable_refusalsAndClosedClient_areFatal_connectionTroubleAndRacesAreNot() {
    assertThat(Errors.isUnrecoverable(Errors.translate(KeeperException.create(Code.NOAUTH, "/a"), "/a"))).isTrue();
    assertThat(Errors.isUnrecoverable(new CompletionException(KeeperException.create(Code.INVALIDACL, "/a")))).isTrue();
    assertThat(Errors.isUnrecoverable(KeeperException.create(Code.BADARGUMENTS, "/a"))).isTrue();
    assertThat(Errors.isUnrecoverable(new dev.baton.ClientClosedException("127.0.0.1:1"))).isTrue();
    assertThat(Errors.isUnrecoverable(new IllegalArgumentException("bad path"))).isTrue();

    assertThat(Errors.isUnrecoverable(KeeperException.create(Code.CONNECTIONLOSS, "/a"))).isFalse();
    assertThat(Errors.isUnrecoverable(Errors.translate(KeeperException.create(Code.SESSIONEXPIRED, "/a"), "/a"))).isFalse();
    assertThat(Errors.isUnrecoverable(KeeperException.create(Code.NODEEXISTS, "/a"))).isFalse();
    assertThat(Errors.isUnrecoverable(new java.util.concurrent.CancellationException())).isFalse();
  }
}
