/**
 * Where the client's notifications go: a line that shows the registration's destination (its
 * kind, URL, topic or exchange, and whether broker credentials are set, never them), and a form
 * that registers one of each kind or replaces it. The credentials and the signing key are
 * write-only: the form never shows them, and they are asked for again at each registration.
 */
import { ApiError, request } from './api.ts';
import { RegisterDestination } from './documents.ts';
import { formatTime, h } from './dom.ts';
import type { DashNotificationsQuery, DestinationKind, EventType } from './generated/graphql.ts';

type Registration = NonNullable<DashNotificationsQuery['notificationRegistration']>;

const kinds: DestinationKind[] = ['webhook', 'mqtt', 'amqp', 'nats'];
/** What each kind's topic is, and the URL it takes. */
const topicLabel: Record<DestinationKind, string> = {
  webhook: 'Topic',
  mqtt: 'Topic',
  amqp: 'Routing key',
  nats: 'Subject',
};
const urlHint: Record<DestinationKind, string> = {
  webhook: 'https://receiver.example.com/hooks',
  mqtt: 'mqtts://broker.example.com:8883',
  amqp: 'amqps://broker.example.com:5671/vhost',
  nats: 'tls://broker.example.com:4222',
};

/** The registration's destination, as one line of the notifications panel. */
export function destinationLine(reg: Registration): HTMLElement {
  const broker = reg.kind !== 'webhook';
  return h(
    'p',
    { id: 'destination', 'data-kind': reg.kind },
    broker ? 'Destination ' : 'Receiver ',
    h('strong', { class: 'kind', text: reg.kind }),
    ' ',
    h('code', { text: reg.url }),
    ...(reg.topic !== null
      ? [` ${topicLabel[reg.kind].toLowerCase()} `, h('code', { text: reg.topic })]
      : []),
    ...(reg.exchange !== null
      ? [' exchange ', h('code', { text: reg.exchange === '' ? '(default)' : reg.exchange })]
      : []),
    broker ? (reg.hasCredentials ? ', credentials set' : ', no credentials') : '',
    ` for ${reg.eventTypes.join(', ')}`,
    ...(reg.filter ? [' where ', h('code', { class: 'filter', text: reg.filter })] : []),
    ` (updated ${formatTime(reg.updatedAt)})`,
  );
}

/** One labelled input of the form, in a wrapper that is hidden when its kind has no such field. */
function field<T extends HTMLInputElement | HTMLSelectElement>(
  id: string,
  label: string,
  input: T,
) {
  input.id = id;
  const text = h('span', { text: label });
  return { wrapper: h('label', { class: 'field', for: id }, text, input), text, input };
}

/**
 * The form. `current` is the registration as last loaded (its filter, rate limit, user data and
 * signing are kept by a registration from the form); `registered` is called after one.
 */
export class DestinationForm {
  readonly element: HTMLFormElement;
  #current: Registration | null = null;
  /** Whether the user changed a field since the form was last filled: it is then left alone. */
  #dirty = false;
  readonly #kind = field('dest-kind', 'Kind', h('select', { name: 'kind' }));
  readonly #url = field(
    'dest-url',
    'URL',
    h('input', { name: 'url', required: true, autocomplete: 'off' }),
  );
  readonly #topic = field(
    'dest-topic',
    'Topic',
    h('input', { name: 'topic', autocomplete: 'off' }),
  );
  readonly #exchange = field(
    'dest-exchange',
    'Exchange',
    h('input', { name: 'exchange', placeholder: '(default)', autocomplete: 'off' }),
  );
  readonly #username = field(
    'dest-username',
    'Username',
    h('input', { name: 'username', autocomplete: 'off' }),
  );
  readonly #password = field(
    'dest-password',
    'Password',
    h('input', { name: 'password', type: 'password', autocomplete: 'new-password' }),
  );
  readonly #authKey = field(
    'dest-auth-key',
    'Signing key (authKey)',
    h('input', {
      name: 'authKey',
      type: 'password',
      required: true,
      minlength: 16,
      maxlength: 256,
      autocomplete: 'new-password',
    }),
  );
  readonly #eventTypes = field(
    'dest-event-types',
    'Event types',
    h('input', {
      name: 'eventTypes',
      required: true,
      value: 'activity_created',
      autocomplete: 'off',
    }),
  );
  readonly #status = h('span', { id: 'destination-status', role: 'status', 'aria-live': 'polite' });

  constructor(accountId: () => string | null, registered: () => Promise<void>) {
    const select = this.#kind.input;
    for (const kind of kinds) select.append(h('option', { value: kind, text: kind }));
    const submit = h('button', { type: 'submit', text: 'Register' });
    this.element = h(
      'form',
      { id: 'destination-form', class: 'destination-form', 'aria-labelledby': 'destination-title' },
      h('h4', { id: 'destination-title', text: 'Register a destination' }),
      ...[
        this.#kind,
        this.#url,
        this.#topic,
        this.#exchange,
        this.#username,
        this.#password,
        this.#authKey,
        this.#eventTypes,
      ].map((f) => f.wrapper),
      h(
        'p',
        { class: 'hint' },
        'The credentials and the key are never shown: enter them at each registration. ' +
          'Event types are separated by commas.',
      ),
      h('div', { class: 'row' }, submit, this.#status),
    );
    this.element.addEventListener('input', () => (this.#dirty = true));
    select.addEventListener('change', () => this.#showKind());
    this.element.addEventListener('submit', async (e) => {
      e.preventDefault();
      const account = accountId();
      if (!account) {
        this.#status.textContent = 'No account for this token yet.';
        return;
      }
      submit.disabled = true;
      this.#status.textContent = 'Registering…';
      try {
        const { registerNotifications: reg } = await request(RegisterDestination, {
          input: { accountId: account, ...this.#input() },
        });
        this.#status.textContent = `Registered: ${reg.kind}`;
        this.#dirty = false;
        // Write-only: gone from the page once sent.
        for (const f of [this.#username, this.#password, this.#authKey]) f.input.value = '';
        await registered();
      } catch (err) {
        this.#status.textContent =
          err instanceof ApiError
            ? err.describe()
            : err instanceof Error
              ? err.message
              : String(err);
      } finally {
        submit.disabled = false;
      }
    });
    this.#showKind();
  }

  /** Fills the form from the registration, unless the user is editing it. */
  fill(reg: Registration | null): void {
    this.#current = reg;
    if (this.#dirty || reg === null) return;
    this.#kind.input.value = reg.kind;
    this.#url.input.value = reg.url;
    this.#topic.input.value = reg.topic ?? '';
    this.#exchange.input.value = reg.exchange ?? '';
    this.#eventTypes.input.value = reg.eventTypes.join(', ');
    this.#showKind();
  }

  /** Shows the fields of the chosen kind: a topic and credentials for brokers, an exchange for amqp. */
  #showKind(): void {
    const kind = this.#kind.input.value as DestinationKind;
    const broker = kind !== 'webhook';
    this.#topic.wrapper.hidden = !broker;
    this.#topic.input.required = broker;
    this.#topic.text.textContent = topicLabel[kind];
    this.#exchange.wrapper.hidden = kind !== 'amqp';
    this.#username.wrapper.hidden = !broker;
    this.#password.wrapper.hidden = !broker;
    this.#url.input.placeholder = urlHint[kind];
  }

  /** The registration the form says, keeping the current one's other settings. */
  #input() {
    const kind = this.#kind.input.value as DestinationKind;
    const value = (f: { input: HTMLInputElement | HTMLSelectElement }) => f.input.value.trim();
    const broker = kind !== 'webhook';
    const reg = this.#current;
    return {
      kind,
      url: value(this.#url),
      authKey: this.#authKey.input.value,
      eventTypes: value(this.#eventTypes)
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean) as EventType[],
      ...(broker && { topic: value(this.#topic) }),
      ...(kind === 'amqp' && value(this.#exchange) && { exchange: value(this.#exchange) }),
      // Both or neither: the service names the one missing.
      ...(broker &&
        (value(this.#username) || this.#password.input.value) && {
          username: value(this.#username),
          password: this.#password.input.value,
        }),
      ...(reg?.filter && { filter: reg.filter }),
      ...(reg?.maxPerSecond && { maxPerSecond: reg.maxPerSecond }),
      ...(reg?.userData != null && { userData: reg.userData }),
      ...(reg?.signing && { signing: reg.signing }),
    };
  }
}
