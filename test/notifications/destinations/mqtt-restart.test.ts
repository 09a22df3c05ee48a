/**
 * A Mosquitto of the test's own, persisting what it holds, restarted while the dispatcher drains
 * a backlog into a persistent session (restart.ts).
 */
import { mosquittoPath, ownMosquitto } from './own-brokers.ts';
import { describeBrokerRestart } from './restart.ts';

describeBrokerRestart('mqtt', mosquittoPath, ownMosquitto);
