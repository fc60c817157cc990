package dev.baton.internal.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.discovery.PickOptions;
import dev.baton.discovery.PickStrategy;
import dev.baton.discovery.ServiceInstance;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Weighted, zone-aware picking with a protection threshold, without ZooKeeper: the candidates
 * follow {@link PickOptions}' rules in order, and the weighted choice falls where the weights say.
 */
class PickOptionsTest {
  private static ServiceInstance instance(String id, String zone, boolean enabled, Object weight) {
    Map<String, Object> payload = weight == null ? Map.of("zone", zone) : Map.of("zone", zone, "weight", weight);
    return ServiceInstance.builder("orders").id(id).address("10.0.0.1").port(8080).payload(payload)
        .enabled(enabled).build();
  }

  private static final ServiceInstance A1 = instance("a1", "a", true, null);
  private static final ServiceInstance A2 = instance("a2", "a", false, null);
  private static final ServiceInstance B1 = instance("b1", "b", true, null);
  private static final ServiceInstance B2 = instance("b2", "b", true, null);

  @Test
  void zone_prefersTheCallersZone_andFallsBackWhenItHasNoneLeft() {
    PickOptions inA = PickOptions.of(PickStrategy.ROUND_ROBIN).preferringZone("a");
    assertThat(InstancePicker.candidates(List.of(A1, A2, B1, B2), inA)).containsExactly(A1);
    assertThat(InstancePicker.candidates(List.of(A2, B1, B2), inA)).as("zone a has only a down one")
        .containsExactly(B1, B2);
    assertThat(InstancePicker.candidates(List.of(A1, B1), PickOptions.of(PickStrategy.RANDOM).preferringZone("c")))
        .containsExactly(A1, B1);
  }

  @Test
  void protectionThreshold_whenTooFewAreUp_picksAmongAll() {
    ServiceInstance downB1 = instance("b1", "b", false, null);
    ServiceInstance downB2 = instance("b2", "b", false, null);
    List<ServiceInstance> mostlyDown = List.of(A1, A2, downB1, downB2); // 1 of 4 up
    assertThat(InstancePicker.candidates(mostlyDown, PickOptions.of(PickStrategy.RANDOM))).containsExactly(A1);
    assertThat(InstancePicker.candidates(mostlyDown, PickOptions.of(PickStrategy.RANDOM).withProtectionThreshold(0.5)))
        .containsExactly(A1, A2, downB1, downB2);
    assertThat(InstancePicker.candidates(List.of(A1, A2, B1, B2),
        PickOptions.of(PickStrategy.RANDOM).withProtectionThreshold(0.5))).as("3 of 4 up: no protection")
        .containsExactly(A1, B1, B2);
  }

  @Test
  void weighted_fallsAsTheWeightsSay_andZeroIsNeverPicked() {
    ServiceInstance heavy = instance("heavy", "a", true, 3);
    ServiceInstance light = instance("light", "a", true, 1.0);
    ServiceInstance none = instance("none", "a", true, 0);
    List<ServiceInstance> list = List.of(heavy, light, none);
    assertThat(InstancePicker.weighted(list, 0.0)).isEqualTo(heavy);
    assertThat(InstancePicker.weighted(list, 0.74)).isEqualTo(heavy);
    assertThat(InstancePicker.weighted(list, 0.76)).isEqualTo(light);
    assertThat(InstancePicker.weighted(list, 0.999)).isEqualTo(light);
    assertThat(InstancePicker.weightOf(instance("x", "a", true, "heavy"))).as("not a number").isEqualTo(1);
    assertThat(InstancePicker.weighted(List.of(none, instance("z", "a", true, 0)), 0.6).id()).isEqualTo("z");
    InstancePicker picker = new InstancePicker();
    for (int i = 0; i < 200; i++) {
      assertThat(picker.pick(list, PickOptions.of(PickStrategy.WEIGHTED_RANDOM))).isNotEqualTo(java.util.Optional.of(none));
    }
  }

  @Test
  void badOptions_areRefusedNamingTheArgument() {
    assertThatThrownBy(() -> PickOptions.of(PickStrategy.RANDOM).withProtectionThreshold(1.5))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("protectionThreshold");
    assertThatThrownBy(() -> PickOptions.of(PickStrategy.RANDOM).withProtectionThreshold(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("protectionThreshold");
    assertThatThrownBy(() -> PickOptions.of(PickStrategy.RANDOM).preferringZone(" "))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("zone");
  }
}
