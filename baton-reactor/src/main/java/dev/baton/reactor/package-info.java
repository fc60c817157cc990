/**
 * Baton for Project Reactor callers: a lease as a {@code Mono} whose cancellation withdraws the
 * wait and never leaves a lock held, a lease's states and a config center's changes as a {@code
 * Flux}. It stands on the public API only ({@code Mutex}, {@code Semaphore}, {@code Lease}, {@code
 * ConfigCenter}), so it works the same on every backend.
 */
package dev.baton.reactor;
