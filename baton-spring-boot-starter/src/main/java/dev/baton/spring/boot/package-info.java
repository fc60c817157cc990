/**
 * Spring Boot auto-configuration: a {@code Baton} and a {@code RedisBaton} from {@code baton.*}
 * properties, Actuator health and info, and the lock registry bean. Every bean backs off when the
 * application defines its own.
 */
package dev.baton.spring.boot;
