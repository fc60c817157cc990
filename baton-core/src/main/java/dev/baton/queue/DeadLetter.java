package dev.baton.queue;

/**
 * A queue item that failed as often as a consumer allows ({@link ConsumerOptions#maxAttempts()}),
 * handed to a {@link DeadLetterHandler}. It carries the item's bytes rather than its value: an
 * item that cannot even be decoded is a poison item too.
 *
 * @param path the item's node, {@code <queue path>/queue-<sequence>}
 * @param data the item's bytes as the codec wrote them; a copy
 * @param attempts how many deliveries failed, this one included
 * @param lastFailure what the handler (or the codec) threw on the last delivery
 */
public record DeadLetter(String path, byte[] data, int attempts, Throwable lastFailure) {}
