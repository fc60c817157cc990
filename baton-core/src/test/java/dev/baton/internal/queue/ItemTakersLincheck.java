package dev.baton.internal.queue;

import dev.baton.internal.session.DetachedSession;
import dev.baton.internal.session.Session;
import dev.baton.testkit.ModelCheck;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.Stat;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * The queue's takers and their candidates ({@link ItemTakers}), model-checked: a client's threads
 * take (waiting, or not), withdraw and give items back, while the ensemble (played in memory
 * through the takers' {@link ItemTakers.Ensemble} seam) answers what was sent, in order, as one
 * event thread, and other clients put items and claim them. The session is a {@link
 * DetachedSession}: connected, with no ZooKeeper client, so no thread but Lincheck's runs.
 * Whatever the interleaving:
 *
 * <ul>
 *   <li>an item is delivered only with this client's claim on it, to one taker at a time;
 *   <li>once the ensemble has answered everything sent, no taker waits while an item is free,
 *       every taker that may not wait has its answer, and this client's claims are exactly the
 *       items its takers hold (none left behind by a withdrawn taker or a give-back).
 * </ul>
 *
 * No faults and no held-back items: those only add timers (the back-off, the hold) around the
 * same hand-over. Run by {@code dev.baton.internal.InProcessLincheckTest}, with the module's other
 * checks, so that Lincheck's set-up is paid once per build.
 */
public class ItemTakersLincheck {
  private static final String PATH = "/q";
  private static final String CLAIMS = PATH + "/" + ItemNodes.CLAIMS;
  private static final int MAX_ITEMS = 8;
  private static final String[] NAMES = new String[MAX_ITEMS];

  static {
    for (int i = 0; i < MAX_ITEMS; i++) {
      NAMES[i] = String.format("%s%010d", ItemNodes.ITEM_PREFIX, i);
    }
  }

  // One for every invocation, as in CohortLincheck: its state does not change here, and the takers
  // stop observing it once idle.
  private static final Session session = DetachedSession.connected();
  private final Object ensembleSide = new Object(); // guards the fields below
  private final Object eventThread = new Object(); // answers one at a time, in order, as ZooKeeper's event thread
  private final ArrayDeque<Runnable> pending = new ArrayDeque<>(); // requests sent, and watch events, in order
  // The previous invocation's takers: the session is shared, so its observers must be left as found,
  // and an invocation the model checker cuts short never reaches the validation's cleanup. Left
  // there, they grew the session's observer set until a resize of it (a loop inside
  // ConcurrentHashMap) was taken for a hang. Instances are made one at a time, between invocations.
  private static ItemTakers previous;
  private final ItemTakers takers = new ItemTakers(session, PATH, new Ensemble());

  public ItemTakersLincheck() {
    if (previous != null) {
      previous.sessionClosed();
    }
    previous = takers;
  }
  private final List<ItemTakers.Taker> taken = new ArrayList<>();
  private final List<ItemTakers.Taker> polled = new ArrayList<>();
  private final List<ItemTakers.Claimed> held = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  // Items by number, as bits (no boxes per step: Lincheck's cost grows with every allocation).
  private long items; // on the ensemble
  private long ours; // claimed by this client
  private long others; // claimed by another client
  private long holding; // delivered to a taker here and not given back
  private int put;
  private Watcher itemsWatch;
  private Watcher claimsWatch;

  private static int numberOf(String path) {
    return Integer.parseInt(path.substring(path.lastIndexOf('-') + 1));
  }

  private static long bit(int item) {
    return 1L << item;
  }

  /** Queues the watch event of a change of {@code path}'s children, if watched; holding ensembleSide. */
  private void changed(boolean itemsChanged) {
    Watcher watch = itemsChanged ? itemsWatch : claimsWatch;
    if (watch == null) {
      return;
    }
    if (itemsChanged) {
      itemsWatch = null;
    } else {
      claimsWatch = null;
    }
    String path = itemsChanged ? PATH : CLAIMS;
    pending.add(() -> watch.process(new WatchedEvent(Watcher.Event.EventType.NodeChildrenChanged,
        Watcher.Event.KeeperState.SyncConnected, path)));
  }

  /** The ensemble: each request is decided when answered, in the order sent. */
  private final class Ensemble implements ItemTakers.Ensemble {
    @Override
    public Watcher watching(Watcher watcher) {
      return watcher;
    }

    @Override
    public void getChildren(Session.Handle on, String path, Watcher watcher, AsyncCallback.ChildrenCallback callback) {
      send(() -> {
        List<String> children = new ArrayList<>();
        synchronized (ensembleSide) {
          boolean ofItems = path.equals(PATH);
          long listed = ofItems ? items : ours | others;
          for (int i = 0; i < MAX_ITEMS; i++) {
            if ((listed & bit(i)) != 0) {
              children.add(NAMES[i]);
            }
          }
          if (ofItems) {
            itemsWatch = watcher;
          } else {
            claimsWatch = watcher;
          }
        }
        callback.processResult(Code.OK.intValue(), path, null, children);
      });
    }

    @Override
    public void exists(Session.Handle on, String path, Watcher watcher, AsyncCallback.StatCallback callback) {
      send(() -> callback.processResult(Code.OK.intValue(), path, null, new Stat()));
    }

    @Override
    public void multi(Session.Handle on, List<Op> ops, AsyncCallback.MultiCallback callback) {
      send(() -> {
        int failed = -1;
        Code code = Code.OK;
        synchronized (ensembleSide) {
          for (int i = 0; i < ops.size() && failed < 0; i++) {
            Op op = ops.get(i);
            if (op.getPath().equals(CLAIMS)) {
              code = Code.NODEEXISTS; // the claims container is always there
            } else {
              long b = bit(numberOf(op.getPath()));
              if (op.getType() == ZooDefs.OpCode.check) {
                code = (items & b) == 0 ? Code.NONODE : Code.OK;
              } else {
                code = ((ours | others) & b) != 0 ? Code.NODEEXISTS : Code.OK;
              }
            }
            failed = code == Code.OK ? -1 : i;
          }
          if (failed < 0) {
            ours |= bit(numberOf(ops.get(ops.size() - 1).getPath()));
            changed(false);
          }
        }
        List<OpResult> results = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
          if (failed < 0) {
            results.add(i == 0 ? new OpResult.CheckResult() : new OpResult.CreateResult(ops.get(i).getPath()));
          } else {
            results.add(new OpResult.ErrorResult(
                (i < failed ? Code.OK : i == failed ? code : Code.RUNTIMEINCONSISTENCY).intValue()));
          }
        }
        callback.processResult(code.intValue(), null, null, results);
      });
    }

    @Override
    public void getData(Session.Handle on, String path, AsyncCallback.DataCallback callback) {
      send(() -> {
        int n = numberOf(path);
        boolean there;
        synchronized (ensembleSide) {
          there = (items & bit(n)) != 0;
        }
        Stat stat = new Stat();
        stat.setCzxid(n + 1);
        callback.processResult((there ? Code.OK : Code.NONODE).intValue(), path, null, there ? new byte[0] : null,
            there ? stat : null);
      });
    }

    @Override
    public void deleteInBackground(Session.Handle on, String path) {
      send(() -> {
        synchronized (ensembleSide) {
          ours &= ~bit(numberOf(path));
          changed(false);
        }
      });
    }

    private void send(Runnable answer) {
      synchronized (ensembleSide) {
        pending.add(answer);
      }
    }
  }

  // ---- what the client's threads do ---------------------------------------------------------

  /** A take that waits as long as it takes. */
  @Operation
  public void take() {
    ItemTakers.Taker taker = takers.enqueue(-1);
    synchronized (ensembleSide) {
      taken.add(taker);
    }
    taker.result().thenAccept(this::delivered);
  }

  /** A take that may not wait: it fails once a current listing has nothing to claim. */
  @Operation
  public void poll() {
    ItemTakers.Taker taker = takers.enqueue(0);
    synchronized (ensembleSide) {
      polled.add(taker);
    }
    taker.result().thenAccept(this::delivered);
  }

  private void delivered(ItemTakers.Claimed claimed) {
    int n = numberOf(claimed.item());
    synchronized (ensembleSide) {
      if ((ours & bit(n)) == 0) {
        violations.add(claimed.item() + " delivered without this client's claim");
      }
      if ((holding & bit(n)) != 0) {
        violations.add(claimed.item() + " delivered to two takers");
      }
      holding |= bit(n);
      held.add(claimed);
    }
  }

  /** The first taker still waiting withdraws. */
  @Operation
  public void withdraw() {
    ItemTakers.Taker taker = null;
    synchronized (ensembleSide) {
      for (ItemTakers.Taker t : taken) {
        if (!t.result().isDone()) {
          taker = t;
          break;
        }
      }
    }
    if (taker != null) {
      takers.withdraw(taker);
    }
  }

  /** The first item held is given back. */
  @Operation
  public void release() {
    ItemTakers.Claimed claimed;
    synchronized (ensembleSide) {
      if (held.isEmpty()) {
        return;
      }
      claimed = held.remove(0);
      holding &= ~bit(numberOf(claimed.item()));
    }
    takers.release(claimed);
  }

  // ---- what the ensemble and other clients do -----------------------------------------------

  /**
   * The ensemble answers what was sent so far, in order (what the answers send waits for the next
   * call): so that a written scenario can line a thread's step up between a request and its answer.
   */
  @Operation
  public void answer() {
    synchronized (eventThread) {
      int sent;
      synchronized (ensembleSide) {
        sent = pending.size();
      }
      for (int i = 0; i < sent; i++) {
        Runnable next;
        synchronized (ensembleSide) {
          next = pending.poll();
        }
        next.run();
      }
    }
  }

  private boolean quiet() {
    synchronized (ensembleSide) {
      return pending.isEmpty();
    }
  }

  /** Another client puts an item. */
  @Operation
  public void put() {
    synchronized (ensembleSide) {
      if (put == MAX_ITEMS) {
        return;
      }
      items |= bit(put++);
      changed(true);
    }
  }

  /** Another client's consumer claims the oldest free item. */
  @Operation
  public void steal() {
    synchronized (ensembleSide) {
      long free = items & ~(ours | others);
      if (free != 0) {
        others |= Long.lowestOneBit(free);
        changed(false);
      }
    }
  }

  @Validate
  public void nobodyWaitsForAFreeItemAndNoClaimIsLeft() {
    while (!quiet()) {
      answer();
    }
    try {
      verify();
    } finally {
      // The session is shared: leave its observers as found (a taker still waiting keeps the
      // takers observing; see previous).
      takers.sessionClosed();
    }
  }

  private void verify() {
    synchronized (ensembleSide) {
      if (!violations.isEmpty()) {
        throw new IllegalStateException(String.join("; ", violations));
      }
      long free = items & ~(ours | others);
      for (ItemTakers.Taker t : taken) {
        if (!t.result().isDone() && free != 0) {
          throw new IllegalStateException("a taker waits while an item is free: " + Long.toBinaryString(free));
        }
      }
      for (ItemTakers.Taker t : polled) {
        if (!t.result().isDone()) {
          throw new IllegalStateException("a take that may not wait still waits, with nothing left to answer");
        }
      }
      if (ours != holding) {
        throw new IllegalStateException("this client's claims " + Long.toBinaryString(ours) + " but it holds "
            + Long.toBinaryString(holding));
      }
    }
  }

  /**
   * The budget. The races here take two threads: a taker that withdraws while its claim is in
   * flight (the claim goes to the next taker, or back), an item given back while another taker
   * comes (a candidate again at once), and another client's claim against a listing. A written
   * scenario lines up each with one thread switch between two steps; 60 interleavings each are
   * twice what the model checker took to find a planted lost claim (the give-back of a claim
   * whose taker withdrew, with nobody else waiting, taken out: found with 30, not with 10).
   * Random scenarios only in a long run (see {@link ModelCheck}).
   */
  public static void check() {
    ModelCheck.options(0, 60,
            // a taker withdraws while the claim for it is in flight (between the listing's answer
            // and the claim's)
            ModelCheck.scenario(ItemTakersLincheck.class,
                new String[] {"put", "take", "answer", "answer"}, new String[] {"withdraw", "take"}),
            // an item given back as another taker comes
            ModelCheck.scenario(ItemTakersLincheck.class,
                new String[] {"put", "take", "answer", "answer", "release"}, new String[] {"take", "answer"}),
            // another client claims against the claim sent, and a take that may not wait
            ModelCheck.scenario(ItemTakersLincheck.class,
                new String[] {"put", "take", "answer"}, new String[] {"steal", "poll"}))
        .check(ItemTakersLincheck.class);
  }
}
