package dev.baton;

import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/** The digest identities of the ACL tests: user {@code u} signs in with password {@code pw-u}. */
public final class DigestUsers {
  /** Every right for alice, reading for anyone. */
  public static final List<ACL> ALICE_ALL_OTHERS_READ = new ArrayList<>(List.of(
      new ACL(ZooDefs.Perms.ALL, digestId("alice")), new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));

  private DigestUsers() {}

  /** The id an ACL names {@code user} by. */
  public static Id digestId(String user) {
    try {
      return new Id("digest", DigestAuthenticationProvider.generateDigest(user + ":pw-" + user));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
