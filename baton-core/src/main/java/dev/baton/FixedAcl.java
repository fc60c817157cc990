package dev.baton;

import dev.baton.AclProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/** An {@link AclProvider} that gives every path the same ACL. */
public final class FixedAcl implements AclProvider {
  public static final FixedAcl OPEN = new FixedAcl(ZooDefs.Ids.OPEN_ACL_UNSAFE);
  public static final FixedAcl CREATOR_ALL_OTHERS_READ = new FixedAcl(List.of(
      new ACL(ZooDefs.Perms.ALL, ZooDefs.Ids.AUTH_IDS),
      new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));

  private final List<ACL> acl;

  private FixedAcl(List<ACL> acl) {
    // An ArrayList inside: ZooKeeper's client asks contains(null), which List.of refuses.
    this.acl = Collections.unmodifiableList(new ArrayList<>(acl));
  }

  /**
   * @throws IllegalArgumentException if {@code acl} is empty or holds null
   */
  public static FixedAcl of(List<ACL> acl) {
    Objects.requireNonNull(acl, "acl");
    if (acl.isEmpty()) {
      throw new IllegalArgumentException("acl must hold at least one entry; ZooKeeper refuses an empty ACL");
    }
    for (ACL entry : acl) {
      if (entry == null || entry.getId() == null) {
        throw new IllegalArgumentException("acl must not hold null or an entry without an id, was " + acl);
      }
    }
    return new FixedAcl(acl);
  }

  @Override
  public List<ACL> aclForPath(String path) {
    return acl;
  }

  /**
   * Whether the ACL names ZooKeeper's {@code auth} scheme (the creator's identities), which the
   * ensemble refuses from a session that has no identity.
   */
  public boolean needsIdentity() {
    return acl.stream().anyMatch(entry -> "auth".equals(entry.getId().getScheme()));
  }

  @Override
  public String toString() {
    return "AclProvider" + acl;
  }
}
