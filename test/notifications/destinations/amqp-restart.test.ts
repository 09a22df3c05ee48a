/**
 * A RabbitMQ node of the test's own restarted while the dispatcher drains a backlog into a
 * durable queue (restart.ts).
 */
import { ownRabbitmq, rabbitmqServerPath } from './own-brokers.ts';
import { describeBrokerRestart } from './restart.ts';

describeBrokerRestart('amqp', rabbitmqServerPath, ownRabbitmq);
