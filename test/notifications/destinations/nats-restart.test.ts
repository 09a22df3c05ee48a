/**
 * A NATS server of the test's own, with JetStream on file, restarted while the dispatcher drains
 * a backlog into a stream (restart.ts).
 */
import { natsServerPath, ownNats } from './own-brokers.ts';
import { describeBrokerRestart } from './restart.ts';

describeBrokerRestart('nats', natsServerPath, ownNats);
