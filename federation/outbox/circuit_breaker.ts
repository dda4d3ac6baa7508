/**
 * How long deliveries to a peer that is down wait: the options of Fedify's
 * per-host circuit breaker for queued deliveries (federation/mod.ts passes
 * them to createFederation). docs/federation.md ("Deliveries survive crashes
 * and outages") spells out the resulting timeline.
 *
 * A host's circuit opens after {@link CIRCUIT_BREAKER_OPTIONS.failureThreshold}
 * network errors or 5xx answers within the failure window (4xx, 429 and 410
 * prove the host is up and do not count). While it is open, deliveries to that
 * host are held in the queue, without spending retry attempts, for up to
 * seven days (Fedify's `heldActivityTtl`); after the recovery delay one probe
 * is sent, and if it goes through the held deliveries follow.
 */
import type { CircuitBreakerOptions } from "@fedify/fedify";
import { getLogger } from "@logtape/logtape";

const logger = getLogger(["rookery", "delivery"]);

/**
 * When a circuit opens and how long held deliveries are kept are Fedify's
 * defaults (5 failures in 10 minutes; 7 days). The recovery delay is 5
 * minutes instead of 30, so a peer back from an outage gets its backlog
 * within minutes; the cost is one probe per dead host every 5 minutes, and
 * its held deliveries waking as often. So `releaseInterval` is 5 seconds
 * instead of 1: while a probe is in flight (up to the outbound deadline), each
 * held delivery is requeued a couple of times rather than every second.
 */
export const CIRCUIT_BREAKER_OPTIONS = {
  failureThreshold: 5,
  failureWindow: { minutes: 10 },
  recoveryDelay: { minutes: 5 },
  releaseInterval: { seconds: 5 },
  heldActivityTtl: { days: 7 },
  // An operator should see a peer go down, come back, and anything given up on.
  onStateChange(host, previous, next) {
    if (next === "open") logger.warn("Deliveries to {host} are held: it keeps failing", { host });
    else if (next === "closed") {
      logger.info("Deliveries to {host} resume ({previous} circuit closed)", { host, previous });
    }
  },
  onActivityDrop(host, drop) {
    logger.warn("Dropped {type} {id} for {host}: held since {since} without recovery", {
      host,
      type: drop.activityType,
      id: drop.activityId,
      since: drop.heldSince.toString(),
    });
  },
} as const satisfies CircuitBreakerOptions;
