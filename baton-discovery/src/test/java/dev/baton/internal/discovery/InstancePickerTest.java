package dev.baton.internal.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.discovery.PickStrategy;
import dev.baton.discovery.ServiceInstance;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Instance picking, without ZooKeeper: only enabled instances are picked; round robin visits each
 * in turn; sticky keeps its choice while that instance stays and moves on once it goes; random
 * stays within the list; nothing to pick is empty.
 */
class InstancePickerTest {
  private static ServiceInstance instance(String id, boolean enabled) {
    return ServiceInstance.builder("orders").id(id).address("10.0.0." + id.length()).port(8080)
        .enabled(enabled).build();
  }

  private static final ServiceInstance A = instance("a", true);
  private static final ServiceInstance B = instance("b", true);
  private static final ServiceInstance C = instance("c", true);
  private static final ServiceInstance OFF = instance("off", false);

  @Test
  void pick_roundRobin_visitsEveryEnabledInstanceInTurn() {
    InstancePicker picker = new InstancePicker();
    List<String> picked = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      picked.add(picker.pick(List.of(A, B, C), PickStrategy.ROUND_ROBIN).orElseThrow().id());
    }
    assertThat(picked).containsExactly("a", "b", "c", "a", "b", "c");
  }

  @Test
  void pick_anyStrategy_neverPicksADisabledInstance() {
    InstancePicker picker = new InstancePicker();
    for (PickStrategy strategy : PickStrategy.values()) {
      for (int i = 0; i < 20; i++) {
        assertThat(picker.pick(List.of(OFF, A, OFF), strategy)).as(strategy.name()).contains(A);
      }
    }
  }

  @Test
  void pick_noEnabledInstance_isEmpty() {
    InstancePicker picker = new InstancePicker();
    for (PickStrategy strategy : PickStrategy.values()) {
      assertThat(picker.pick(List.of(), strategy)).isEmpty();
      assertThat(picker.pick(List.of(OFF), strategy)).isEmpty();
    }
  }

  @Test
  void pick_sticky_keepsItsChoiceWhileTheInstanceStays() {
    InstancePicker picker = new InstancePicker();
    ServiceInstance first = picker.pick(List.of(A, B, C), PickStrategy.STICKY).orElseThrow();
    for (int i = 0; i < 5; i++) {
      assertThat(picker.pick(List.of(A, B, C), PickStrategy.STICKY)).contains(first);
    }
    // The list changes around it: still the same one.
    List<ServiceInstance> changed = new ArrayList<>(List.of(A, B, C, instance("d", true)));
    assertThat(picker.pick(changed, PickStrategy.STICKY)).contains(first);
  }

  @Test
  void pick_sticky_movesOnWhenItsInstanceGoes_andThenStaysOnTheNewOne() {
    InstancePicker picker = new InstancePicker();
    ServiceInstance first = picker.pick(List.of(A, B), PickStrategy.STICKY).orElseThrow();
    List<ServiceInstance> without = new ArrayList<>(List.of(A, B, C));
    without.remove(first);
    ServiceInstance second = picker.pick(without, PickStrategy.STICKY).orElseThrow();
    assertThat(second).isNotEqualTo(first).isIn(without);
    assertThat(picker.pick(without, PickStrategy.STICKY)).contains(second);
  }

  @Test
  void pick_random_staysInTheList_andReachesEveryInstance() {
    InstancePicker picker = new InstancePicker();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 300; i++) {
      ServiceInstance picked = picker.pick(List.of(A, B, C), PickStrategy.RANDOM).orElseThrow();
      assertThat(picked).isIn(A, B, C);
      seen.add(picked.id());
    }
    // 300 draws of 3: missing one has probability 3 * (2/3)^300, about 1e-52.
    assertThat(seen).containsExactlyInAnyOrder("a", "b", "c");
  }
}
