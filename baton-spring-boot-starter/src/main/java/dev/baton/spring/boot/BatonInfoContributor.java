package dev.baton.spring.boot;

import dev.baton.Baton;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/** Adds the ZooKeeper client's settings to {@code /actuator/info} under {@code baton}; no password. */
public class BatonInfoContributor implements InfoContributor {
  private final Baton baton;
  private final BatonProperties properties;

  public BatonInfoContributor(Baton baton, BatonProperties properties) {
    this.baton = baton;
    this.properties = properties;
  }

  @Override
  public void contribute(Info.Builder builder) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("connectString", baton.connectString());
    details.put("namespace", properties.getNamespace() == null ? "" : properties.getNamespace());
    details.put("sessionTimeout", baton.sessionTimeout().toString());
    details.put("state", baton.connectionState().name());
    details.put("tls", properties.getTls().getTrustStore() != null);
    details.put("auth", properties.getAuth().getUser() != null);
    builder.withDetail("baton", details);
  }
}
