import type { RedisClient } from '../storage/redis.ts';
import { bucketScale, unitsOf, type BucketDecision, type BucketPolicy } from './gcra.ts';

/**
 * The shared buckets: GCRA (./gcra.ts) run as one Lua script in Redis over one or more buckets
 * of a caller, so that a request and its GraphQL operation's cost are taken in one round trip.
 * The buckets are taken in order and the script stops at the first that refuses: what comes
 * after it is neither taken nor answered. Every key of a caller carries the caller as its hash
 * tag (`{...}`), so that on a Redis Cluster they are in one slot, as a script's keys must be.
 */
export interface Take {
  /** The bucket's key in Redis (and in this instance's buckets). */
  key: string;
  policy: BucketPolicy;
  /** Tokens taken: 1 for a request, the operation's cost for the cost budget. */
  cost: number;
}

/** What `caller` takes from its bucket of `policy`. */
export const take = (caller: string, policy: BucketPolicy, cost: number): Take => ({
  key: `clipgate:rate:{${caller}}:${policy.name}`,
  policy,
  cost,
});

/**
 * KEYS: the buckets; ARGV: the time (ms since 1970), then burst, rate, period (ms) and cost of
 * each bucket, in the units of its scale (`bucketScale`). Answers limited (0/1), remaining,
 * retry in and reset in (ms) for each bucket taken, up to the first refused. The arithmetic is
 * redis-gcra 0.3's script, which the in-memory buckets mirror.
 */
const SCRIPT = `
local now = tonumber(ARGV[1])
local answers = {}
for i, key in ipairs(KEYS) do
  local base = 1 + (i - 1) * 4
  local burst = tonumber(ARGV[base + 1])
  local rate = tonumber(ARGV[base + 2])
  local period = tonumber(ARGV[base + 3])
  local cost = tonumber(ARGV[base + 4])
  local interval = period / rate
  local increment = interval * cost
  local burst_offset = interval * burst
  local tat = tonumber(redis.call('GET', key)) or now
  tat = math.max(tat, now)
  local new_tat = tat + increment
  local allow_at = new_tat - burst_offset
  local diff = now - allow_at
  local remaining = math.floor(diff / interval)
  if remaining < 0 then
    remaining = math.floor((now - (tat - burst_offset)) / interval)
    table.insert(answers, 1)
    table.insert(answers, remaining)
    table.insert(answers, math.ceil(-diff))
    table.insert(answers, math.ceil(tat - now))
    return answers
  end
  local reset_in = math.ceil(new_tat - now)
  if increment > 0 then
    redis.call('SET', key, new_tat, 'PX', reset_in)
  end
  table.insert(answers, 0)
  table.insert(answers, remaining)
  table.insert(answers, 0)
  table.insert(answers, reset_in)
end
return answers
`;

/**
 * The settlement of a charge (./gcra.ts's `adjustToken`): KEYS: the bucket; ARGV: the time, burst,
 * rate, period and the units to take (negative: to give back), never refused. Answers remaining
 * and reset in (ms).
 */
const SETTLE_SCRIPT = `
local now = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local interval = tonumber(ARGV[4]) / tonumber(ARGV[3])
local units = tonumber(ARGV[5])
local tat = math.max(tonumber(redis.call('GET', KEYS[1])) or now, now)
local new_tat = tat + interval * units
if new_tat <= now then
  redis.call('DEL', KEYS[1])
  return {burst, 0}
end
local reset_in = math.ceil(new_tat - now)
redis.call('SET', KEYS[1], new_tat, 'PX', reset_in)
return {math.max(0, math.floor((now - (new_tat - interval * burst)) / interval)), reset_in}
`;

/** A client with the scripts defined on it (EVALSHA, loaded again by ioredis when Redis lost them). */
export type GcraClient = RedisClient & {
  clipgateGcra(...args: [number, ...(string | number)[]]): Promise<number[]>;
  clipgateGcraSettle(...args: [number, ...(string | number)[]]): Promise<number[]>;
};

export function withGcraScript(client: RedisClient): GcraClient {
  client.defineCommand('clipgateGcra', { lua: SCRIPT });
  client.defineCommand('clipgateGcraSettle', { lua: SETTLE_SCRIPT });
  return client as GcraClient;
}

/** Settles `t` by its `cost` in tokens (negative: given back), in one call; never refused. */
export async function settleShared(redis: GcraClient, t: Take): Promise<BucketDecision> {
  const scale = bucketScale(t.policy);
  const units = Math.sign(t.cost) * unitsOf(Math.abs(t.cost), scale);
  const [remaining, resetIn] = await redis.clipgateGcraSettle(
    1,
    t.key,
    Date.now(),
    scale.burst,
    scale.rate,
    scale.periodMs,
    units,
  );
  return { allowed: true, remaining: remaining! * scale.unit, retryAfterMs: 0, resetMs: resetIn! };
}

/** Takes `takes` in one call; see `Take`. */
export async function takeShared(redis: GcraClient, takes: Take[]): Promise<BucketDecision[]> {
  const scales = takes.map((t) => bucketScale(t.policy));
  const args: (string | number)[] = [Date.now()];
  takes.forEach((t, i) => {
    const scale = scales[i]!;
    args.push(scale.burst, scale.rate, scale.periodMs, unitsOf(t.cost, scale));
  });
  const answers = await redis.clipgateGcra(takes.length, ...takes.map((t) => t.key), ...args);
  const decisions: BucketDecision[] = [];
  for (let i = 0; i * 4 < answers.length; i++) {
    const [limited, remaining, retryIn, resetIn] = answers.slice(i * 4, i * 4 + 4) as number[];
    const scale = scales[i]!;
    decisions.push({
      allowed: limited === 0,
      remaining: remaining! * scale.unit,
      // A charge larger than the whole bucket never fits.
      retryAfterMs: unitsOf(takes[i]!.cost, scale) > scale.burst ? Infinity : retryIn!,
      resetMs: resetIn!,
    });
  }
  return decisions;
}
